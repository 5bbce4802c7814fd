// The TRON module's storage module (docs/architecture.md "Data access"): `energy_delegations`
// and `staking_txs` (`energy.ts`); status lists from `state.ts`.
import { and, eq, inArray, sql } from "drizzle-orm";
import type { DbOrTx, Tx } from "../../db/client";
import { energyDelegations, stakingTxs } from "../../db/schema";
import { IN_FLIGHT, OPEN, OUT, RECLAIMABLE, SERVED } from "./state";
import { isPg, pgOf, pgSide } from "../../db/engine";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

export type DelegationRow = typeof energyDelegations.$inferSelect;
export type NewDelegationRow = typeof energyDelegations.$inferInsert;
export type StakingTxRow = typeof stakingTxs.$inferSelect;
export type NewStakingTxRow = typeof stakingTxs.$inferInsert;

const sumAmounts = (rows: { a: string }[]) => rows.reduce((s, r) => s + BigInt(r.a), 0n);

export async function delegationById(tx: DbOrTx, id: number): Promise<DelegationRow | undefined> {
  if (isPg(tx)) return await pg.delegationById(pgOf(tx), id);
  return tx.select().from(energyDelegations).where(eq(energyDelegations.id, id)).get();
}

/**
 * Patches a delegation read in status `from` (its transition, or a patch in the same status) as a
 * compare-and-set: the new row, or undefined when another writer moved it first.
 */
export async function patchDelegation(tx: DbOrTx, id: number, from: DelegationRow["status"], set: Partial<DelegationRow>): Promise<DelegationRow | undefined> {
  if (isPg(tx)) return await pg.patchDelegation(pgOf(tx), id, from, set);
  return tx.update(energyDelegations).set(set).where(and(eq(energyDelegations.id, id), eq(energyDelegations.status, from))).returning().get();
}

export async function insertDelegation(tx: Tx, row: NewDelegationRow): Promise<DelegationRow> {
  if (isPg(tx)) return await pg.insertDelegation(pgOf(tx), row);
  return tx.insert(energyDelegations).values(row).returning().get();
}

/** The delegation a payout has (or is getting), if any. */
export async function openDelegationFor(db: DbOrTx, payoutOrderId: number): Promise<DelegationRow | undefined> {
  if (isPg(db)) return await pg.openDelegationFor(pgOf(db), payoutOrderId);
  return db
    .select()
    .from(energyDelegations)
    .where(and(eq(energyDelegations.payoutOrderId, payoutOrderId), inArray(energyDelegations.status, OPEN)))
    .get();
}

/** Sun of the chain's delegations signed but not yet seen on chain. */
export async function inFlightSun(db: DbOrTx, chain: string): Promise<bigint> {
  if (isPg(db)) return await pg.inFlightSun(pgOf(db), chain);
  return sumAmounts(
    db
      .select({ a: energyDelegations.amount })
      .from(energyDelegations)
      .where(and(eq(energyDelegations.chain, chain), inArray(energyDelegations.status, IN_FLIGHT)))
      .all(),
  );
}

/** Sun the other delegations (not `exceptId`) may have out at `receiver`. */
export async function othersOutSun(db: DbOrTx, chain: string, receiver: string, exceptId: number): Promise<bigint> {
  if (isPg(db)) return await pg.othersOutSun(pgOf(db), chain, receiver, exceptId);
  return sumAmounts(
    db
      .select({ a: energyDelegations.amount })
      .from(energyDelegations)
      .where(and(eq(energyDelegations.chain, chain), eq(energyDelegations.receiver, receiver), inArray(energyDelegations.status, OUT), sql`${energyDelegations.id} <> ${exceptId}`))
      .all(),
  );
}

/** The chain's landed delegations still to be reclaimed. */
export async function reclaimableDelegations(db: DbOrTx, chain: string): Promise<DelegationRow[]> {
  if (isPg(db)) return await pg.reclaimableDelegations(pgOf(db), chain);
  return db
    .select()
    .from(energyDelegations)
    .where(and(eq(energyDelegations.chain, chain), inArray(energyDelegations.status, RECLAIMABLE)))
    .all();
}

/** How many of the chain's delegations a payout used, and the sun they saved (decimal text: exact past 2^53). */
export async function servedDelegations(db: DbOrTx, chain: string): Promise<{ n: number; saved: string | null } | undefined> {
  if (isPg(db)) return await pg.servedDelegations(pgOf(db), chain);
  return db
    .select({ n: sql<number>`count(*)`, saved: sql<string | null>`CAST(sum(CAST(${energyDelegations.sunSaved} AS INTEGER)) AS TEXT)` })
    .from(energyDelegations)
    .where(and(eq(energyDelegations.chain, chain), inArray(energyDelegations.status, SERVED), sql`CAST(${energyDelegations.energyUsed} AS INTEGER) > 0`))
    .get();
}

export async function insertStakingTx(tx: Tx, row: NewStakingTxRow): Promise<StakingTxRow> {
  if (isPg(tx)) return await pg.insertStakingTx(pgOf(tx), row);
  return tx.insert(stakingTxs).values(row).returning().get();
}

export async function setStakingTx(tx: Tx, id: number, set: Pick<StakingTxRow, "status" | "lastError" | "updatedAt">): Promise<void> {
  if (isPg(tx)) return await pg.setStakingTx(pgOf(tx), id, set);
  tx.update(stakingTxs).set(set).where(eq(stakingTxs.id, id)).run();
}
