// treasury/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle):
// batches of payouts and collection (settings, runs, legs). A batch and a collection run share the
// columns these statements use, so one set of statements serves both, as on SQLite.
import { and, asc, desc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { firstRow, type PgQ } from "../db/engine";
import { collectionLegs, collectionRuns, collectionSettings, payoutBatches, payoutBatchRows, payoutOrders } from "../db/schema-pg";
import type { BatchLine, BatchRow, CollectionLeg, CollectionRun, CollectionSetting } from "./store";

type PayoutOrderRow = typeof payoutOrders.$inferSelect;

function runStatements<T extends typeof payoutBatches | typeof collectionRuns>(table: T) {
  type Row = T["$inferSelect"];
  const t = table as typeof payoutBatches;
  return {
    byId: async (db: PgQ, id: string, merchantId?: number): Promise<Row | undefined> =>
      (await firstRow(db.select().from(t).where(merchantId === undefined ? eq(t.id, id) : and(eq(t.id, id), eq(t.merchantId, merchantId))))) as Row | undefined,
    list: async (db: PgQ, merchantId: number, limit = 50): Promise<Row[]> => (await db.select().from(t).where(eq(t.merchantId, merchantId)).orderBy(desc(t.createdAt)).limit(limit)) as Row[],
    patch: async (tx: PgQ, id: string, set: Partial<Omit<Row, "id">>): Promise<Row> =>
      (await firstRow(tx.update(t).set(set as Partial<BatchRow>).where(eq(t.id, id)).returning())) as Row,
    finishRunning: async (db: PgQ, id: string, now: number): Promise<void> =>
      void (await db.update(t).set({ status: "done", finishedAt: now, updatedAt: now }).where(and(eq(t.id, id), eq(t.status, "running")))),
    runningIds: async (db: PgQ): Promise<string[]> => (await db.select({ id: t.id }).from(t).where(eq(t.status, "running"))).map((r) => r.id),
  };
}

const batches = runStatements(payoutBatches);
const runs = runStatements(collectionRuns);

// Batches

export async function batchById(db: PgQ, id: string, merchantId?: number): Promise<BatchRow | undefined> {
  return await batches.byId(db, id, merchantId);
}

export async function listBatches(db: PgQ, merchantId: number, limit = 50): Promise<BatchRow[]> {
  return await batches.list(db, merchantId, limit);
}

export async function patchBatch(tx: PgQ, id: string, set: Partial<Omit<BatchRow, "id">>): Promise<BatchRow> {
  return await batches.patch(tx, id, set);
}

export async function finishRunningBatch(tx: PgQ, id: string, now: number): Promise<void> {
  await batches.finishRunning(tx, id, now);
}

export async function runningBatchIds(db: PgQ): Promise<string[]> {
  return await batches.runningIds(db);
}

export async function insertBatch(tx: PgQ, values: typeof payoutBatches.$inferInsert): Promise<BatchRow> {
  return (await firstRow(tx.insert(payoutBatches).values(values).returning()))!;
}

export async function insertBatchLine(tx: PgQ, values: typeof payoutBatchRows.$inferInsert): Promise<void> {
  await tx.insert(payoutBatchRows).values(values);
}

export async function batchLines(db: PgQ, batchId: string, opts: { state?: BatchLine["state"][] } = {}): Promise<BatchLine[]> {
  const where = [eq(payoutBatchRows.batchId, batchId)];
  if (opts.state) where.push(inArray(payoutBatchRows.state, opts.state));
  return await db.select().from(payoutBatchRows).where(and(...where)).orderBy(asc(payoutBatchRows.rowNo));
}

async function itemsWithOrders<I extends typeof payoutBatchRows | typeof collectionLegs>(db: PgQ, items: I, parent: PgColumn, no: PgColumn, id: string) {
  const t = items as typeof payoutBatchRows;
  return (await db.select({ item: t, order: payoutOrders }).from(t).leftJoin(payoutOrders, eq(payoutOrders.id, t.payoutOrderId)).where(eq(parent, id)).orderBy(asc(no))) as {
    item: I["$inferSelect"];
    order: PayoutOrderRow | null;
  }[];
}

export async function batchLinesWithOrders(db: PgQ, batchId: string): Promise<{ line: BatchLine; order: PayoutOrderRow | null }[]> {
  return (await itemsWithOrders(db, payoutBatchRows, payoutBatchRows.batchId, payoutBatchRows.rowNo, batchId)).map(({ item, order }) => ({ line: item, order }));
}

export async function patchBatchLine(tx: PgQ, batchId: string, rowNo: number, set: Partial<BatchLine>): Promise<void> {
  await tx.update(payoutBatchRows).set(set).where(and(eq(payoutBatchRows.batchId, batchId), eq(payoutBatchRows.rowNo, rowNo)));
}

// Collection

export async function runById(db: PgQ, id: string, merchantId?: number): Promise<CollectionRun | undefined> {
  return await runs.byId(db, id, merchantId);
}

export async function listRuns(db: PgQ, merchantId: number, limit = 50): Promise<CollectionRun[]> {
  return await runs.list(db, merchantId, limit);
}

export async function patchRun(tx: PgQ, id: string, set: Partial<Omit<CollectionRun, "id">>): Promise<CollectionRun> {
  return await runs.patch(tx, id, set);
}

export async function finishRunningRun(tx: PgQ, id: string, now: number): Promise<void> {
  await runs.finishRunning(tx, id, now);
}

export async function runningRunIds(db: PgQ): Promise<string[]> {
  return await runs.runningIds(db);
}

export async function collectionSettingsOf(db: PgQ, merchantId: number): Promise<CollectionSetting[]> {
  return await db.select().from(collectionSettings).where(eq(collectionSettings.merchantId, merchantId)).orderBy(asc(collectionSettings.chain), asc(collectionSettings.token));
}

export async function collectionSetting(db: PgQ, merchantId: number, chain: string, token: string): Promise<CollectionSetting | undefined> {
  return await firstRow(
    db
      .select()
      .from(collectionSettings)
      .where(and(eq(collectionSettings.merchantId, merchantId), eq(collectionSettings.chain, chain), eq(collectionSettings.token, token))),
  );
}

export async function upsertCollectionSetting(tx: PgQ, row: typeof collectionSettings.$inferInsert): Promise<CollectionSetting> {
  return (await firstRow(
    tx
      .insert(collectionSettings)
      .values(row)
      .onConflictDoUpdate({ target: [collectionSettings.merchantId, collectionSettings.chain, collectionSettings.token], set: row })
      .returning(),
  ))!;
}

export async function scheduledCollectionSettings(db: PgQ): Promise<CollectionSetting[]> {
  return await db.select().from(collectionSettings).where(isNotNull(collectionSettings.schedule));
}

export async function markScheduled(db: PgQ, s: Pick<CollectionSetting, "merchantId" | "chain" | "token">, now: number): Promise<void> {
  await db
    .update(collectionSettings)
    .set({ lastScheduledAt: now })
    .where(and(eq(collectionSettings.merchantId, s.merchantId), eq(collectionSettings.chain, s.chain), eq(collectionSettings.token, s.token)));
}

export async function insertRun(tx: PgQ, values: typeof collectionRuns.$inferInsert): Promise<CollectionRun> {
  return (await firstRow(tx.insert(collectionRuns).values(values).returning()))!;
}

export async function insertLeg(tx: PgQ, values: typeof collectionLegs.$inferInsert): Promise<void> {
  await tx.insert(collectionLegs).values(values);
}

export async function runLegs(db: PgQ, runId: string): Promise<{ leg: CollectionLeg; order: PayoutOrderRow | null }[]> {
  return (await itemsWithOrders(db, collectionLegs, collectionLegs.runId, collectionLegs.legNo, runId)).map(({ item, order }) => ({ leg: item, order }));
}

export async function plannedLegs(db: PgQ, runId: string): Promise<CollectionLeg[]> {
  return await db.select().from(collectionLegs).where(and(eq(collectionLegs.runId, runId), eq(collectionLegs.state, "planned"))).orderBy(asc(collectionLegs.legNo));
}

export async function patchLeg(tx: PgQ, runId: string, legNo: number, set: Partial<CollectionLeg>): Promise<void> {
  await tx.update(collectionLegs).set(set).where(and(eq(collectionLegs.runId, runId), eq(collectionLegs.legNo, legNo)));
}

export async function confirmedLegAmounts(db: PgQ, runId: string): Promise<string[]> {
  const rows = await db
    .select({ amount: payoutOrders.amount })
    .from(collectionLegs)
    .innerJoin(payoutOrders, eq(payoutOrders.id, collectionLegs.payoutOrderId))
    .where(and(eq(collectionLegs.runId, runId), eq(payoutOrders.status, "confirmed")));
  return rows.map((r) => r.amount);
}

// Progress

const count = sql<number>`count(*)`.mapWith(Number);

export async function batchLineCounts(db: PgQ, batchId: string): Promise<Record<string, number>> {
  const rows = await db.select({ state: payoutBatchRows.state, n: count }).from(payoutBatchRows).where(eq(payoutBatchRows.batchId, batchId)).groupBy(payoutBatchRows.state);
  return Object.fromEntries(rows.map((r) => [r.state, r.n])) as Record<string, number>;
}

export async function batchOrderCounts(db: PgQ, batchId: string): Promise<{ status: PayoutOrderRow["status"]; n: number }[]> {
  return await db
    .select({ status: payoutOrders.status, n: count })
    .from(payoutBatchRows)
    .innerJoin(payoutOrders, eq(payoutOrders.id, payoutBatchRows.payoutOrderId))
    .where(eq(payoutBatchRows.batchId, batchId))
    .groupBy(payoutOrders.status);
}

export async function legStates(db: PgQ, runId: string): Promise<{ state: CollectionLeg["state"]; status: PayoutOrderRow["status"] | null }[]> {
  return await db
    .select({ state: collectionLegs.state, status: payoutOrders.status })
    .from(collectionLegs)
    .leftJoin(payoutOrders, eq(payoutOrders.id, collectionLegs.payoutOrderId))
    .where(eq(collectionLegs.runId, runId));
}
