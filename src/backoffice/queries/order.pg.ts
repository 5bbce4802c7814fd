// queries/order.ts on PostgreSQL: the order page's reads, each an index seek on the order's own
// keys (payin/payout order_no unique, transfers_order, refunds by pay-in, callbacks_order,
// attempts_callback, audit_target), in the same shapes as the SQLite side.
import { eq, inArray } from "drizzle-orm";
import { firstRow, type PgQ } from "../../db/engine";
import { auditLog, callbackAttempts, callbacks, merchants, payinOrders, payoutOrders, refunds, transfers } from "../../db/schema-pg";
import type { AttemptRow, AuditRow, CallbackRow, PayinRow, PayoutRow, TransferRow } from "./order";

export async function payinByOrderNo(db: PgQ, orderNo: string): Promise<PayinRow | undefined> {
  return await firstRow(db.select().from(payinOrders).where(eq(payinOrders.orderNo, orderNo)));
}

export async function payoutByOrderNo(db: PgQ, orderNo: string): Promise<PayoutRow | undefined> {
  return await firstRow(db.select().from(payoutOrders).where(eq(payoutOrders.orderNo, orderNo)));
}

export async function merchantOfOrder(db: PgQ, merchantId: number) {
  return (await firstRow(db.select().from(merchants).where(eq(merchants.id, merchantId))))!;
}

export async function transfersOfPayin(db: PgQ, orderId: number): Promise<TransferRow[]> {
  return await db.select().from(transfers).where(eq(transfers.payinOrderId, orderId));
}

export async function transfersById(db: PgQ, id: number): Promise<TransferRow[]> {
  return await db.select().from(transfers).where(eq(transfers.id, id));
}

export async function refundRefsOf(db: PgQ, payinOrderId: number): Promise<string[]> {
  return (await db.select({ r: refunds.refundRef }).from(refunds).where(eq(refunds.payinOrderId, payinOrderId))).map((x) => x.r);
}

export async function callbacksOfOrders(db: PgQ, orderNos: string[]): Promise<CallbackRow[]> {
  return await db.select().from(callbacks).where(inArray(callbacks.orderNo, orderNos));
}

export async function attemptsOf(db: PgQ, callbackIds: string[]): Promise<AttemptRow[]> {
  return await db.select().from(callbackAttempts).where(inArray(callbackAttempts.callbackId, callbackIds));
}

export async function auditOfTargets(db: PgQ, targets: string[]): Promise<AuditRow[]> {
  return await db.select().from(auditLog).where(inArray(auditLog.target, targets));
}

export async function callbackById(db: PgQ, eventId: string): Promise<CallbackRow | undefined> {
  return await firstRow(db.select().from(callbacks).where(eq(callbacks.id, eventId)));
}

export async function attemptCount(db: PgQ, callbackId: string): Promise<number> {
  return (await db.select({ id: callbackAttempts.id }).from(callbackAttempts).where(eq(callbackAttempts.callbackId, callbackId))).length;
}
