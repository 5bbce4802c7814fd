// restore/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle):
// the generation marker's row, reconcile mode's rows and the unrecorded outgoing transfers, which
// the payout executor's send gate (restore/reconcile.ts ReconcileGate) reads before a source sends.
// The backup file's checks (a SQLite connection to a private copy) stay SQLite's; a PostgreSQL
// restore's are restore/pg-store.ts and pg-restore.ts.
import { and, count, desc, eq, isNull, sql } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { chainCursors, reconcileAddresses, reconcileChains, settings, unrecordedOutgoing } from "../db/schema-pg";
import type { ReconcileChainRow, UnrecordedRow } from "./store";

const GENERATION_KEY = "generation";

export async function dbGeneration(db: PgQ): Promise<string | null> {
  return (await firstRow(db.select().from(settings).where(eq(settings.key, GENERATION_KEY))))?.value ?? null;
}

export async function setDbGeneration(tx: PgQ, generation: string, now: number): Promise<void> {
  await tx.insert(settings).values({ key: GENERATION_KEY, value: generation, updatedAt: now }).onConflictDoUpdate({ target: settings.key, set: { value: generation, updatedAt: now } });
}

export async function clearReconcile(tx: PgQ): Promise<void> {
  await tx.delete(reconcileChains);
  await tx.delete(reconcileAddresses);
}

export async function scanCursors(tx: PgQ): Promise<Map<string, number | null>> {
  return new Map((await tx.select().from(chainCursors)).map((c) => [c.chain, c.blockNumber]));
}

export async function insertReconcileChain(tx: PgQ, row: typeof reconcileChains.$inferInsert): Promise<void> {
  await tx.insert(reconcileChains).values(row);
}

export async function reconcileChain(db: PgQ, chain: string): Promise<ReconcileChainRow | undefined> {
  return await firstRow(db.select().from(reconcileChains).where(eq(reconcileChains.chain, chain)));
}

export async function gapPending(db: PgQ, chain: string): Promise<ReconcileChainRow | undefined> {
  return await firstRow(db.select().from(reconcileChains).where(and(eq(reconcileChains.chain, chain), isNull(reconcileChains.gapWatchedAt))));
}

export async function markGapWatched(tx: PgQ, chain: string, now: number): Promise<void> {
  await tx.update(reconcileChains).set({ gapWatchedAt: now }).where(eq(reconcileChains.chain, chain));
}

export async function reconcileAddress(db: PgQ, chain: string, address: string): Promise<typeof reconcileAddresses.$inferSelect | undefined> {
  return await firstRow(db.select().from(reconcileAddresses).where(and(eq(reconcileAddresses.chain, chain), eq(reconcileAddresses.address, address))));
}

export async function knownTx(db: PgQ, txHash: string): Promise<boolean> {
  const h = txHash.toLowerCase();
  const rows = (await db.execute(sql`SELECT 1 AS one FROM payout_orders WHERE lower(tx_hash) = ${h}
       UNION ALL SELECT 1 FROM gas_topups WHERE lower(tx_hash) = ${h}
       UNION ALL SELECT 1 FROM payout_tx_attempts WHERE lower(tx_hash) = ${h}
       UNION ALL SELECT 1 FROM gas_topup_attempts WHERE lower(tx_hash) = ${h}
       UNION ALL SELECT 1 FROM sol_token_accounts WHERE lower(tx_hash) = ${h} LIMIT 1`)) as unknown as unknown[];
  return rows.length > 0;
}

export async function recordCheck(
  tx: PgQ,
  o: { chain: string; address: string; generation: string; now: number; found: Omit<typeof unrecordedOutgoing.$inferInsert, "chain" | "address" | "generation" | "foundAt">[] },
): Promise<void> {
  for (const t of o.found) await tx.insert(unrecordedOutgoing).values({ ...t, chain: o.chain, address: o.address, generation: o.generation, foundAt: o.now });
  const state = o.found.length ? "held" : "clear";
  await tx
    .insert(reconcileAddresses)
    .values({ chain: o.chain, address: o.address, generation: o.generation, state, checkedAt: o.now })
    .onConflictDoUpdate({ target: [reconcileAddresses.chain, reconcileAddresses.address], set: { generation: o.generation, state, checkedAt: o.now, acknowledgedBy: null, acknowledgedAt: null } });
}

const openOf = (chain: string, address: string) => and(eq(unrecordedOutgoing.chain, chain), eq(unrecordedOutgoing.address, address), isNull(unrecordedOutgoing.acknowledgedAt));

export async function openCount(db: PgQ, chain: string, address: string): Promise<number> {
  return Number((await firstRow(db.select({ n: count() }).from(unrecordedOutgoing).where(openOf(chain, address))))?.n ?? 0);
}

export async function openUnrecorded(db: PgQ, limit = 500): Promise<UnrecordedRow[]> {
  return await db.select().from(unrecordedOutgoing).where(isNull(unrecordedOutgoing.acknowledgedAt)).orderBy(desc(unrecordedOutgoing.id)).limit(limit);
}

export async function openFrom(tx: PgQ, chain: string, address: string): Promise<UnrecordedRow[]> {
  return await tx.select().from(unrecordedOutgoing).where(openOf(chain, address));
}

export async function acknowledge(tx: PgQ, chain: string, address: string, by: string, now: number): Promise<void> {
  await tx.update(unrecordedOutgoing).set({ acknowledgedBy: by, acknowledgedAt: now }).where(openOf(chain, address));
  await tx
    .update(reconcileAddresses)
    .set({ state: "acknowledged", acknowledgedBy: by, acknowledgedAt: now })
    .where(and(eq(reconcileAddresses.chain, chain), eq(reconcileAddresses.address, address)));
}
