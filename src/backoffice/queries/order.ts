// Everything the order page shows, scoped: another merchant's order is null
// (the page answers 404, as for an order that does not exist).
import { eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { isPg, pgOf, pgSide } from "../../db/engine";
import { auditLog, callbackAttempts, callbacks, merchants, payinOrders, payoutOrders, refunds, transfers } from "../../db/schema";
import { eventsOf, type OrderEventRow } from "../../orders/events";
import type { Scope } from "./filters";

const pg = pgSide<typeof import("./order.pg")>(() => require("./order.pg"));

export type PayinRow = typeof payinOrders.$inferSelect;
export type PayoutRow = typeof payoutOrders.$inferSelect;
export type TransferRow = typeof transfers.$inferSelect;
export type CallbackRow = typeof callbacks.$inferSelect;
export type AttemptRow = typeof callbackAttempts.$inferSelect;
export type AuditRow = typeof auditLog.$inferSelect;

export interface OrderDetail {
  kind: "payin" | "payout";
  payin?: PayinRow;
  payout?: PayoutRow;
  merchantUid: string;
  merchantName: string;
  /** The merchant's default callback URL now (where an event without its own URL goes). */
  merchantDefaultUrl: string | null;
  transfers: TransferRow[];
  events: OrderEventRow[];
  callbacks: { callback: CallbackRow; attempts: AttemptRow[] }[];
  audit: AuditRow[];
}

const byId = (a: { id: number }, b: { id: number }) => a.id - b.id;

/** The transfers that paid a pay-in (also after a reorg unlinked them) and the one it records, by id. */
async function paidBy(db: DbOrTx, orderId: number, transferId: number | null): Promise<TransferRow[]> {
  const rows = isPg(db) ? await pg.transfersOfPayin(pgOf(db), orderId) : db.select().from(transfers).where(eq(transfers.payinOrderId, orderId)).all();
  if (transferId !== null && !rows.some((t) => t.id === transferId)) {
    rows.push(...(isPg(db) ? await pg.transfersById(pgOf(db), transferId) : db.select().from(transfers).where(eq(transfers.id, transferId)).all()));
  }
  return rows.sort(byId);
}

export async function orderDetail(db: DbOrTx, scope: Scope, orderNo: string): Promise<OrderDetail | null> {
  if (!/^P[IO][0-9]{1,30}$/.test(orderNo)) return null;
  if (isPg(db)) return await orderDetailPg(db, scope, orderNo);
  const payin = orderNo.startsWith("PI") ? db.select().from(payinOrders).where(eq(payinOrders.orderNo, orderNo)).get() : undefined;
  const payout = orderNo.startsWith("PO") ? db.select().from(payoutOrders).where(eq(payoutOrders.orderNo, orderNo)).get() : undefined;
  const o = payin ?? payout;
  if (!o || (scope.merchantId !== null && o.merchantId !== scope.merchantId)) return null;
  const m = db.select().from(merchants).where(eq(merchants.id, o.merchantId)).get()!;
  // Each read is an index seek on the order's own keys (transfers_order, callbacks_order,
  // attempts_callback, audit_target); their few rows are put in order here, not by a sort in SQLite.
  // Two seeks (transfers_order, then the primary key), not one OR the planner may scan for.
  const tr = payin ? await paidBy(db, payin.id, payin.transferId) : [];
  // The order's callbacks and its refunds' (businessType refund, keyed by their RF numbers).
  const refs = payin ? db.select({ r: refunds.refundRef }).from(refunds).where(eq(refunds.payinOrderId, payin.id)).all().map((x) => x.r) : [];
  const cbs = db
    .select()
    .from(callbacks)
    .where(refs.length ? inArray(callbacks.orderNo, [orderNo, ...refs]) : eq(callbacks.orderNo, orderNo))
    .all()
    .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  const attempts = cbs.length ? db.select().from(callbackAttempts).where(inArray(callbackAttempts.callbackId, cbs.map((c) => c.id))).all().sort(byId) : [];
  const kind = payin ? "payin" : "payout";
  // The order's own entries and those of deposits attached to it.
  const targets = [`${kind}:${orderNo}`, ...tr.map((t) => `deposit:${t.id}`)];
  const audit = db.select().from(auditLog).where(inArray(auditLog.target, targets)).all().sort(byId);
  return { kind, payin, payout, ...merchantPart(m), transfers: tr, events: await eventsOf(db, orderNo), callbacks: withAttempts(cbs, attempts), audit };
}

const merchantPart = (m: { uid: string; name: string; defaultCallbackUrl: string | null }) => ({ merchantUid: m.uid, merchantName: m.name, merchantDefaultUrl: m.defaultCallbackUrl });
const withAttempts = (cbs: CallbackRow[], attempts: AttemptRow[]) => cbs.map((c) => ({ callback: c, attempts: attempts.filter((a) => a.callbackId === c.id) }));

/** orderDetail on PostgreSQL: the same reads through order.pg.ts, put in the same order here. */
async function orderDetailPg(db: DbOrTx, scope: Scope, orderNo: string): Promise<OrderDetail | null> {
  const q = pgOf(db);
  const payin = orderNo.startsWith("PI") ? await pg.payinByOrderNo(q, orderNo) : undefined;
  const payout = orderNo.startsWith("PO") ? await pg.payoutByOrderNo(q, orderNo) : undefined;
  const o = payin ?? payout;
  if (!o || (scope.merchantId !== null && o.merchantId !== scope.merchantId)) return null;
  const m = await pg.merchantOfOrder(q, o.merchantId);
  const tr = payin ? await paidBy(db, payin.id, payin.transferId) : [];
  const refs = payin ? await pg.refundRefsOf(q, payin.id) : [];
  const cbs = (await pg.callbacksOfOrders(q, [orderNo, ...refs])).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  const attempts = cbs.length ? (await pg.attemptsOf(q, cbs.map((c) => c.id))).sort(byId) : [];
  const kind = payin ? "payin" : "payout";
  const audit = (await pg.auditOfTargets(q, [`${kind}:${orderNo}`, ...tr.map((t) => `deposit:${t.id}`)])).sort(byId);
  return { kind, payin, payout, ...merchantPart(m), transfers: tr, events: await eventsOf(db, orderNo), callbacks: withAttempts(cbs, attempts), audit };
}

/** The merchant a callback belongs to, for scoping a resend. */
export async function callbackScopeOk(db: DbOrTx, scope: Scope, eventId: string): Promise<CallbackRow | null> {
  const c = isPg(db) ? await pg.callbackById(pgOf(db), eventId) : db.select().from(callbacks).where(eq(callbacks.id, eventId)).get();
  if (!c || (scope.merchantId !== null && c.merchantId !== scope.merchantId)) return null;
  return c;
}

/** How many delivery attempts a callback has (a resend waits for one more before showing the page). */
export async function attemptCount(db: DbOrTx, callbackId: string): Promise<number> {
  if (isPg(db)) return await pg.attemptCount(pgOf(db), callbackId);
  return db.select({ id: callbackAttempts.id }).from(callbackAttempts).where(eq(callbackAttempts.callbackId, callbackId)).all().length;
}
