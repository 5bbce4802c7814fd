// The treasury's storage: batches of payouts (payout_batches, payout_batch_rows) and collection
// (collection_settings, collection_runs, collection_legs), every statement named by what it does
// (docs/architecture.md "Data access"). Drizzle's builder; the per-second jobs' reads prepared once.
import { and, asc, desc, eq, getTableName, inArray, isNotNull, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { prepared, type Db, type Tx } from "../db/client";
import { collectionLegs, collectionRuns, collectionSettings, payoutBatches, payoutBatchRows, payoutOrders } from "../db/schema";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

export type BatchRow = typeof payoutBatches.$inferSelect;
export type BatchLine = typeof payoutBatchRows.$inferSelect;
export type CollectionSetting = typeof collectionSettings.$inferSelect;
export type CollectionRun = typeof collectionRuns.$inferSelect;
export type CollectionLeg = typeof collectionLegs.$inferSelect;
type PayoutOrderRow = typeof payoutOrders.$inferSelect;

/**
 * A batch and a collection run are one workflow (treasury/runner.ts): their tables share the
 * columns these statements use (id, merchant_id, status, created_at, finished_at, updated_at), so
 * one set of statements serves both.
 */
function runStatements<T extends typeof payoutBatches | typeof collectionRuns>(table: T) {
  type Row = T["$inferSelect"];
  // The columns read here have the same names and types in both tables.
  const t = table as typeof payoutBatches;
  return {
    /** The run, of that merchant when one is given. */
    byId: async (db: Db, id: string, merchantId?: number): Promise<Row | undefined> =>
      db.select().from(t).where(merchantId === undefined ? eq(t.id, id) : and(eq(t.id, id), eq(t.merchantId, merchantId))).get() as Row | undefined,
    /** The merchant's newest runs. */
    list: async (db: Db, merchantId: number, limit = 50): Promise<Row[]> => db.select().from(t).where(eq(t.merchantId, merchantId)).orderBy(desc(t.createdAt)).limit(limit).all() as Row[],
    patch: async (tx: Tx, id: string, set: Partial<Omit<Row, "id">>): Promise<Row> => tx.update(t).set(set as Partial<BatchRow>).where(eq(t.id, id)).returning().get() as Row,
    /** A running run is done (a run in any other status is left as it is). */
    finishRunning: async (db: Tx, id: string, now: number): Promise<void> =>
      void db.update(t).set({ status: "done", finishedAt: now, updatedAt: now }).where(and(eq(t.id, id), eq(t.status, "running"))).run(),
    /** Prepared once per connection: the payout-batches and collections jobs ask every second. */
    runningIds: async (db: Db): Promise<string[]> =>
      prepared(db, `treasury:running:${getTableName(t)}`, (d) => d.select({ id: t.id }).from(t).where(eq(t.status, "running")).prepare())
        .all()
        .map((r) => r.id),
  };
}

const batches = runStatements(payoutBatches);
const runs = runStatements(collectionRuns);

// Batches

/** The batch, of that merchant when one is given. */
export async function batchById(db: Db, id: string, merchantId?: number): Promise<BatchRow | undefined> {
  if (isPg(db)) return await pg.batchById(pgOf(db), id, merchantId);
  return await batches.byId(db, id, merchantId);
}

/** The merchant's newest batches. */
export async function listBatches(db: Db, merchantId: number, limit = 50): Promise<BatchRow[]> {
  if (isPg(db)) return await pg.listBatches(pgOf(db), merchantId, limit);
  return await batches.list(db, merchantId, limit);
}

export async function patchBatch(tx: Tx, id: string, set: Partial<Omit<BatchRow, "id">>): Promise<BatchRow> {
  if (isPg(tx)) return await pg.patchBatch(pgOf(tx), id, set);
  return await batches.patch(tx, id, set);
}

/** A running batch is done (a batch in any other status is left as it is). */
export async function finishRunningBatch(tx: Tx, id: string, now: number): Promise<void> {
  if (isPg(tx)) return await pg.finishRunningBatch(pgOf(tx), id, now);
  await batches.finishRunning(tx, id, now);
}

export async function runningBatchIds(db: Db): Promise<string[]> {
  if (isPg(db)) return await pg.runningBatchIds(pgOf(db));
  return await batches.runningIds(db);
}

export async function insertBatch(tx: Tx, values: typeof payoutBatches.$inferInsert): Promise<BatchRow> {
  if (isPg(tx)) return await pg.insertBatch(pgOf(tx), values);
  return tx.insert(payoutBatches).values(values).returning().get();
}

export async function insertBatchLine(tx: Tx, values: typeof payoutBatchRows.$inferInsert): Promise<void> {
  if (isPg(tx)) return await pg.insertBatchLine(pgOf(tx), values);
  tx.insert(payoutBatchRows).values(values).run();
}

export async function batchLines(db: Db, batchId: string, opts: { state?: BatchLine["state"][] } = {}): Promise<BatchLine[]> {
  if (isPg(db)) return await pg.batchLines(pgOf(db), batchId, opts);
  const where = [eq(payoutBatchRows.batchId, batchId)];
  if (opts.state) where.push(inArray(payoutBatchRows.state, opts.state));
  return db.select().from(payoutBatchRows).where(and(...where)).orderBy(asc(payoutBatchRows.rowNo)).all();
}

/** A run's items (batch lines, collection legs) with the payout order each became, in item order. */
async function itemsWithOrders<I extends typeof payoutBatchRows | typeof collectionLegs>(db: Db, items: I, parent: SQLiteColumn, no: SQLiteColumn, id: string) {
  // Both item tables name the order they became payout_order_id.
  const t = items as typeof payoutBatchRows;
  return db.select({ item: t, order: payoutOrders }).from(t).leftJoin(payoutOrders, eq(payoutOrders.id, t.payoutOrderId)).where(eq(parent, id)).orderBy(asc(no)).all() as {
    item: I["$inferSelect"];
    order: typeof payoutOrders.$inferSelect | null;
  }[];
}

/** Every line of a batch with the payout order it became (the results CSV). */
export async function batchLinesWithOrders(db: Db, batchId: string): Promise<{ line: BatchLine; order: PayoutOrderRow | null }[]> {
  if (isPg(db)) return await pg.batchLinesWithOrders(pgOf(db), batchId);
  return (await itemsWithOrders(db, payoutBatchRows, payoutBatchRows.batchId, payoutBatchRows.rowNo, batchId)).map(({ item, order }) => ({ line: item, order }));
}

export async function patchBatchLine(tx: Tx, batchId: string, rowNo: number, set: Partial<BatchLine>): Promise<void> {
  if (isPg(tx)) return await pg.patchBatchLine(pgOf(tx), batchId, rowNo, set);
  tx.update(payoutBatchRows).set(set).where(and(eq(payoutBatchRows.batchId, batchId), eq(payoutBatchRows.rowNo, rowNo))).run();
}

// Collection

/** The collection run, of that merchant when one is given. */
export async function runById(db: Db, id: string, merchantId?: number): Promise<CollectionRun | undefined> {
  if (isPg(db)) return await pg.runById(pgOf(db), id, merchantId);
  return await runs.byId(db, id, merchantId);
}

/** The merchant's newest collection runs. */
export async function listRuns(db: Db, merchantId: number, limit = 50): Promise<CollectionRun[]> {
  if (isPg(db)) return await pg.listRuns(pgOf(db), merchantId, limit);
  return await runs.list(db, merchantId, limit);
}

export async function patchRun(tx: Tx, id: string, set: Partial<Omit<CollectionRun, "id">>): Promise<CollectionRun> {
  if (isPg(tx)) return await pg.patchRun(pgOf(tx), id, set);
  return await runs.patch(tx, id, set);
}

/** A running collection run is done (a run in any other status is left as it is). */
export async function finishRunningRun(tx: Tx, id: string, now: number): Promise<void> {
  if (isPg(tx)) return await pg.finishRunningRun(pgOf(tx), id, now);
  await runs.finishRunning(tx, id, now);
}

export async function runningRunIds(db: Db): Promise<string[]> {
  if (isPg(db)) return await pg.runningRunIds(pgOf(db));
  return await runs.runningIds(db);
}

export async function collectionSettingsOf(db: Db, merchantId: number): Promise<CollectionSetting[]> {
  if (isPg(db)) return await pg.collectionSettingsOf(pgOf(db), merchantId);
  return db.select().from(collectionSettings).where(eq(collectionSettings.merchantId, merchantId)).orderBy(asc(collectionSettings.chain), asc(collectionSettings.token)).all();
}

export async function collectionSetting(db: Db, merchantId: number, chain: string, token: string): Promise<CollectionSetting | undefined> {
  if (isPg(db)) return await pg.collectionSetting(pgOf(db), merchantId, chain, token);
  return db
    .select()
    .from(collectionSettings)
    .where(and(eq(collectionSettings.merchantId, merchantId), eq(collectionSettings.chain, chain), eq(collectionSettings.token, token)))
    .get();
}

/** Inserts or replaces the setting of the merchant's chain and token. */
export async function upsertCollectionSetting(tx: Tx, row: typeof collectionSettings.$inferInsert): Promise<CollectionSetting> {
  if (isPg(tx)) return await pg.upsertCollectionSetting(pgOf(tx), row);
  return tx
    .insert(collectionSettings)
    .values(row)
    .onConflictDoUpdate({ target: [collectionSettings.merchantId, collectionSettings.chain, collectionSettings.token], set: row })
    .returning()
    .get();
}

export async function scheduledCollectionSettings(db: Db): Promise<CollectionSetting[]> {
  if (isPg(db)) return await pg.scheduledCollectionSettings(pgOf(db));
  // Prepared once per connection: the collections job asks every second.
  return prepared(db, "treasury:scheduledCollections", (d) => d.select().from(collectionSettings).where(isNotNull(collectionSettings.schedule)).prepare()).all();
}

export async function markScheduled(db: Tx, s: Pick<CollectionSetting, "merchantId" | "chain" | "token">, now: number): Promise<void> {
  if (isPg(db)) return await pg.markScheduled(pgOf(db), s, now);
  db.update(collectionSettings)
    .set({ lastScheduledAt: now })
    .where(and(eq(collectionSettings.merchantId, s.merchantId), eq(collectionSettings.chain, s.chain), eq(collectionSettings.token, s.token)))
    .run();
}

export async function insertRun(tx: Tx, values: typeof collectionRuns.$inferInsert): Promise<CollectionRun> {
  if (isPg(tx)) return await pg.insertRun(pgOf(tx), values);
  return tx.insert(collectionRuns).values(values).returning().get();
}

export async function insertLeg(tx: Tx, values: typeof collectionLegs.$inferInsert): Promise<void> {
  if (isPg(tx)) return await pg.insertLeg(pgOf(tx), values);
  tx.insert(collectionLegs).values(values).run();
}

/** Every leg of a run with the payout order it became. */
export async function runLegs(db: Db, runId: string): Promise<{ leg: CollectionLeg; order: PayoutOrderRow | null }[]> {
  if (isPg(db)) return await pg.runLegs(pgOf(db), runId);
  return (await itemsWithOrders(db, collectionLegs, collectionLegs.runId, collectionLegs.legNo, runId)).map(({ item, order }) => ({ leg: item, order }));
}

export async function plannedLegs(db: Db, runId: string): Promise<CollectionLeg[]> {
  if (isPg(db)) return await pg.plannedLegs(pgOf(db), runId);
  return db.select().from(collectionLegs).where(and(eq(collectionLegs.runId, runId), eq(collectionLegs.state, "planned"))).orderBy(asc(collectionLegs.legNo)).all();
}

export async function patchLeg(tx: Tx, runId: string, legNo: number, set: Partial<CollectionLeg>): Promise<void> {
  if (isPg(tx)) return await pg.patchLeg(pgOf(tx), runId, legNo, set);
  tx.update(collectionLegs).set(set).where(and(eq(collectionLegs.runId, runId), eq(collectionLegs.legNo, legNo))).run();
}

/** Amounts (base units) of the run's legs whose payout is confirmed. */
export async function confirmedLegAmounts(db: Db, runId: string): Promise<string[]> {
  if (isPg(db)) return await pg.confirmedLegAmounts(pgOf(db), runId);
  return db
    .select({ amount: payoutOrders.amount })
    .from(collectionLegs)
    .innerJoin(payoutOrders, eq(payoutOrders.id, collectionLegs.payoutOrderId))
    .where(and(eq(collectionLegs.runId, runId), eq(payoutOrders.status, "confirmed")))
    .all()
    .map((r) => r.amount);
}

// Progress (treasury/progress.ts, the one view of both kinds of run)

/** A batch's lines counted by state. */
export async function batchLineCounts(db: Db, batchId: string): Promise<Record<string, number>> {
  if (isPg(db)) return await pg.batchLineCounts(pgOf(db), batchId);
  return Object.fromEntries(
    db
      .select({ state: payoutBatchRows.state, n: sql<number>`count(*)` })
      .from(payoutBatchRows)
      .where(eq(payoutBatchRows.batchId, batchId))
      .groupBy(payoutBatchRows.state)
      .all()
      .map((r) => [r.state, r.n]),
  ) as Record<string, number>;
}

/** A batch's payout orders counted by status. */
export async function batchOrderCounts(db: Db, batchId: string): Promise<{ status: PayoutOrderRow["status"]; n: number }[]> {
  if (isPg(db)) return await pg.batchOrderCounts(pgOf(db), batchId);
  return db
    .select({ status: payoutOrders.status, n: sql<number>`count(*)` })
    .from(payoutBatchRows)
    .innerJoin(payoutOrders, eq(payoutOrders.id, payoutBatchRows.payoutOrderId))
    .where(eq(payoutBatchRows.batchId, batchId))
    .groupBy(payoutOrders.status)
    .all();
}

/** Each leg of a run: its state and its payout's status (null: no order yet). */
export async function legStates(db: Db, runId: string): Promise<{ state: CollectionLeg["state"]; status: PayoutOrderRow["status"] | null }[]> {
  if (isPg(db)) return await pg.legStates(pgOf(db), runId);
  return db
    .select({ state: collectionLegs.state, status: payoutOrders.status })
    .from(collectionLegs)
    .leftJoin(payoutOrders, eq(payoutOrders.id, collectionLegs.payoutOrderId))
    .where(and(eq(collectionLegs.runId, runId)))
    .all();
}
