// What merchants see: the payout object (spec 2.3) and its callback payload (spec 6.3).
import type { payoutOrders } from "../db/schema";
import { iso } from "../lib/clock";
import { amountOf } from "../orders/amount";

export type PayoutOrderRow = typeof payoutOrders.$inferSelect;

export function payoutView(o: PayoutOrderRow) {
  return {
    orderNo: o.orderNo,
    merchantOrderNo: o.merchantOrderNo,
    chainCode: o.chain,
    tokenSymbol: o.token,
    fromAddress: o.fromAddress,
    toAddress: o.toAddress,
    amount: amountOf(o, o.amount)!,
    fee: amountOf(o, o.fee)!,
    deleteSourceAfterSuccess: o.deleteSourceAfterSuccess,
    // Spec 2.3: present once broadcast (a signed but unsent transaction is not on chain).
    txHash: o.broadcastedAt !== null ? o.txHash : null,
    status: o.status,
    failedStage: o.failedStage,
    lastError: o.lastError,
    createdAt: iso(o.createdAt)!,
    submittedAt: iso(o.submittedAt),
    broadcastedAt: iso(o.broadcastedAt),
    confirmedAt: iso(o.confirmedAt),
    failedAt: iso(o.failedAt),
  };
}

export function payoutCallbackPayload(o: PayoutOrderRow, merchantUid: string) {
  return {
    merchantUid,
    orderNo: o.orderNo,
    merchantOrderNo: o.merchantOrderNo,
    chainCode: o.chain,
    tokenSymbol: o.token,
    fromAddress: o.fromAddress,
    toAddress: o.toAddress,
    txHash: o.broadcastedAt !== null ? o.txHash : null,
    amount: amountOf(o, o.amount),
    status: o.status,
    ...(o.status === "failed" ? { failedStage: o.failedStage } : {}),
  };
}
