// What merchants see: the payout object (spec 2.3) and its callback payload (spec 6.3).
import type { payoutOrders } from "../db/schema";
import { iso } from "../lib/clock";
import { amountOf } from "../orders/amount";
import type { Static } from "@sinclair/typebox";
import type { PayoutCallbackPayload, PayoutOrderView } from "./schemas";

export type PayoutOrderRow = typeof payoutOrders.$inferSelect;

/** The payout object as OpenAPI publishes it (./schemas.ts): a field on one side only fails typecheck. */
export type PayoutOrderBody = Static<typeof PayoutOrderView>;
/** The callback fields of spec 6.3 this module writes; the outbox adds eventId and eventTime. */
export type PayoutCallbackFields = Omit<Static<typeof PayoutCallbackPayload>, "eventId" | "eventTime">;

export function payoutView(o: PayoutOrderRow): PayoutOrderBody {
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

export function payoutCallbackPayload(o: PayoutOrderRow, merchantUid: string): PayoutCallbackFields {
  return {
    merchantUid,
    orderNo: o.orderNo,
    merchantOrderNo: o.merchantOrderNo,
    chainCode: o.chain,
    tokenSymbol: o.token,
    fromAddress: o.fromAddress,
    toAddress: o.toAddress,
    txHash: o.broadcastedAt !== null ? o.txHash : null,
    amount: amountOf(o, o.amount)!,
    status: o.status,
    ...(o.status === "failed" ? { failedStage: o.failedStage } : {}),
  };
}
