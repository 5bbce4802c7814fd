// chains/tron/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
// Amounts are decimal text: summed exactly as numeric in the database, or as bigint here.
import { and, eq, inArray, ne, sql } from "drizzle-orm";
import { firstRow, type PgQ } from "../../db/engine";
import { energyDelegations, stakingTxs } from "../../db/schema-pg";
import { IN_FLIGHT, OPEN, OUT, RECLAIMABLE, SERVED } from "./state";
import type { DelegationRow, NewDelegationRow, NewStakingTxRow, StakingTxRow } from "./store";

const sumAmounts = (rows: { a: string }[]) => rows.reduce((s, r) => s + BigInt(r.a), 0n);

export async function delegationById(tx: PgQ, id: number): Promise<DelegationRow | undefined> {
  return await firstRow(tx.select().from(energyDelegations).where(eq(energyDelegations.id, id)));
}

export async function patchDelegation(tx: PgQ, id: number, from: DelegationRow["status"], set: Partial<DelegationRow>): Promise<DelegationRow | undefined> {
  return await firstRow(tx.update(energyDelegations).set(set).where(and(eq(energyDelegations.id, id), eq(energyDelegations.status, from))).returning());
}

export async function insertDelegation(tx: PgQ, row: NewDelegationRow): Promise<DelegationRow> {
  return (await firstRow(tx.insert(energyDelegations).values(row).returning()))!;
}

export async function openDelegationFor(db: PgQ, payoutOrderId: number): Promise<DelegationRow | undefined> {
  return await firstRow(
    db
      .select()
      .from(energyDelegations)
      .where(and(eq(energyDelegations.payoutOrderId, payoutOrderId), inArray(energyDelegations.status, OPEN)))
      .limit(1),
  );
}

export async function inFlightSun(db: PgQ, chain: string): Promise<bigint> {
  return sumAmounts(
    await db
      .select({ a: energyDelegations.amount })
      .from(energyDelegations)
      .where(and(eq(energyDelegations.chain, chain), inArray(energyDelegations.status, IN_FLIGHT))),
  );
}

export async function othersOutSun(db: PgQ, chain: string, receiver: string, exceptId: number): Promise<bigint> {
  return sumAmounts(
    await db
      .select({ a: energyDelegations.amount })
      .from(energyDelegations)
      .where(and(eq(energyDelegations.chain, chain), eq(energyDelegations.receiver, receiver), inArray(energyDelegations.status, OUT), ne(energyDelegations.id, exceptId))),
  );
}

export async function reclaimableDelegations(db: PgQ, chain: string): Promise<DelegationRow[]> {
  return await db
    .select()
    .from(energyDelegations)
    .where(and(eq(energyDelegations.chain, chain), inArray(energyDelegations.status, RECLAIMABLE)));
}

/** As on SQLite: a count, and the exact sum of the sun saved as decimal text (null when no row). */
export async function servedDelegations(db: PgQ, chain: string): Promise<{ n: number; saved: string | null } | undefined> {
  const r = await firstRow(
    db
      .select({ n: sql<string>`count(*)`, saved: sql<string | null>`sum(CAST(${energyDelegations.sunSaved} AS numeric))::text` })
      .from(energyDelegations)
      .where(and(eq(energyDelegations.chain, chain), inArray(energyDelegations.status, SERVED), sql`CAST(${energyDelegations.energyUsed} AS numeric) > 0`)),
  );
  return r ? { n: Number(r.n), saved: r.saved } : undefined;
}

export async function insertStakingTx(tx: PgQ, row: NewStakingTxRow): Promise<StakingTxRow> {
  return (await firstRow(tx.insert(stakingTxs).values(row).returning()))!;
}

export async function setStakingTx(tx: PgQ, id: number, set: Pick<StakingTxRow, "status" | "lastError" | "updatedAt">): Promise<void> {
  await tx.update(stakingTxs).set(set).where(eq(stakingTxs.id, id));
}
