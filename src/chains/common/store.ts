// The chain layer's shared storage module (docs/architecture.md "Data access"): the cost record
// of every transaction the gateway sends (`transfer_costs`: `costs.ts` `recordCost`) and the gas
// top-ups (`gas_topups`: `gas-topup.ts`, the EVM nonce reads of `evm/payout-steps.ts` and
// `evm/reconcile.ts`) with the replacements of their transactions (`gas_topup_attempts`, EVM).
import { and, asc, desc, eq, inArray } from "drizzle-orm";
import type { DbOrTx, Tx } from "../../db/client";
import { gasTopupAttempts, gasTopups, transferCosts } from "../../db/schema";
import type { SignedTransfer } from "../types";
import { attemptColumns, storedAttempt, type TxAttempt } from "../payout-steps";
import { isPg, pgOf, pgSide } from "../../db/engine";
import { OPEN_TOPUP } from "./topup-status";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

export type NewCostRow = typeof transferCosts.$inferInsert;
export type TopupRow = typeof gasTopups.$inferSelect;
export type NewTopupRow = typeof gasTopups.$inferInsert;
type TopupStatus = TopupRow["status"];

export { OPEN_TOPUP };

/** Inserts a cost row unless (chain, txHash) has one; true when it did. */
export async function insertCost(tx: Tx, row: NewCostRow): Promise<boolean> {
  if (isPg(tx)) return await pg.insertCost(pgOf(tx), row);
  const inserted = tx.insert(transferCosts).values(row).onConflictDoNothing().returning({ id: transferCosts.id }).all();
  return inserted.length > 0;
}

/** The newest top-up of a payout still under way, if any. */
export async function openTopupFor(db: DbOrTx, payoutOrderId: number): Promise<TopupRow | undefined> {
  if (isPg(db)) return await pg.openTopupFor(pgOf(db), payoutOrderId);
  return db
    .select()
    .from(gasTopups)
    .where(and(eq(gasTopups.payoutOrderId, payoutOrderId), inArray(gasTopups.status, OPEN_TOPUP)))
    .orderBy(desc(gasTopups.id))
    .get();
}

export async function insertTopup(db: DbOrTx, row: NewTopupRow): Promise<TopupRow> {
  if (isPg(db)) return await pg.insertTopup(pgOf(db), row);
  return db.insert(gasTopups).values(row).returning().get();
}

/** Patches a top-up (no status change) and returns it as it is now. */
export async function patchTopup(db: DbOrTx, id: number, set: Partial<TopupRow>): Promise<TopupRow> {
  if (isPg(db)) return await pg.patchTopup(pgOf(db), id, set);
  return db.update(gasTopups).set(set).where(eq(gasTopups.id, id)).returning().get();
}

/** Patches a top-up inside the caller's transaction (no status change: stuck, replaced). */
export async function markTopup(tx: Tx, id: number, set: Partial<TopupRow>): Promise<void> {
  if (isPg(tx)) return await pg.markTopup(pgOf(tx), id, set);
  tx.update(gasTopups).set(set).where(eq(gasTopups.id, id)).run();
}

/**
 * A top-up's status change as a compare-and-set on the status it was read in: the new row, or
 * undefined when another writer moved it first (the caller re-reads; nothing is recorded twice).
 */
export async function moveTopup(db: DbOrTx, id: number, from: TopupStatus, set: Partial<TopupRow> & { status: TopupStatus }): Promise<TopupRow | undefined> {
  if (isPg(db)) return await pg.moveTopup(pgOf(db), id, from, set);
  return db.update(gasTopups).set(set).where(and(eq(gasTopups.id, id), eq(gasTopups.status, from))).returning().get();
}

/** Signed metadata of the top-ups `fromAddress` sent on `chain`: every one, or (`open`) those under way. */
export async function topupMetas(db: DbOrTx, chain: string, fromAddress: string, o: { open?: boolean } = {}): Promise<string[]> {
  if (isPg(db)) return await pg.topupMetas(pgOf(db), chain, fromAddress, o);
  const of = [eq(gasTopups.chain, chain), eq(gasTopups.fromAddress, fromAddress)];
  return db
    .select({ meta: gasTopups.signedMeta })
    .from(gasTopups)
    .where(and(...of, ...(o.open ? [inArray(gasTopups.status, OPEN_TOPUP)] : [])))
    .all()
    .map((r) => r.meta);
}

/** The replacements of a top-up's transaction (gas_topup_attempts), oldest first. */
export async function topupReplacements(db: DbOrTx, topupId: number): Promise<TxAttempt[]> {
  if (isPg(db)) return await pg.topupReplacements(pgOf(db), topupId);
  return db.select().from(gasTopupAttempts).where(eq(gasTopupAttempts.gasTopupId, topupId)).orderBy(asc(gasTopupAttempts.id)).all().map(storedAttempt);
}

/** Stores a top-up's replacement (inside the transaction that commits it before it is broadcast). */
export async function addTopupReplacement(tx: Tx, t: { id: number; chain: string }, signed: SignedTransfer, now: number): Promise<void> {
  if (isPg(tx)) return await pg.addTopupReplacement(pgOf(tx), t, signed, now);
  tx.insert(gasTopupAttempts).values({ gasTopupId: t.id, ...attemptColumns(t.chain, signed, now) }).run();
}

/** A top-up by id (re-read inside the transaction that stores its replacement). */
export async function topupById(db: DbOrTx, id: number): Promise<TopupRow> {
  if (isPg(db)) return await pg.topupById(pgOf(db), id);
  return db.select().from(gasTopups).where(eq(gasTopups.id, id)).get()!;
}
