// chains/common/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
import { and, asc, desc, eq, inArray } from "drizzle-orm";
import { firstRow, type PgQ } from "../../db/engine";
import { gasTopupAttempts, gasTopups, transferCosts } from "../../db/schema-pg";
import { attemptColumns, storedAttempt, type TxAttempt } from "../payout-steps";
import type { SignedTransfer } from "../types";
import type { NewCostRow, NewTopupRow, TopupRow } from "./store";
import { OPEN_TOPUP } from "./topup-status";

type TopupStatus = TopupRow["status"];

export async function insertCost(tx: PgQ, row: NewCostRow): Promise<boolean> {
  const inserted = await tx.insert(transferCosts).values(row).onConflictDoNothing().returning({ id: transferCosts.id });
  return inserted.length > 0;
}

export async function openTopupFor(db: PgQ, payoutOrderId: number): Promise<TopupRow | undefined> {
  return await firstRow(
    db
      .select()
      .from(gasTopups)
      .where(and(eq(gasTopups.payoutOrderId, payoutOrderId), inArray(gasTopups.status, OPEN_TOPUP)))
      .orderBy(desc(gasTopups.id))
      .limit(1),
  );
}

export async function insertTopup(db: PgQ, row: NewTopupRow): Promise<TopupRow> {
  return (await firstRow(db.insert(gasTopups).values(row).returning()))!;
}

export async function patchTopup(db: PgQ, id: number, set: Partial<TopupRow>): Promise<TopupRow> {
  return (await firstRow(db.update(gasTopups).set(set).where(eq(gasTopups.id, id)).returning()))!;
}

export async function markTopup(tx: PgQ, id: number, set: Partial<TopupRow>): Promise<void> {
  await tx.update(gasTopups).set(set).where(eq(gasTopups.id, id));
}

export async function moveTopup(db: PgQ, id: number, from: TopupStatus, set: Partial<TopupRow> & { status: TopupStatus }): Promise<TopupRow | undefined> {
  return await firstRow(db.update(gasTopups).set(set).where(and(eq(gasTopups.id, id), eq(gasTopups.status, from))).returning());
}

export async function topupMetas(db: PgQ, chain: string, fromAddress: string, o: { open?: boolean } = {}): Promise<string[]> {
  const of = [eq(gasTopups.chain, chain), eq(gasTopups.fromAddress, fromAddress)];
  const rows = await db
    .select({ meta: gasTopups.signedMeta })
    .from(gasTopups)
    .where(and(...of, ...(o.open ? [inArray(gasTopups.status, OPEN_TOPUP)] : [])));
  return rows.map((r) => r.meta);
}

export async function topupReplacements(db: PgQ, topupId: number): Promise<TxAttempt[]> {
  return (await db.select().from(gasTopupAttempts).where(eq(gasTopupAttempts.gasTopupId, topupId)).orderBy(asc(gasTopupAttempts.id))).map(storedAttempt);
}

export async function addTopupReplacement(tx: PgQ, t: { id: number; chain: string }, signed: SignedTransfer, now: number): Promise<void> {
  await tx.insert(gasTopupAttempts).values({ gasTopupId: t.id, ...attemptColumns(t.chain, signed, now) });
}

export async function topupById(db: PgQ, id: number): Promise<TopupRow> {
  return (await firstRow(db.select().from(gasTopups).where(eq(gasTopups.id, id))))!;
}
