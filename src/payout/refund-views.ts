// What merchants see of a refund (DESIGN 20): the view and its callback payload.
import type { Static } from "@sinclair/typebox";
import type { refunds } from "../db/schema";
import { iso } from "../lib/clock";
import { amountOf } from "../orders/amount";
import type { RefundCallbackPayload, RefundView } from "./refund-schemas";

export type RefundRow = typeof refunds.$inferSelect;
export type RefundBody = Static<typeof RefundView>;
export type RefundCallbackFields = Omit<Static<typeof RefundCallbackPayload>, "eventId" | "eventTime">;

export function refundView(r: RefundRow): RefundBody {
  return {
    refundNo: r.refundNo,
    orderNo: r.orderNo ?? "",
    amount: amountOf(r, r.amount)!,
    toAddress: r.toAddress,
    status: r.status,
    refundUrl: r.refundUrl,
    payoutOrderNo: r.payoutOrderNo,
    txHash: r.txHash,
    createdAt: iso(r.createdAt)!,
  };
}

export function refundCallbackPayload(r: RefundRow, merchantUid: string): RefundCallbackFields {
  return { merchantUid, businessType: "refund", ...refundView(r) };
}
