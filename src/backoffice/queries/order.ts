// Everything the order page shows, scoped: another merchant's order is null
// (the page answers 404, as for an order that does not exist).
import { asc, eq, inArray, or } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { auditLog, callbackAttempts, callbacks, merchants, payinOrders, payoutOrders, transfers } from "../../db/schema";
import { eventsOf, type OrderEventRow } from "../../orders/events";
import type { Scope } from "./filters";

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
  transfers: TransferRow[];
  events: OrderEventRow[];
  callbacks: { callback: CallbackRow; attempts: AttemptRow[] }[];
  audit: AuditRow[];
}

export function orderDetail(db: DbOrTx, scope: Scope, orderNo: string): OrderDetail | null {
  if (!/^P[IO][0-9]{1,30}$/.test(orderNo)) return null;
  const payin = orderNo.startsWith("PI") ? db.select().from(payinOrders).where(eq(payinOrders.orderNo, orderNo)).get() : undefined;
  const payout = orderNo.startsWith("PO") ? db.select().from(payoutOrders).where(eq(payoutOrders.orderNo, orderNo)).get() : undefined;
  const o = payin ?? payout;
  if (!o || (scope.merchantId !== null && o.merchantId !== scope.merchantId)) return null;
  const m = db.select().from(merchants).where(eq(merchants.id, o.merchantId)).get()!;
  const tr = payin
    ? db
        .select()
        .from(transfers)
        .where(payin.transferId ? or(eq(transfers.payinOrderId, payin.id), eq(transfers.id, payin.transferId)) : eq(transfers.payinOrderId, payin.id))
        .orderBy(asc(transfers.id))
        .all()
    : [];
  const cbs = db.select().from(callbacks).where(eq(callbacks.orderNo, orderNo)).orderBy(asc(callbacks.createdAt)).all();
  const attempts = cbs.length
    ? db.select().from(callbackAttempts).where(inArray(callbackAttempts.callbackId, cbs.map((c) => c.id))).orderBy(asc(callbackAttempts.id)).all()
    : [];
  const kind = payin ? "payin" : "payout";
  // The order's own entries and those of deposits attached to it.
  const targets = [`${kind}:${orderNo}`, ...tr.map((t) => `deposit:${t.id}`)];
  const audit = db.select().from(auditLog).where(inArray(auditLog.target, targets)).orderBy(asc(auditLog.id)).all();
  return {
    kind,
    payin,
    payout,
    merchantUid: m.uid,
    merchantName: m.name,
    transfers: tr,
    events: eventsOf(db, orderNo),
    callbacks: cbs.map((c) => ({ callback: c, attempts: attempts.filter((a) => a.callbackId === c.id) })),
    audit,
  };
}

/** The merchant a callback belongs to, for scoping a resend. */
export function callbackScopeOk(db: DbOrTx, scope: Scope, eventId: string): CallbackRow | null {
  const c = db.select().from(callbacks).where(eq(callbacks.id, eventId)).get();
  if (!c || (scope.merchantId !== null && c.merchantId !== scope.merchantId)) return null;
  return c;
}
