import { Type as T } from "@sinclair/typebox";
import { AmountField, ChainCodeField, OrderNoField, TextField, TokenSymbolField, UrlField } from "../orders/fields";

export const CreatePayoutBody = T.Object({
  chainCode: ChainCodeField,
  tokenSymbol: TokenSymbolField,
  fromAddress: T.Optional(T.String({ minLength: 1, maxLength: 128, errorMessage: "must be an address string" })),
  toAddress: T.String({ minLength: 1, maxLength: 128, errorMessage: "must be an address string" }),
  amount: AmountField,
  deleteSourceAfterSuccess: T.Optional(T.Boolean({ description: "JSON boolean only; strings are rejected", errorMessage: "must be a JSON boolean" })),
  merchantOrderNo: OrderNoField,
  notifyUrl: UrlField,
});

export const SubmitPayoutBody = T.Object({
  remark: T.Optional(TextField(255, { min: 0, description: "Optional remark, at most 255 characters (code points)" })),
});

const Ts = T.Union([T.String({ format: "date-time" }), T.Null()]);

export const PayoutOrderView = T.Object({
  orderNo: T.String(),
  merchantOrderNo: T.String(),
  chainCode: T.String(),
  tokenSymbol: T.String(),
  fromAddress: T.String(),
  toAddress: T.String(),
  amount: T.String(),
  fee: T.String(),
  deleteSourceAfterSuccess: T.Boolean(),
  txHash: T.Union([T.String(), T.Null()]),
  status: T.String(),
  failedStage: T.Union([T.String(), T.Null()]),
  lastError: T.Union([T.String(), T.Null()]),
  createdAt: T.String({ format: "date-time" }),
  submittedAt: Ts,
  broadcastedAt: Ts,
  confirmedAt: Ts,
  failedAt: Ts,
});

/** Payout callback body (spec 6.3), as src/payout/views.ts payoutCallbackPayload writes it. */
export const PayoutCallbackPayload = T.Object({
  merchantUid: T.String(),
  orderNo: T.String(),
  merchantOrderNo: T.String(),
  chainCode: T.String(),
  tokenSymbol: T.String(),
  fromAddress: T.String(),
  toAddress: T.String(),
  txHash: T.Union([T.String(), T.Null()]),
  amount: T.String({ description: "decimal string" }),
  status: T.String({ description: "payout status; `confirmed` final success, `failed` final failure" }),
  failedStage: T.Optional(T.Union([T.String(), T.Null()], { description: "`submit`, `broadcast` or `confirm`" })),
  eventId: T.String(),
  eventTime: T.String({ format: "date-time" }),
});
