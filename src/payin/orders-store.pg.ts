// payin/orders-store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL
// handle): what creating, reading, expiring and paying an order through the API and the checkout
// needs, and the watcher's matching statements (the leader's: matchCandidateIds, expiredBefore,
// coveringOrderIds, showConfirmations, sweepTargets), SQLite's text without INDEXED BY.
import { and, asc, count, desc, eq, lte, or, sql } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { pgRowReader } from "../db/pg-rows";
import { pgSend } from "../db/tx-pg";
import { payinOrders } from "../db/schema-pg";
import { showTransferConfirmations } from "../watcher/transfers-store.pg";
import { AWAITING_PAYMENT, OPEN_STATUSES, SETTLING_STATUSES } from "./state";
import type { MatchKey } from "./orders-store";
import type { PayinOrderRow } from "./views";
import type { NewCallbackRow } from "../callbacks/store";

const quoted = (s: readonly string[]) => s.map((x) => `'${x}'`).join(", ");
const list = (s: readonly string[]) => sql.raw(quoted(s));

/** The merchant's first pool address (by derivation index) where this amount is not open (FREE_SHARED_ADDRESS on SQLite). */
export async function freeSharedAddress(tx: PgQ, merchantId: number, chain: string, token: string, units: bigint): Promise<{ id: string; address: string } | undefined> {
  const amount = units.toString();
  const rows = (await tx.execute(sql`SELECT a.id, a.address FROM addresses a
    WHERE a.merchant_id = ${merchantId} AND a.chain = ${chain} AND a.kind = 'shared' AND a.deleted_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM payin_orders p WHERE p.address_id = a.id AND p.token = ${token} AND p.amount = ${amount} AND p.mode = 'shared' AND p.status IN (${list(AWAITING_PAYMENT)}))
      AND NOT EXISTS (SELECT 1 FROM payin_orders p WHERE p.address_id = a.id AND p.token = ${token} AND p.amount = ${amount} AND p.mode = 'shared' AND p.status IN (${list(SETTLING_STATUSES)}))
    ORDER BY a.derivation_index LIMIT 1`)) as unknown as { id: string; address: string }[];
  return rows[0];
}

/**
 * A create in one statement (issue 38: one round trip and one statement where freeSharedAddress,
 * insertSharedPayin and the outbox's insertCallback were three): the first free pool address for
 * the amount, the order on it, and the order's callback row (`cb`, the outbox's row,
 * callbacks/outbox.ts callbackRow; the same columns as callbacks/store.pg.ts insertCallback). One
 * snapshot for the three. Undefined when nothing was written: no free address, or the insert met
 * another order (ON CONFLICT DO NOTHING on every unique index, as insertSharedPayin); the caller
 * then runs those steps one by one. `callback` false: the order was written but the callback's id
 * was taken (the outbox then writes it under its next occurrence).
 */
export async function insertSharedPayinWithCallback(
  tx: PgQ,
  row: PayinOrderRow,
  units: bigint,
  cb: NewCallbackRow,
  now: number,
): Promise<{ id: number; addressId: string; address: string; callback: boolean } | undefined> {
  const rows = await pgSend<{ id: string | number; address_id: string; address: string; callback: boolean }>(tx, CREATE_WITH_CALLBACK, [
    row.merchantId, row.chain, row.token, units.toString(),
    row.orderNo, row.merchantOrderNo, row.decimals, row.notifyUrl, row.redirectUrl, row.apiKeyId, row.checkoutToken, row.expireAt, now,
    cb.id, cb.kind, cb.status, cb.apiKeyId, cb.url, cb.payload, cb.state, cb.now,
  ]);
  const r = rows[0];
  return r ? { id: Number(r.id), addressId: r.address_id, address: r.address, callback: r.callback } : undefined;
}

/** insertSharedPayinWithCallback's text, fixed (parameters in pgSend's order, no drizzle `sql` building per create). */
const CREATE_WITH_CALLBACK = `WITH a AS MATERIALIZED (SELECT a.id, a.address FROM addresses a
      WHERE a.merchant_id = $1::bigint AND a.chain = $2::text AND a.kind = 'shared' AND a.deleted_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM payin_orders p WHERE p.address_id = a.id AND p.token = $3::text AND p.amount = $4::text AND p.mode = 'shared' AND p.status IN (${quoted(AWAITING_PAYMENT)}))
        AND NOT EXISTS (SELECT 1 FROM payin_orders p WHERE p.address_id = a.id AND p.token = $3::text AND p.amount = $4::text AND p.mode = 'shared' AND p.status IN (${quoted(SETTLING_STATUSES)}))
      ORDER BY a.derivation_index LIMIT 1),
    o AS (INSERT INTO payin_orders (order_no, merchant_id, merchant_order_no, mode, chain, token, decimals, amount, address_id, address,
        notify_url, redirect_url, api_key_id, status, checkout_token, expire_at, created_at, updated_at)
      SELECT $5::text, $1::bigint, $6::text, 'shared', $2::text, $3::text, $7::bigint, $4::text, a.id, a.address,
        $8::text, $9::text, $10::text, 'waiting_payment', $11::text, $12::bigint, $13::bigint, $13::bigint FROM a
      ON CONFLICT DO NOTHING RETURNING id, address_id, address),
    c AS (INSERT INTO callbacks (id, merchant_id, kind, order_no, order_status, api_key_id, url, payload, state, attempts, next_attempt_at, created_at, updated_at)
      SELECT $14::text, $1::bigint, $15::text, $5::text, $16::text, $17::text, $18::text, $19::text, $20::text, 0, $21::bigint, $21::bigint, $21::bigint FROM o
      ON CONFLICT (id) DO NOTHING RETURNING 1)
    SELECT o.id, o.address_id, o.address, EXISTS (SELECT 1 FROM c) AS callback FROM o`;

/**
 * A new shared-address order: its id, or null when it met another order (this merchantOrderNo, or
 * another gateway's order with the same order number or this amount open on the address: the
 * caller takes a new number and address, payin/service.ts createPayinOrder).
 * A statement of its own text rather than drizzle's insert builder, which rebuilt the 30-column
 * insert on every create (~60 µs of the gateway's CPU against ~7 µs here, issue 38).
 */
export async function insertSharedPayin(tx: PgQ, row: PayinOrderRow, now: number): Promise<number | null> {
  const rows = (await tx.execute(sql`INSERT INTO payin_orders (order_no, merchant_id, merchant_order_no, mode, chain, token, decimals, amount, address_id, address,
      notify_url, redirect_url, api_key_id, status, checkout_token, expire_at, created_at, updated_at)
    VALUES (${row.orderNo}, ${row.merchantId}, ${row.merchantOrderNo}, 'shared', ${row.chain}, ${row.token}, ${row.decimals}, ${row.amount}, ${row.addressId}, ${row.address},
      ${row.notifyUrl}, ${row.redirectUrl}, ${row.apiKeyId}, 'waiting_payment', ${row.checkoutToken}, ${row.expireAt}, ${now}, ${now})
    ON CONFLICT DO NOTHING RETURNING id`)) as unknown as { id: string | number }[];
  return rows[0] ? Number(rows[0].id) : null;
}

export async function invoicePayinCount(tx: PgQ, invoiceId: number): Promise<number> {
  return (await firstRow(tx.select({ n: count() }).from(payinOrders).where(eq(payinOrders.invoiceId, invoiceId))))!.n;
}

export async function orderById(tx: PgQ, id: number): Promise<PayinOrderRow | undefined> {
  return await firstRow(tx.select().from(payinOrders).where(eq(payinOrders.id, id)));
}

export async function orderByMerchantOrderNo(tx: PgQ, merchantId: number, merchantOrderNo: string): Promise<PayinOrderRow | undefined> {
  return await firstRow(tx.select().from(payinOrders).where(and(eq(payinOrders.merchantId, merchantId), eq(payinOrders.merchantOrderNo, merchantOrderNo))));
}

const orderRow = pgRowReader(payinOrders);

/** The signed GET's read: a fixed text sent as it is (drizzle's builders rebuilt the 30-column select, then the `sql` template, per request: issue 38). */
const ORDER_BY_NO = `SELECT ${orderRow.list} FROM payin_orders WHERE order_no = $1::text AND merchant_id = $2::bigint`;
export async function orderByOrderNo(db: PgQ, merchantId: number, orderNo: string): Promise<PayinOrderRow | undefined> {
  const rows = await pgSend<Record<string, unknown>>(db, ORDER_BY_NO, [orderNo, merchantId]);
  return rows[0] ? orderRow.decode(rows[0]) : undefined;
}

export async function orderNoTaken(tx: PgQ, merchantId: number, no: string): Promise<boolean> {
  return !!(await firstRow(
    tx
      .select({ id: payinOrders.id })
      .from(payinOrders)
      .where(or(eq(payinOrders.orderNo, no), and(eq(payinOrders.merchantId, merchantId), eq(payinOrders.merchantOrderNo, no))))
      .limit(1),
  ));
}

export async function updateOrder(tx: PgQ, id: number, set: Partial<PayinOrderRow>): Promise<PayinOrderRow | undefined> {
  return await firstRow(tx.update(payinOrders).set(set).where(eq(payinOrders.id, id)).returning());
}

/** The compare-and-set of a status change: undefined when another writer (another gateway) moved the order first. */
export async function updateOrderIf(tx: PgQ, id: number, expected: string, set: Partial<PayinOrderRow>): Promise<PayinOrderRow | undefined> {
  return await firstRow(tx.update(payinOrders).set(set).where(and(eq(payinOrders.id, id), eq(payinOrders.status, expected))).returning());
}

export async function patchOrder(tx: PgQ, id: number, set: Partial<PayinOrderRow>): Promise<void> {
  await tx.update(payinOrders).set(set).where(eq(payinOrders.id, id));
}

export async function insertOrder(tx: PgQ, values: typeof payinOrders.$inferInsert): Promise<PayinOrderRow> {
  return (await firstRow(tx.insert(payinOrders).values(values).returning()))!;
}

export async function dueOrders(db: PgQ, now: number, limit: number): Promise<PayinOrderRow[]> {
  return await db
    .select()
    .from(payinOrders)
    .where(and(eq(payinOrders.status, "waiting_payment"), lte(payinOrders.expireAt, now - 1)))
    .orderBy(asc(payinOrders.expireAt))
    .limit(limit);
}

export async function ordersOfBinding(db: PgQ, bindingId: string, limit: number): Promise<PayinOrderRow[]> {
  return await db.select().from(payinOrders).where(eq(payinOrders.bindingId, bindingId)).orderBy(desc(payinOrders.createdAt), desc(payinOrders.id)).limit(limit);
}

export async function bindingOrderFacts(db: PgQ, bindingId: string) {
  return await db
    .select({ status: payinOrders.status, paid: payinOrders.paidAmount, createdAt: payinOrders.createdAt, completedAt: payinOrders.completedAt })
    .from(payinOrders)
    .where(eq(payinOrders.bindingId, bindingId));
}

export async function orderWithNo(db: PgQ, orderNo: string): Promise<PayinOrderRow | undefined> {
  return await firstRow(db.select().from(payinOrders).where(eq(payinOrders.orderNo, orderNo)));
}

export async function payinByCheckoutToken(db: PgQ, token: string): Promise<PayinOrderRow | undefined> {
  return await firstRow(db.select().from(payinOrders).where(eq(payinOrders.checkoutToken, token)));
}

export async function currentPayin(db: PgQ, inv: { payinOrderId: number | null }): Promise<PayinOrderRow | null> {
  if (inv.payinOrderId === null) return null;
  return (await firstRow(db.select().from(payinOrders).where(eq(payinOrders.id, inv.payinOrderId)))) ?? null;
}

async function ids(tx: PgQ, q: ReturnType<typeof sql>): Promise<number[]> {
  return ((await tx.execute(q)) as unknown as { id: string | number }[]).map((r) => Number(r.id));
}

export async function matchCandidateIds(tx: PgQ, t: MatchKey, createdBy: number, expiredSince: number): Promise<number[]> {
  return await ids(tx, sql`SELECT id FROM payin_orders
    WHERE address_id = ${t.addressId} AND token = ${t.token} AND amount = ${t.amount} AND mode = 'shared' AND status = 'waiting_payment' AND transfer_id IS NULL AND created_at <= ${createdBy}
    UNION ALL
    SELECT id FROM payin_orders
    WHERE address_id = ${t.addressId} AND token = ${t.token} AND amount = ${t.amount} AND expire_at >= ${expiredSince} AND mode = 'shared' AND status = 'expired' AND transfer_id IS NULL AND created_at <= ${createdBy}`);
}

export async function expiredBefore(tx: PgQ, t: MatchKey, createdBy: number, expiredSince: number): Promise<boolean> {
  return (await ids(tx, sql`SELECT id FROM payin_orders
    WHERE address_id = ${t.addressId} AND token = ${t.token} AND amount = ${t.amount} AND expire_at < ${expiredSince} AND mode = 'shared' AND status = 'expired' AND transfer_id IS NULL AND created_at <= ${createdBy}
    LIMIT 1`)).length > 0;
}

export async function coveringOrderIds(tx: PgQ, addressId: string, token: string, createdBy: number, at: number): Promise<number[]> {
  return await ids(tx, sql`SELECT id FROM (
      SELECT id FROM payin_orders
      WHERE address_id = ${addressId} AND token = ${token} AND mode = 'shared' AND status = 'waiting_payment' AND created_at <= ${createdBy} AND expire_at >= ${at}
      UNION ALL
      SELECT id FROM payin_orders
      WHERE address_id = ${addressId} AND token = ${token} AND mode = 'shared' AND status IN (${list(SETTLING_STATUSES)}) AND created_at <= ${createdBy} AND expire_at >= ${at}
      UNION ALL
      SELECT id FROM payin_orders
      WHERE status = 'expired' AND expire_at >= ${at} AND address_id = ${addressId} AND token = ${token} AND mode = 'shared' AND created_at <= ${createdBy}
    ) c LIMIT 2`);
}

export async function showConfirmations(tx: PgQ, chain: string, latest: number, now: number): Promise<void> {
  await showTransferConfirmations(tx, chain, latest);
  await tx.execute(sql`UPDATE payin_orders p SET confirmations = t.confirmations, updated_at = ${now}
    FROM transfers t
    WHERE t.id = p.transfer_id AND t.status = 'pending' AND p.confirmations <> t.confirmations
      AND p.id IN (SELECT payin_order_id FROM transfers WHERE chain = ${chain} AND status = 'pending' AND block_number >= 0 AND payin_order_id IS NOT NULL)`);
}

export async function sweepTargets(db: PgQ, chain: string, windowStart: number): Promise<Array<{ address: string; since: number }>> {
  const rows = (await db.execute(sql`
    SELECT p.address AS address, p.created_at AS since FROM payin_orders p
     WHERE p.chain = ${chain} AND p.status IN (${list(OPEN_STATUSES)})
    UNION ALL
    SELECT a.address, ${windowStart}::bigint FROM addresses a
     WHERE a.chain = ${chain} AND a.kind = 'exclusive' AND a.deleted_at IS NULL
       AND (a.created_at >= ${windowStart} OR EXISTS (SELECT 1 FROM transfers t WHERE t.address_id = a.id AND t.seen_at >= ${windowStart}))`)) as unknown as { address: string; since: string | number }[];
  const earliest = new Map<string, number>();
  for (const r of rows) earliest.set(r.address, Math.min(Number(r.since), earliest.get(r.address) ?? Number(r.since)));
  return [...earliest].map(([address, since]) => ({ address, since }));
}
