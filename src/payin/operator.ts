// Operator actions on pay-ins (the back office calls these). Each goes through
// the same transition funnel as the watcher, so each writes its callback.
import { and, eq } from "drizzle-orm";
import { writeTx } from "../db/client";
import { denyList, payinOrders, transfers } from "../db/schema";
import { applyPayinEvent, type PayinCtx } from "./service";
import { canTransition, type PayinStatus } from "./state";
import type { PayinOrderRow } from "./views";

export class OperatorError extends Error {}

function act(ctx: PayinCtx, orderNo: string, fn: (tx: Parameters<Parameters<typeof writeTx>[1]>[0], o: PayinOrderRow, now: number) => PayinOrderRow): PayinOrderRow {
  const now = ctx.clock.now();
  return writeTx(ctx.db, (tx) => {
    const o = tx.select().from(payinOrders).where(eq(payinOrders.orderNo, orderNo)).get();
    if (!o) throw new OperatorError(`no pay-in order ${orderNo}`);
    return fn(tx, o, now);
  });
}

export function freezeOrder(ctx: PayinCtx, orderNo: string): PayinOrderRow {
  return act(ctx, orderNo, (tx, o, now) => {
    if (!canTransition(o.status as PayinStatus, { type: "freeze" })) throw new OperatorError(`cannot freeze an order in ${o.status}`);
    return applyPayinEvent(tx, o, { type: "freeze" }, {}, now);
  });
}

export function cancelOrder(ctx: PayinCtx, orderNo: string): PayinOrderRow {
  return act(ctx, orderNo, (tx, o, now) => {
    if (!canTransition(o.status as PayinStatus, { type: "cancel" })) throw new OperatorError(`cannot cancel an order in ${o.status}`);
    return applyPayinEvent(tx, o, { type: "cancel" }, {}, now);
  });
}

/** A frozen order with a final payment settles: completed if paid on time, risk_settled if late. */
export function releaseOrder(ctx: PayinCtx, orderNo: string): PayinOrderRow {
  return act(ctx, orderNo, (tx, o, now) => {
    if (o.status !== "frozen_abnormal") throw new OperatorError(`cannot release an order in ${o.status}`);
    const t = o.transferId ? tx.select().from(transfers).where(eq(transfers.id, o.transferId)).get() : undefined;
    if (!t || t.status !== "confirmed") throw new OperatorError("the order has no final payment to release");
    const late = o.expireAt !== null && t.blockTime > o.expireAt;
    return applyPayinEvent(tx, o, { type: "release", late }, { completedAt: late ? null : now }, now);
  });
}

/**
 * An unmatched deposit (wrong amount, or after the late window) attached to an
 * order of the same address and token: the order is paid with that transfer.
 */
export function attachDeposit(ctx: PayinCtx, transferId: number, orderNo: string): PayinOrderRow {
  return act(ctx, orderNo, (tx, o, now) => {
    const t = tx.select().from(transfers).where(eq(transfers.id, transferId)).get();
    if (!t) throw new OperatorError(`no transfer ${transferId}`);
    if (t.disposition !== "unmatched" || t.payinOrderId) throw new OperatorError("only unmatched deposits can be attached");
    if (t.status === "reverted") throw new OperatorError("the transfer was reverted by a reorg");
    if (t.addressId !== o.addressId || t.token !== o.token) throw new OperatorError("the deposit went to another address or token");
    if (o.status !== "waiting_payment" && o.status !== "expired") throw new OperatorError(`cannot attach to an order in ${o.status}`);
    tx.update(transfers).set({ disposition: "attached", payinOrderId: o.id }).where(eq(transfers.id, t.id)).run();
    const paid = { transferId: t.id, paidAmount: t.amount, txHash: t.txHash, fromAddress: t.fromAddress, confirmations: t.confirmations };
    const final = t.status === "confirmed";
    if (o.expireAt !== null && t.blockTime > o.expireAt) {
      // Late: the order is (or becomes) expired and settles as risk_settled once the deposit is final.
      if (o.status === "waiting_payment") applyPayinEvent(tx, o, { type: "expire" }, {}, now);
      const row = tx.update(payinOrders).set({ ...paid, updatedAt: now }).where(eq(payinOrders.id, o.id)).returning().get();
      return final ? applyPayinEvent(tx, row, { type: "late_confirmed" }, { confirmedAt: now }, now) : row;
    }
    const row = applyPayinEvent(tx, o, { type: "paid" }, paid, now);
    return final ? applyPayinEvent(tx, row, { type: "confirmations", count: 1, required: 1 }, { confirmedAt: now }, now) : row;
  });
}

export function denySender(ctx: PayinCtx, chain: string, address: string, reason: string | null = null): void {
  ctx.db.insert(denyList).values({ chain, address, reason, createdAt: ctx.clock.now() }).onConflictDoNothing().run();
}

export function undenySender(ctx: PayinCtx, chain: string, address: string): void {
  ctx.db.delete(denyList).where(and(eq(denyList.chain, chain), eq(denyList.address, address))).run();
}
