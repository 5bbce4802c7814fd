import { Type as T } from "@sinclair/typebox";
import { AmountField, ChainCodeField, OrderNoField, TokenSymbolField, UrlField } from "../http/fields";

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
  remark: T.Optional(T.String({ maxLength: 255, errorMessage: "must be a string of at most 255 characters" })),
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
