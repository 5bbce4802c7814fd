// The refund API's bodies and views (DESIGN 20), as OpenAPI publishes them.
import { Type as T } from "@sinclair/typebox";
import { AmountField, IdentifierField, UrlField } from "../orders/fields";

export const CreateRefundBody = T.Object({
  refundNo: IdentifierField(64, { description: "Merchant refund number, 1-64 characters, unique per order: the same body returns the same refund, another body is 55003" }),
  amount: AmountField,
  toAddress: T.Optional(
    T.String({ minLength: 1, maxLength: 128, description: "The payer's address on the order's chain; omitted: the payer gives it at `refundUrl`", errorMessage: "must be an address string" }),
  ),
  notifyUrl: T.Optional(UrlField),
});


export const RefundView = T.Object({
  refundNo: T.String(),
  orderNo: T.String(),
  amount: T.String({ description: "decimal string" }),
  toAddress: T.Union([T.String(), T.Null()], { description: "null while awaiting_address" }),
  status: T.String(),
  refundUrl: T.Union([T.String(), T.Null()], { description: "The payer's page for the address (refunds created without toAddress), else null" }),
  payoutOrderNo: T.Union([T.String(), T.Null()], { description: "The payout order that sends the refund, once there is an address" }),
  txHash: T.Union([T.String(), T.Null()], { description: "Present once broadcast" }),
  createdAt: T.String({ format: "date-time" }),
});

export const RefundList = T.Object({ refunds: T.Array(RefundView) });

/** Refund callback body: the view, merchantUid and businessType "refund" (the outbox adds eventId, eventTime). */
export const RefundCallbackPayload = T.Object({
  merchantUid: T.String(),
  businessType: T.String({ description: "`refund`" }),
  refundNo: T.String(),
  orderNo: T.String(),
  amount: T.String({ description: "decimal string" }),
  toAddress: T.Union([T.String(), T.Null()]),
  status: T.String(),
  refundUrl: T.Union([T.String(), T.Null()]),
  payoutOrderNo: T.Union([T.String(), T.Null()]),
  txHash: T.Union([T.String(), T.Null()]),
  createdAt: T.String({ format: "date-time" }),
  eventId: T.String(),
  eventTime: T.String({ format: "date-time" }),
});

