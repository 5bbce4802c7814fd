// The pay-in domain's storage: the hand-tuned statements of creation and matching, named by what
// they do (docs/architecture.md "Data access"). Each is raw SQL built once per connection with
// `prepared` (db/client.ts), with the INDEXED BY and status lists the partial indexes spell
// (state.ts statusSql); src/db/query-plans.test.ts and the engine plan tests
// (testing/engine-queries.ts) check the SQL constants below stay seeks. The ordinary reads and
// writes of orders, transfers and the deposit ledger use drizzle's builder (sections below).
import { and, asc, count, desc, eq, gte, inArray, isNotNull, isNull, lt, lte, ne, or, type SQL, sql } from "drizzle-orm";
import { type DbOrTx, prepared, rowColumns, type Tx, updateById, updateByIdIf } from "../db/client";
import { addresses, bindings, compatOrders, denyList, detectionTimes, ledgerEntries, merchants, payinOrders, transfers } from "../db/schema";
import { notStatusSql, statusTerm } from "../db/status-sql";
import { TRANSFER_PENDING, TRANSFER_REVERTED } from "../watcher/state";
import { AWAITING_PAYMENT, OPEN_STATUSES, SETTLING_STATUSES, statusSql } from "./state";
import { whyNotRefundable } from "./refundable";
import type { PayinOrderRow } from "./views";

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

export function freeSharedAddress(tx: Tx, merchantId: number, chain: string, token: string, units: bigint): { id: string; address: string } | undefined {
  return prepared(tx, "freeSharedAddress", (d) => d.$client.prepare<{ id: string; address: string }, [number, string, string, string]>(FREE_SHARED_ADDRESS)).get(
    merchantId, chain, token, units.toString(),
  ) ?? undefined;
}

/**
 * A new shared-address order, unless the merchant already has one with this merchantOrderNo (the
 * idempotency check is the insert itself, ON CONFLICT on payin_merchant_order): its new id, or null.
 * Plain bun:sqlite statement, no RETURNING: the row is what was written (the other columns start
 * NULL, confirmations 0), its id is the new rowid.
 */
export function insertSharedPayin(tx: Tx, row: PayinOrderRow, now: number): number | null {
  const insert = prepared(tx, "insertSharedPayin", (d) =>
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
export function invoicePayinCount(tx: Tx, invoiceId: number): number {
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
export function matchCandidateIds(tx: Tx, t: MatchKey, createdBy: number, expiredSince: number): number[] {
  return prepared(tx, "matchCandidates", (d) => d.$client.prepare<{ id: number }, [string, string, string, number, number]>(MATCH_CANDIDATES))
    .all(t.addressId, t.token, t.amount, createdBy, expiredSince)
    .map((r) => r.id);
}

/** Whether an unpaid order of this amount expired before `expiredSince` (EXPIRED_BEFORE_WINDOW). */
export function expiredBefore(tx: Tx, t: MatchKey, createdBy: number, expiredSince: number): boolean {
  return !!prepared(tx, "expiredBeforeWindow", (d) => d.$client.prepare<{ 1: number }, [string, string, string, number, number]>(EXPIRED_BEFORE_WINDOW)).get(
    t.addressId, t.token, t.amount, createdBy, expiredSince,
  );
}

/** Ids of at most two open orders of the address and token whose window covers `at` (COVERING_ORDERS). */
export function coveringOrderIds(tx: Tx, addressId: string, token: string, createdBy: number, at: number): number[] {
  return prepared(tx, "coveringOrders", (d) => d.$client.prepare<{ id: number }, [string, string, number, number]>(COVERING_ORDERS))
    .all(addressId, token, createdBy, at)
    .map((r) => r.id);
}

// The displayed confirmation counts; the transfer status comes from watcher/state.ts (store.test.ts holds the text).
const TRANSFER_IS_PENDING = statusTerm(TRANSFER_PENDING);
export const SHOW_TRANSFER_CONFS = `UPDATE transfers SET confirmations = ?1 - block_number + 1
       WHERE chain = ?2 AND status ${TRANSFER_IS_PENDING} AND block_number >= 0 AND block_number <= ?1 AND confirmations <> ?1 - block_number + 1`;
export const SHOW_ORDER_CONFS = `UPDATE payin_orders SET confirmations = (SELECT t.confirmations FROM transfers t WHERE t.id = payin_orders.transfer_id), updated_at = ?2
       WHERE id IN (SELECT payin_order_id FROM transfers WHERE chain = ?1 AND status ${TRANSFER_IS_PENDING} AND block_number >= 0 AND payin_order_id IS NOT NULL)
         AND confirmations <> (SELECT t.confirmations FROM transfers t WHERE t.id = payin_orders.transfer_id AND t.status ${TRANSFER_IS_PENDING})`;

/** The displayed confirmation counts of a chain's pending transfers and their orders: two set-based statements. */
export function showConfirmations(tx: Tx, chain: string, latest: number, now: number): void {
  prepared(tx, "displayTransferConfs", (d) => d.$client.prepare(SHOW_TRANSFER_CONFS)).run(latest, chain);
  prepared(tx, "displayOrderConfs", (d) => d.$client.prepare(SHOW_ORDER_CONFS)).run(chain, now);
}

// ---- Orders (payin/service.ts, payin/deposits.ts) ----

/** An order by id (the watcher reads its candidates back through this). */
export function orderById(tx: DbOrTx, id: number): PayinOrderRow | undefined {
  return prepared(tx, "payinById", (d) => d.select().from(payinOrders).where(eq(payinOrders.id, sql.placeholder("id"))).prepare()).get({ id });
}

/** The merchant's order with this merchantOrderNo (the idempotent retry of a create). */
export function orderByMerchantOrderNo(tx: DbOrTx, merchantId: number, merchantOrderNo: string): PayinOrderRow | undefined {
  return prepared(tx, "payinByMerchantOrderNo", (d) =>
    d.select().from(payinOrders).where(and(eq(payinOrders.merchantId, sql.placeholder("m")), eq(payinOrders.merchantOrderNo, sql.placeholder("n")))).prepare(),
  ).get({ m: merchantId, n: merchantOrderNo });
}

/** The merchant's order with this orderNo (the signed GET: a plain statement, no drizzle row mapping). */
export function orderByOrderNo(db: DbOrTx, merchantId: number, orderNo: string): PayinOrderRow | undefined {
  return prepared(db, "payinByOrderNo", (d) =>
    d.$client.prepare<PayinOrderRow, [string, number]>(`SELECT ${rowColumns(payinOrders)} FROM payin_orders WHERE order_no = ? AND merchant_id = ?`),
  ).get(orderNo, merchantId) ?? undefined;
}

/** Whether an orderNo is taken, as an orderNo or as this merchant's merchantOrderNo. */
export function orderNoTaken(tx: DbOrTx, merchantId: number, no: string): boolean {
  return !!tx
    .select({ id: payinOrders.id })
    .from(payinOrders)
    .where(or(eq(payinOrders.orderNo, no), and(eq(payinOrders.merchantId, merchantId), eq(payinOrders.merchantOrderNo, no))))
    .get();
}

/** Writes `set` on the order and returns the new row (a patch that changes no status). */
export function updateOrder(tx: Tx, id: number, set: Partial<PayinOrderRow>): PayinOrderRow | undefined {
  return updateById<PayinOrderRow>(tx, payinOrders, id, set);
}

/** applyPayinEvent's write: `set` on the order if it is still in `expected`; undefined when another writer moved it first. */
export function updateOrderIf(tx: Tx, id: number, expected: string, set: Partial<PayinOrderRow>): PayinOrderRow | undefined {
  return updateByIdIf<PayinOrderRow>(tx, payinOrders, id, expected, set);
}

/** Writes `set` on the order, no status change (a payment kept on an expired or frozen order). */
export function patchOrder(tx: Tx, id: number, set: Partial<PayinOrderRow>): void {
  tx.update(payinOrders).set(set).where(eq(payinOrders.id, id)).run();
}

/** A new order, any mode and starting status (exclusive deposits start at detected). */
export function insertOrder(tx: Tx, values: typeof payinOrders.$inferInsert): PayinOrderRow {
  return tx.insert(payinOrders).values(values).returning().get();
}

/** Waiting orders whose expireAt is before `now`, soonest first. */
export function dueOrders(db: DbOrTx, now: number, limit: number): PayinOrderRow[] {
  return db
    .select()
    .from(payinOrders)
    .where(and(eq(payinOrders.status, "waiting_payment"), lte(payinOrders.expireAt, now - 1)))
    .orderBy(asc(payinOrders.expireAt))
    .limit(limit)
    .all();
}

/** A binding's orders, newest first. */
export function ordersOfBinding(db: DbOrTx, bindingId: string, limit: number): PayinOrderRow[] {
  return db.select().from(payinOrders).where(eq(payinOrders.bindingId, bindingId)).orderBy(desc(payinOrders.createdAt), desc(payinOrders.id)).limit(limit).all();
}

/** What a binding's statistics add up: each order's status, paid amount and times. */
export function bindingOrderFacts(db: DbOrTx, bindingId: string) {
  return db
    .select({ status: payinOrders.status, paid: payinOrders.paidAmount, createdAt: payinOrders.createdAt, completedAt: payinOrders.completedAt })
    .from(payinOrders)
    .where(eq(payinOrders.bindingId, bindingId))
    .all();
}

// ---- Bindings, deny list (the exclusive-address side) ----

/** A binding's bindKey by its id. */
export function bindKeyById(db: DbOrTx, bindingId: string): string | null {
  return prepared(db, "bindKeyById", (d) => d.select({ k: bindings.bindKey }).from(bindings).where(eq(bindings.id, sql.placeholder("id"))).prepare()).get({ id: bindingId })?.k ?? null;
}

/** The binding of an exclusive address for a token. */
export function bindingOf(tx: DbOrTx, addressId: string, token: string) {
  return tx.select().from(bindings).where(and(eq(bindings.addressId, addressId), eq(bindings.token, token))).get();
}

/** Whether the sender is on the deny list. */
export function isDenied(tx: Tx, chain: string, from: string): boolean {
  return !!prepared(tx, "denied", (d) =>
    d.select().from(denyList).where(and(eq(denyList.chain, sql.placeholder("c")), eq(denyList.address, sql.placeholder("a")))).prepare(),
  ).get({ c: chain, a: from });
}

// --- operator actions, bindings, unmatched deposits, the hosted pages' lookups ---

/** Any merchant's order with this orderNo (operator actions, the hold text). */
export function orderWithNo(db: DbOrTx, orderNo: string): PayinOrderRow | undefined {
  return db.select().from(payinOrders).where(eq(payinOrders.orderNo, orderNo)).get();
}

/** The pay-in behind a checkout link (the hosted page, compat/service.ts). */
export function payinByCheckoutToken(db: DbOrTx, token: string): PayinOrderRow | undefined {
  return db.select().from(payinOrders).where(eq(payinOrders.checkoutToken, token)).get();
}

/** The pay-in of the network an invoice's payer chose last, if any (invoices rank below pay-ins: its callers ask here). */
export function currentPayin(db: DbOrTx, inv: { payinOrderId: number | null }): PayinOrderRow | null {
  if (inv.payinOrderId === null) return null;
  return db.select().from(payinOrders).where(eq(payinOrders.id, inv.payinOrderId)).get() ?? null;
}

/** The shop side of a pay-in, if a plugin created it (compat_orders; the funnel's compat callback and compat/store.ts read it here). */
export function compatSideOf(db: DbOrTx, payinOrderId: number): typeof compatOrders.$inferSelect | undefined {
  return db.select().from(compatOrders).where(eq(compatOrders.payinOrderId, payinOrderId)).get();
}

export type BindingRow = typeof bindings.$inferSelect;

/** The merchant's binding of (chain, token, bindKey). */
export function bindingByKey(db: DbOrTx, merchantId: number, chain: string, token: string, bindKey: string): BindingRow | undefined {
  return db
    .select()
    .from(bindings)
    .where(and(eq(bindings.merchantId, merchantId), eq(bindings.chain, chain), eq(bindings.token, token), eq(bindings.bindKey, bindKey)))
    .get();
}

/** The binding behind a deposit page's link. */
export function bindingByPageToken(db: DbOrTx, pageToken: string): BindingRow | undefined {
  return db.select().from(bindings).where(eq(bindings.pageToken, pageToken)).get();
}

export function insertBinding(tx: Tx, values: typeof bindings.$inferInsert): BindingRow {
  return tx.insert(bindings).values(values).returning().get();
}

/** Writes `set` on the binding and returns the new row. */
export function updateBinding(tx: Tx, id: string, set: Partial<BindingRow>): BindingRow {
  return tx.update(bindings).set(set).where(eq(bindings.id, id)).returning().get();
}

/** A transfer by id. */
export function transferById(db: DbOrTx, id: number): TransferRow | undefined {
  return db.select().from(transfers).where(eq(transfers.id, id)).get();
}

/** The block time of a transfer (a hold's "late"). */
export function transferBlockTime(db: DbOrTx, id: number): { blockTime: number } | undefined {
  return db.select({ blockTime: transfers.blockTime }).from(transfers).where(eq(transfers.id, id)).get();
}

/** The latest transfers of a token to an address (a binding's detail). */
export function recentTransfersTo(db: DbOrTx, addressId: string, token: string, limit: number): TransferRow[] {
  return db
    .select()
    .from(transfers)
    .where(and(eq(transfers.addressId, addressId), eq(transfers.token, token)))
    .orderBy(desc(transfers.blockNumber), desc(transfers.id))
    .limit(limit)
    .all();
}

/** A cancelled frozen order's payment becomes an unmatched deposit (reason order_cancelled), if it is still the order's. */
export function unlinkCancelledPayment(tx: Tx, transferId: number, orderId: number): void {
  tx.update(transfers)
    .set({ disposition: "unmatched", payinOrderId: null, unmatchedReason: "order_cancelled" })
    .where(and(eq(transfers.id, transferId), eq(transfers.payinOrderId, orderId)))
    .run();
}

/** Writes `set` on the transfer and returns the new row (an unmatched deposit's resolution). */
export function updateTransfer(tx: Tx, id: number, set: Partial<TransferRow>): TransferRow {
  return tx.update(transfers).set(set).where(eq(transfers.id, id)).returning().get();
}

/** Another deposit already recorded as refunded by this payout, if any. */
export function refundedByPayout(tx: DbOrTx, payoutOrderNo: string, exceptId: number): { id: number } | undefined {
  return tx
    .select({ id: transfers.id })
    .from(transfers)
    .where(and(eq(transfers.resolution, "refunded"), eq(transfers.resolutionRef, payoutOrderNo), ne(transfers.id, exceptId)))
    .get();
}

export interface UnmatchedQuery {
  state: "open" | "resolved" | "all";
  chain?: string;
  merchantId?: number;
  limit: number;
  offset: number;
}

/** A page of unmatched deposits (newest first) with the uid of the merchant whose address they reached, and the count of all. */
export function unmatchedPage(db: DbOrTx, q: UnmatchedQuery): { rows: { t: TransferRow; uid: string | null }[]; total: number } {
  const where: SQL[] = [isNotNull(transfers.unmatchedReason)];
  if (q.state === "open") where.push(isNull(transfers.resolution));
  if (q.state === "resolved") where.push(isNotNull(transfers.resolution));
  if (q.chain) where.push(eq(transfers.chain, q.chain));
  if (q.merchantId !== undefined) where.push(eq(addresses.merchantId, q.merchantId));
  const cond = and(...where);
  const rows = db
    .select({ t: transfers, uid: merchants.uid })
    .from(transfers)
    .leftJoin(addresses, eq(addresses.id, transfers.addressId))
    .leftJoin(merchants, eq(merchants.id, addresses.merchantId))
    .where(cond)
    .orderBy(desc(transfers.seenAt), desc(transfers.id))
    .limit(q.limit)
    .offset(q.offset)
    .all();
  const total = db.select({ n: count() }).from(transfers).leftJoin(addresses, eq(addresses.id, transfers.addressId)).where(cond).get()!.n;
  return { rows, total };
}

/** A transfer with the merchant (id, uid) whose address it reached. */
export function transferWithOwner(db: DbOrTx, id: number): { t: TransferRow; merchantId: number | null; uid: string | null } | undefined {
  return db
    .select({ t: transfers, merchantId: addresses.merchantId, uid: merchants.uid })
    .from(transfers)
    .leftJoin(addresses, eq(addresses.id, transfers.addressId))
    .leftJoin(merchants, eq(merchants.id, addresses.merchantId))
    .where(eq(transfers.id, id))
    .get();
}

export type DenyRow = typeof denyList.$inferSelect;

export function insertDenied(tx: Tx, values: typeof denyList.$inferInsert): DenyRow {
  return tx.insert(denyList).values(values).returning().get();
}

/** Takes the sender off the deny list: its row, or undefined when it was not on it. */
export function removeDenied(tx: Tx, chain: string, address: string): DenyRow | undefined {
  return tx.delete(denyList).where(and(eq(denyList.chain, chain), eq(denyList.address, address))).returning().get();
}

/** The deny list by chain, oldest first. */
export function deniedSenders(db: DbOrTx): DenyRow[] {
  return db.select().from(denyList).orderBy(asc(denyList.chain), asc(denyList.createdAt)).all();
}

// ---- Transfers and the deposit ledger (payin/deposits.ts, the watcher's port) ----

export type TransferRow = typeof transfers.$inferSelect;
/** Where a transfer landed. */
export interface TransferBlock {
  blockNumber: number;
  blockHash: string;
  blockTime: number;
}

/** A transfer by its chain, tx hash and log index (the idempotency key of a scan). */
export function transferByKey(tx: DbOrTx, chain: string, txHash: string, logIndex: number): TransferRow | undefined {
  return prepared(tx, "transferByKey", (d) =>
    d
      .select()
      .from(transfers)
      .where(and(eq(transfers.chain, sql.placeholder("c")), eq(transfers.txHash, sql.placeholder("h")), eq(transfers.logIndex, sql.placeholder("i"))))
      .prepare(),
  ).get({ c: chain, h: txHash, i: logIndex });
}

/** A new transfer row. */
export function insertTransfer(tx: Tx, values: Record<string, unknown>): TransferRow {
  return prepared(tx, "insertTransfer", (d) =>
    d
      .insert(transfers)
      .values(Object.fromEntries(Object.keys(values).map((k) => [k, sql.placeholder(k)])) as never)
      .returning()
      .prepare(),
  ).get(values) as TransferRow;
}

/** A reverted transfer landed again: pending at its new block, one confirmation. */
export function relandTransfer(tx: Tx, id: number, block: TransferBlock): TransferRow {
  return tx.update(transfers).set({ ...block, status: "pending", confirmations: 1 }).where(eq(transfers.id, id)).returning().get();
}

/** A pending transfer moved to another block (same transaction, another block hash). */
export function moveTransfer(tx: Tx, id: number, block: TransferBlock): void {
  tx.update(transfers).set(block).where(eq(transfers.id, id)).run();
}

/** Writes `set` on the transfer (its disposition, its confirmations). */
export function patchTransfer(tx: Tx, id: number, set: Partial<TransferRow>): void {
  updateById(tx, transfers, id, set);
}

/** A reorg took the transfer away. */
export function revertTransferRow(tx: Tx, id: number): void {
  tx.update(transfers).set({ status: "reverted", confirmations: 0 }).where(eq(transfers.id, id)).run();
}

/** The ledger's deposit entry of a final transfer (once: ON CONFLICT DO NOTHING). */
export function addDepositLedger(tx: Tx, e: { addressId: string; chain: string; token: string; amount: string; refId: string; now: number }): void {
  prepared(tx, "depositLedger", (d) =>
    d
      .insert(ledgerEntries)
      .values({
        addressId: sql.placeholder("addressId"),
        chain: sql.placeholder("chain"),
        token: sql.placeholder("token"),
        kind: "deposit",
        amount: sql.placeholder("amount"),
        refType: "transfer",
        refId: sql.placeholder("refId"),
        createdAt: sql.placeholder("now"),
      } as never)
      .onConflictDoNothing()
      .prepare(),
  ).run(e);
}

export function pendingTransfers(tx: DbOrTx, chain: string): TransferRow[] {
  return tx.select().from(transfers).where(and(eq(transfers.chain, chain), eq(transfers.status, "pending"), gte(transfers.blockNumber, 0))).all();
}

/** Pending transfers of the given blocks (a reorg changed them). */
export function pendingInBlocks(tx: Tx, chain: string, blocks: number[]): TransferRow[] {
  return tx.select().from(transfers).where(and(eq(transfers.chain, chain), eq(transfers.status, "pending"), inArray(transfers.blockNumber, blocks))).all();
}

/**
 * Pending transfers whose state moves this tick: reaching 2 confirmations (block ≤ twoAt, still
 * counted below 2) or final (block ≤ finalAt). Each transfer is returned at most twice in its life.
 */
export function crossingThreshold(tx: Tx, chain: string, twoAt: number, finalAt: number): TransferRow[] {
  return prepared(tx, "transfersCrossing", (d) =>
    d
      .select()
      .from(transfers)
      .where(
        and(
          eq(transfers.chain, sql.placeholder("chain")),
          eq(transfers.status, "pending"),
          gte(transfers.blockNumber, 0),
          lte(transfers.blockNumber, sql.placeholder("twoAt")),
          or(lt(transfers.confirmations, 2), lte(transfers.blockNumber, sql.placeholder("finalAt"))),
        ),
      )
      .prepare(),
  ).all({ chain, twoAt: Math.max(twoAt, finalAt), finalAt });
}

// --- refunds: the pay-in side a refund reads (payout/refunds.ts RefundPayins, filled in app/context.ts) ---

/**
 * What a refund (payout/refunds.ts, its RefundPayins port: payouts rank below pay-ins) reads and
 * resolves of the pay-in side: the order or the deposit it is made on. app/context.ts hands it over.
 */
export const refundPayins = {
  orderByOrderNo,
  orderById,
  transferById,
  whyNotRefundable: (db: DbOrTx, o: PayinOrderRow): string | null => whyNotRefundable(o, o.transferId !== null ? transferById(db, o.transferId) : undefined),
  resolveDepositRefunded: (tx: Tx, transferId: number, refundRef: string, now: number): void => {
    tx.update(transfers).set({ resolution: "refunded", resolutionRef: refundRef, resolvedAt: now }).where(eq(transfers.id, transferId)).run();
  },
};

/**
 * What the sweep asks about on a chain (DESIGN 25): the addresses of open orders (from the
 * oldest open order's creation) and the live exclusive addresses created or paid since
 * `windowStart` (from then). One row per address, `since` in ms.
 */
export const SWEEP_TARGETS = `
  SELECT p.address AS address, p.created_at AS since FROM payin_orders p
   WHERE p.chain = ?1 AND ${statusSql("p.status", OPEN_STATUSES)}
  UNION ALL
  SELECT a.address, ?2 FROM addresses a
   WHERE a.chain = ?1 AND a.kind = 'exclusive' AND a.deleted_at IS NULL
     AND (a.created_at >= ?2 OR EXISTS (SELECT 1 FROM transfers t WHERE t.address_id = a.id AND t.seen_at >= ?2))`;

export function sweepTargets(db: DbOrTx, chain: string, windowStart: number): Array<{ address: string; since: number }> {
  const rows = prepared(db, "sweepTargets", (d) => d.$client.prepare<{ address: string; since: number }, [string, number]>(SWEEP_TARGETS)).all(chain, windowStart);
  const earliest = new Map<string, number>();
  for (const r of rows) earliest.set(r.address, Math.min(r.since, earliest.get(r.address) ?? r.since));
  return [...earliest].map(([address, since]) => ({ address, since }));
}

/** Whether the chain's transaction is recorded (and not reverted by a reorg): the sweep need not read it again. */
export function transactionRecorded(db: DbOrTx, chain: string, txHash: string): boolean {
  return !!prepared(db, "transactionRecorded", (d) =>
    d.$client.prepare<{ 1: number }, [string, string]>(`SELECT 1 FROM transfers WHERE chain = ? AND tx_hash = ? AND ${notStatusSql("status", TRANSFER_REVERTED)} LIMIT 1`),
  ).get(chain, txHash);
}

/** The sweep recorded this transfer: the scan missed it (alert scan_missed). */
export function markFoundBySweep(tx: Tx, id: number): void {
  patchTransfer(tx, id, { foundBy: "sweep" });
}

/** A credited transfer's detection row (DESIGN 25), made once from the transfer: its block time and first sighting, or null when it existed. */
export function startDetection(tx: Tx, transferId: number, orderNo: string): { chain: string; blockTime: number; seenAt: number } | null {
  const t = tx.select({ chain: transfers.chain, blockTime: transfers.blockTime, seenAt: transfers.seenAt }).from(transfers).where(eq(transfers.id, transferId)).get();
  if (!t) return null;
  const made = tx.insert(detectionTimes).values({ transferId, orderNo, ...t }).onConflictDoNothing().returning({ id: detectionTimes.transferId }).get();
  return made ? t : null;
}

/** Stamps the detection row's completion once; its chain and block time, or null when already stamped. */
export function completeDetection(tx: Tx, transferId: number, now: number): { chain: string; blockTime: number } | null {
  const r = tx
    .update(detectionTimes)
    .set({ completedAt: now })
    .where(and(eq(detectionTimes.transferId, transferId), isNull(detectionTimes.completedAt)))
    .returning({ chain: detectionTimes.chain, blockTime: detectionTimes.blockTime })
    .get();
  return r ?? null;
}
