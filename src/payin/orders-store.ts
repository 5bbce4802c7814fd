// Pay-in orders (payin_orders): the hand-tuned statements of creation and matching, named by what
// they do (docs/architecture.md "Data access"). Each is raw SQL built once per connection with
// `prepared` (db/client.ts), with the INDEXED BY and status lists the partial indexes spell
// (state.ts statusSql); src/db/query-plans.test.ts and the engine plan tests
// (testing/engine-queries.ts) check the SQL constants below stay seeks. The ordinary reads and
// writes use drizzle's builder. Transfers are the watcher's (watcher/transfers-store.ts).
import { and, desc, eq, or, sql } from "drizzle-orm";
import { type DbOrTx, prepared, writing, rowColumns, type Tx, updateById, updateByIdIf } from "../db/client";
import { payinOrders } from "../db/schema";
import { statusTerm } from "../db/status-sql";
import { TRANSFER_PENDING } from "../watcher/state";
import { showTransferConfirmations } from "../watcher/transfers-store";
import { AWAITING_PAYMENT, OPEN_STATUSES, SETTLING_STATUSES, statusSql } from "./state";
import type { PayinOrderRow } from "./views";
import type { NewCallbackRow } from "../callbacks/store";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./orders-store.pg")>(() => require("./orders-store.pg"));

/**
 * The merchant's first pool address (by derivation index) where this amount is
 * not open: the pool in addresses_merchant's order (merchant, chain, kind,
 * derivation_index), per address one probe of payin_open_amount (waiting orders,
 * unique) and one of payin_settling_amount (detected, confirming): open orders
 * only, so a round amount repeated a million times costs what a new one does.
 * No ORDER BY: in bun's SQLite an ORDER BY cost ~10 µs per create even when
 * this index satisfied it (scripts/bench-inproc.ts); INDEXED BY keeps the scan
 * in index order.
 */
export const FREE_SHARED_ADDRESS = `SELECT a.id, a.address FROM addresses a INDEXED BY addresses_merchant
  WHERE a.merchant_id = ?1 AND a.chain = ?2 AND a.kind = 'shared' AND a.deleted_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM payin_orders p INDEXED BY payin_open_amount
                    WHERE p.address_id = a.id AND p.token = ?3 AND p.amount = ?4 AND p.mode = 'shared' AND ${statusSql("p.status", AWAITING_PAYMENT)})
    AND NOT EXISTS (SELECT 1 FROM payin_orders p INDEXED BY payin_settling_amount
                    WHERE p.address_id = a.id AND p.token = ?3 AND p.amount = ?4 AND p.mode = 'shared' AND ${statusSql("p.status", SETTLING_STATUSES)})
  LIMIT 1`;

export async function freeSharedAddress(tx: Tx, merchantId: number, chain: string, token: string, units: bigint): Promise<{ id: string; address: string } | undefined> {
  if (isPg(tx)) return await pg.freeSharedAddress(pgOf(tx), merchantId, chain, token, units);
  return prepared(tx, "freeSharedAddress", (d) => d.$client.prepare<{ id: string; address: string }, [number, string, string, string]>(FREE_SHARED_ADDRESS)).get(
    merchantId, chain, token, units.toString(),
  ) ?? undefined;
}

/**
 * PostgreSQL: the free pool address, the order and its callback row in one statement
 * (orders-store.pg.ts insertSharedPayinWithCallback); undefined when nothing was written. Not on
 * SQLite (in-process statements cost no round trip): the caller runs freeSharedAddress,
 * insertSharedPayin and the outbox there.
 */
export async function insertSharedPayinWithCallback(tx: Tx, row: PayinOrderRow, units: bigint, cb: NewCallbackRow, now: number): Promise<{ id: number; addressId: string; address: string; callback: boolean } | undefined> {
  if (isPg(tx)) return await pg.insertSharedPayinWithCallback(pgOf(tx), row, units, cb, now);
  throw new Error("insertSharedPayinWithCallback is PostgreSQL's (SQLite creates step by step)");
}

/**
 * A new shared-address order, unless the merchant already has one with this merchantOrderNo (the
 * idempotency check is the insert itself, ON CONFLICT on payin_merchant_order): its new id, or null.
 * Plain bun:sqlite statement, no RETURNING: the row is what was written (the other columns start
 * NULL, confirmations 0), its id is the new rowid.
 */
export async function insertSharedPayin(tx: Tx, row: PayinOrderRow, now: number): Promise<number | null> {
  if (isPg(tx)) return await pg.insertSharedPayin(pgOf(tx), row, now);
  const insert = prepared(writing(tx), "insertSharedPayin", (d) =>
    d.$client.prepare(
      `INSERT INTO payin_orders (order_no, merchant_id, merchant_order_no, mode, chain, token, decimals, amount, address_id, address,
                                 notify_url, redirect_url, api_key_id, status, checkout_token, expire_at, created_at, updated_at)
       VALUES (?, ?, ?, 'shared', ?, ?, ?, ?, ?, ?, ?, ?, ?, 'waiting_payment', ?, ?, ?, ?)
       ON CONFLICT (merchant_id, merchant_order_no) DO NOTHING`,
    ),
  );
  const res = insert.run(
    row.orderNo, row.merchantId, row.merchantOrderNo, row.chain, row.token, row.decimals, row.amount, row.addressId, row.address,
    row.notifyUrl, row.redirectUrl, row.apiKeyId, row.checkoutToken, row.expireAt, now, now,
  );
  return res.changes === 0 ? null : Number(res.lastInsertRowid);
}

/** How many pay-in orders an invoice has had (the next one's attempt number is this plus one). */
export async function invoicePayinCount(tx: Tx, invoiceId: number): Promise<number> {
  if (isPg(tx)) return await pg.invoicePayinCount(pgOf(tx), invoiceId);
  return tx.$client.query<{ n: number }, [number]>("SELECT count(*) AS n FROM payin_orders WHERE invoice_id = ?").get(invoiceId)!.n;
}

// The watcher's queries read open and recent orders only (issue 23): a round amount paid
// on a pool address for the millionth time costs what the first did. Each returns ids,
// read back through orderById; src/db/query-plans.test.ts checks they stay seeks.

/** Unpaid orders of this address, token and amount that a transfer may pay: the waiting one
 * (payin_open_amount) and those expired within the late window (payin_expired_unpaid). */
export const MATCH_CANDIDATES = `SELECT id FROM payin_orders INDEXED BY payin_open_amount
  WHERE address_id = ?1 AND token = ?2 AND amount = ?3 AND mode = 'shared' AND status = 'waiting_payment' AND transfer_id IS NULL AND created_at <= ?4
  UNION ALL
  SELECT id FROM payin_orders INDEXED BY payin_expired_unpaid
  WHERE address_id = ?1 AND token = ?2 AND amount = ?3 AND expire_at >= ?5 AND mode = 'shared' AND status = 'expired' AND transfer_id IS NULL AND created_at <= ?4`;

/** Is there an unpaid order of this amount that expired before the late window? (the unmatched reason only) */
export const EXPIRED_BEFORE_WINDOW = `SELECT 1 FROM payin_orders INDEXED BY payin_expired_unpaid
  WHERE address_id = ?1 AND token = ?2 AND amount = ?3 AND expire_at < ?5 AND mode = 'shared' AND status = 'expired' AND transfer_id IS NULL AND created_at <= ?4
  LIMIT 1`;

/** Open orders of the address and token (any amount) whose window covers the block time, at most 2:
 * waiting (payin_open_amount), being confirmed (payin_settling_amount), expired since the block (payin_status). */
export const COVERING_ORDERS = `SELECT id FROM (
    SELECT id FROM payin_orders INDEXED BY payin_open_amount
    WHERE address_id = ?1 AND token = ?2 AND mode = 'shared' AND status = 'waiting_payment' AND created_at <= ?3 AND expire_at >= ?4
    UNION ALL
    SELECT id FROM payin_orders INDEXED BY payin_settling_amount
    WHERE address_id = ?1 AND token = ?2 AND mode = 'shared' AND status IN ('detected', 'confirming') AND created_at <= ?3 AND expire_at >= ?4
    UNION ALL
    SELECT id FROM payin_orders INDEXED BY payin_status
    WHERE status = 'expired' AND expire_at >= ?4 AND address_id = ?1 AND token = ?2 AND mode = 'shared' AND created_at <= ?3
  ) LIMIT 2`;

/** What the matching queries ask of a transfer: where it went, what, how much. */
export interface MatchKey {
  addressId: string;
  token: string;
  amount: string;
}

/** Ids of the unpaid orders created by `createdBy` that may take the transfer (MATCH_CANDIDATES), expired ones back to `expiredSince`. */
export async function matchCandidateIds(tx: Tx, t: MatchKey, createdBy: number, expiredSince: number): Promise<number[]> {
  if (isPg(tx)) return await pg.matchCandidateIds(pgOf(tx), t, createdBy, expiredSince);
  return prepared(tx, "matchCandidates", (d) => d.$client.prepare<{ id: number }, [string, string, string, number, number]>(MATCH_CANDIDATES))
    .all(t.addressId, t.token, t.amount, createdBy, expiredSince)
    .map((r) => r.id);
}

/** Whether an unpaid order of this amount expired before `expiredSince` (EXPIRED_BEFORE_WINDOW). */
export async function expiredBefore(tx: Tx, t: MatchKey, createdBy: number, expiredSince: number): Promise<boolean> {
  if (isPg(tx)) return await pg.expiredBefore(pgOf(tx), t, createdBy, expiredSince);
  return !!prepared(tx, "expiredBeforeWindow", (d) => d.$client.prepare<{ 1: number }, [string, string, string, number, number]>(EXPIRED_BEFORE_WINDOW)).get(
    t.addressId, t.token, t.amount, createdBy, expiredSince,
  );
}

/** Ids of at most two open orders of the address and token whose window covers `at` (COVERING_ORDERS). */
export async function coveringOrderIds(tx: Tx, addressId: string, token: string, createdBy: number, at: number): Promise<number[]> {
  if (isPg(tx)) return await pg.coveringOrderIds(pgOf(tx), addressId, token, createdBy, at);
  return prepared(tx, "coveringOrders", (d) => d.$client.prepare<{ id: number }, [string, string, number, number]>(COVERING_ORDERS))
    .all(addressId, token, createdBy, at)
    .map((r) => r.id);
}

// The displayed confirmation counts of the orders of pending transfers; the transfer status comes
// from watcher/state.ts (orders-store.test.ts holds the text).
const TRANSFER_IS_PENDING = statusTerm(TRANSFER_PENDING);
export const SHOW_ORDER_CONFS = `UPDATE payin_orders SET confirmations = (SELECT t.confirmations FROM transfers t WHERE t.id = payin_orders.transfer_id), updated_at = ?2
       WHERE id IN (SELECT payin_order_id FROM transfers WHERE chain = ?1 AND status ${TRANSFER_IS_PENDING} AND block_number >= 0 AND payin_order_id IS NOT NULL)
         AND confirmations <> (SELECT t.confirmations FROM transfers t WHERE t.id = payin_orders.transfer_id AND t.status ${TRANSFER_IS_PENDING})`;

/** The displayed confirmation counts of a chain's pending transfers and their orders: two set-based statements. */
export async function showConfirmations(tx: Tx, chain: string, latest: number, now: number): Promise<void> {
  if (isPg(tx)) return await pg.showConfirmations(pgOf(tx), chain, latest, now);
  await showTransferConfirmations(tx, chain, latest);
  prepared(writing(tx), "displayOrderConfs", (d) => d.$client.prepare(SHOW_ORDER_CONFS)).run(chain, now);
}

/** An order by id (the watcher reads its candidates back through this). */
export async function orderById(tx: DbOrTx, id: number): Promise<PayinOrderRow | undefined> {
  if (isPg(tx)) return await pg.orderById(pgOf(tx), id);
  return prepared(tx, "payinById", (d) => d.select().from(payinOrders).where(eq(payinOrders.id, sql.placeholder("id"))).prepare()).get({ id });
}

/** The merchant's order with this merchantOrderNo (the idempotent retry of a create). */
export async function orderByMerchantOrderNo(tx: DbOrTx, merchantId: number, merchantOrderNo: string): Promise<PayinOrderRow | undefined> {
  if (isPg(tx)) return await pg.orderByMerchantOrderNo(pgOf(tx), merchantId, merchantOrderNo);
  return prepared(tx, "payinByMerchantOrderNo", (d) =>
    d.select().from(payinOrders).where(and(eq(payinOrders.merchantId, sql.placeholder("m")), eq(payinOrders.merchantOrderNo, sql.placeholder("n")))).prepare(),
  ).get({ m: merchantId, n: merchantOrderNo });
}

/** The merchant's order with this orderNo (the signed GET: a plain statement, no drizzle row mapping). */
export async function orderByOrderNo(db: DbOrTx, merchantId: number, orderNo: string): Promise<PayinOrderRow | undefined> {
  if (isPg(db)) return await pg.orderByOrderNo(pgOf(db), merchantId, orderNo);
  return prepared(db, "payinByOrderNo", (d) =>
    d.$client.prepare<PayinOrderRow, [string, number]>(`SELECT ${rowColumns(payinOrders)} FROM payin_orders WHERE order_no = ? AND merchant_id = ?`),
  ).get(orderNo, merchantId) ?? undefined;
}

/** Whether an orderNo is taken, as an orderNo or as this merchant's merchantOrderNo. */
export async function orderNoTaken(tx: DbOrTx, merchantId: number, no: string): Promise<boolean> {
  if (isPg(tx)) return await pg.orderNoTaken(pgOf(tx), merchantId, no);
  return !!tx
    .select({ id: payinOrders.id })
    .from(payinOrders)
    .where(or(eq(payinOrders.orderNo, no), and(eq(payinOrders.merchantId, merchantId), eq(payinOrders.merchantOrderNo, no))))
    .get();
}

/** Writes `set` on the order and returns the new row (a patch that changes no status). */
export async function updateOrder(tx: Tx, id: number, set: Partial<PayinOrderRow>): Promise<PayinOrderRow | undefined> {
  if (isPg(tx)) return await pg.updateOrder(pgOf(tx), id, set);
  return await updateById<PayinOrderRow>(tx, payinOrders, id, set);
}

/** applyPayinEvent's write: `set` on the order if it is still in `expected`; undefined when another writer moved it first. */
export async function updateOrderIf(tx: Tx, id: number, expected: string, set: Partial<PayinOrderRow>): Promise<PayinOrderRow | undefined> {
  if (isPg(tx)) return await pg.updateOrderIf(pgOf(tx), id, expected, set);
  return await updateByIdIf<PayinOrderRow>(tx, payinOrders, id, expected, set);
}

/** Writes `set` on the order, no status change (a payment kept on an expired or frozen order). */
export async function patchOrder(tx: Tx, id: number, set: Partial<PayinOrderRow>): Promise<void> {
  if (isPg(tx)) return await pg.patchOrder(pgOf(tx), id, set);
  tx.update(payinOrders).set(set).where(eq(payinOrders.id, id)).run();
}

/** A new order, any mode and starting status (exclusive deposits start at detected). */
export async function insertOrder(tx: Tx, values: typeof payinOrders.$inferInsert): Promise<PayinOrderRow> {
  if (isPg(tx)) return await pg.insertOrder(pgOf(tx), values);
  return tx.insert(payinOrders).values(values).returning().get();
}

/**
 * The expiry job's seek (every second): waiting orders due to expire, soonest first, through
 * payin_status (status, expire_at). Built once per connection (drizzle compiled it every second);
 * the status is a literal and the limit `+?`: with bare parameters there (the equality the ORDER
 * BY rests on, LIMIT) bun's SQLite prepared it again on every run (db/client.ts `prepared`).
 */
export const DUE_TO_EXPIRE = `SELECT ${rowColumns(payinOrders)} FROM payin_orders INDEXED BY payin_status
  WHERE status = 'waiting_payment' AND expire_at < ? ORDER BY expire_at LIMIT +?`;

/** Waiting orders whose expireAt is before `now`, soonest first. */
export async function dueOrders(db: DbOrTx, now: number, limit: number): Promise<PayinOrderRow[]> {
  if (isPg(db)) return await pg.dueOrders(pgOf(db), now, limit);
  return prepared(db, "dueToExpire", (d) => d.$client.prepare<PayinOrderRow, [number, number]>(DUE_TO_EXPIRE)).all(now, limit);
}

/** A binding's orders, newest first. */
export async function ordersOfBinding(db: DbOrTx, bindingId: string, limit: number): Promise<PayinOrderRow[]> {
  if (isPg(db)) return await pg.ordersOfBinding(pgOf(db), bindingId, limit);
  return db.select().from(payinOrders).where(eq(payinOrders.bindingId, bindingId)).orderBy(desc(payinOrders.createdAt), desc(payinOrders.id)).limit(limit).all();
}

/** What a binding's statistics add up: each order's status, paid amount and times. */
export async function bindingOrderFacts(db: DbOrTx, bindingId: string) {
  if (isPg(db)) return await pg.bindingOrderFacts(pgOf(db), bindingId);
  return db
    .select({ status: payinOrders.status, paid: payinOrders.paidAmount, createdAt: payinOrders.createdAt, completedAt: payinOrders.completedAt })
    .from(payinOrders)
    .where(eq(payinOrders.bindingId, bindingId))
    .all();
}

/** Any merchant's order with this orderNo (operator actions, the hold text). */
export async function orderWithNo(db: DbOrTx, orderNo: string): Promise<PayinOrderRow | undefined> {
  if (isPg(db)) return await pg.orderWithNo(pgOf(db), orderNo);
  return db.select().from(payinOrders).where(eq(payinOrders.orderNo, orderNo)).get();
}

/** The pay-in behind a checkout link (the hosted page, compat/service.ts). */
export async function payinByCheckoutToken(db: DbOrTx, token: string): Promise<PayinOrderRow | undefined> {
  if (isPg(db)) return await pg.payinByCheckoutToken(pgOf(db), token);
  return db.select().from(payinOrders).where(eq(payinOrders.checkoutToken, token)).get();
}

/** The pay-in of the network an invoice's payer chose last, if any (invoices rank below pay-ins: its callers ask here). */
export async function currentPayin(db: DbOrTx, inv: { payinOrderId: number | null }): Promise<PayinOrderRow | null> {
  if (isPg(db)) return await pg.currentPayin(pgOf(db), inv);
  if (inv.payinOrderId === null) return null;
  return db.select().from(payinOrders).where(eq(payinOrders.id, inv.payinOrderId)).get() ?? null;
}

/**
 * What the sweep asks about on a chain (DESIGN 25): the addresses of open orders (from the
 * oldest open order's creation) and the live exclusive addresses created or paid since
 * `windowStart` (from then). One row per address, `since` in ms.
 */
export const SWEEP_TARGETS = `
  SELECT p.address AS address, p.created_at AS since FROM payin_orders p INDEXED BY payin_list_status
   WHERE p.chain = ?1 AND ${statusSql("p.status", OPEN_STATUSES)}
  UNION ALL
  SELECT a.address, ?2 FROM addresses a
   WHERE a.chain = ?1 AND a.kind = 'exclusive' AND a.deleted_at IS NULL
     AND (a.created_at >= ?2 OR EXISTS (SELECT 1 FROM transfers t WHERE t.address_id = a.id AND t.seen_at >= ?2))`;

export async function sweepTargets(db: DbOrTx, chain: string, windowStart: number): Promise<Array<{ address: string; since: number }>> {
  if (isPg(db)) return await pg.sweepTargets(pgOf(db), chain, windowStart);
  const rows = prepared(db, "sweepTargets", (d) => d.$client.prepare<{ address: string; since: number }, [string, number]>(SWEEP_TARGETS)).all(chain, windowStart);
  const earliest = new Map<string, number>();
  for (const r of rows) earliest.set(r.address, Math.min(r.since, earliest.get(r.address) ?? r.since));
  return [...earliest].map(([address, since]) => ({ address, since }));
}
