// The operator actions the order and exceptions pages offer, each through the
// pay-in services (one transition funnel) with its audit entry in the same
// transaction. Scope: a merchant user acts only on its own orders.
import type { Actor } from "../audit/log";
import { recordAudit } from "../audit/log";
import { writeTx } from "../db/client";
import { attachDeposit, cancelOrder, freezeOrder, OperatorError, releaseOrder } from "../payin/operator";
import type { PayinCtx } from "../payin/service";
import type { PayinOrderRow } from "../payin/views";

export { OperatorError };

const snap = (o: PayinOrderRow) => ({ status: o.status, paidAmount: o.paidAmount, txHash: o.txHash });

function audited(ctx: PayinCtx, actor: Actor, action: string, orderNo: string, before: PayinOrderRow | undefined, fn: () => PayinOrderRow, note?: Record<string, unknown>): PayinOrderRow {
  return writeTx(ctx.db, () => {
    const row = fn();
    recordAudit(ctx.db, { ...actor, action, target: `payin:${orderNo}`, before: before ? snap(before) : null, after: { ...snap(row), ...note }, at: ctx.clock.now() });
    return row;
  });
}

export function freeze(ctx: PayinCtx, o: PayinOrderRow, reason: string, actor: Actor): PayinOrderRow {
  if (!reason.trim()) throw new OperatorError("give a reason for freezing the order");
  return audited(ctx, actor, "order.freeze", o.orderNo, o, () => freezeOrder(ctx, o.orderNo), { reason: reason.trim().slice(0, 500) });
}

export function release(ctx: PayinCtx, o: PayinOrderRow, actor: Actor): PayinOrderRow {
  return audited(ctx, actor, "order.release", o.orderNo, o, () => releaseOrder(ctx, o.orderNo));
}

export function cancel(ctx: PayinCtx, o: PayinOrderRow, actor: Actor): PayinOrderRow {
  return audited(ctx, actor, "order.cancel", o.orderNo, o, () => cancelOrder(ctx, o.orderNo));
}

export function attach(ctx: PayinCtx, depositId: number, o: PayinOrderRow, actor: Actor): PayinOrderRow {
  return writeTx(ctx.db, () => {
    const row = attachDeposit(ctx, depositId, o.orderNo);
    recordAudit(ctx.db, { ...actor, action: "deposit.attach", target: `deposit:${depositId}`, before: { orderNo: null }, after: { orderNo: o.orderNo, orderStatus: row.status }, at: ctx.clock.now() });
    recordAudit(ctx.db, { ...actor, action: "order.attach_deposit", target: `payin:${o.orderNo}`, before: snap(o), after: { ...snap(row), depositId }, at: ctx.clock.now() });
    return row;
  });
}
