import { Type as T } from "@sinclair/typebox";
import { AmountField, ChainCodeField, IdentifierField, OrderNoField, TokenSymbolField, UrlField } from "../orders/fields";

export const CreatePayinBody = T.Object({
  chainCode: ChainCodeField,
  tokenSymbol: TokenSymbolField,
  merchantOrderNo: OrderNoField,
  amount: AmountField,
  notifyUrl: UrlField,
  redirectUrl: T.Optional(
    T.String({
      minLength: 1,
      maxLength: 2048,
      description: "Optional (not in the spec): http(s) URL the paid checkout page links back to (\"Return to …\"). Validated like notifyUrl.",
      errorMessage: "must be an http(s) URL",
    }),
  ),
});

export const CreateBindingBody = T.Object({
  chainCode: ChainCodeField,
  tokenSymbol: TokenSymbolField,
  // "." and ".." would be rewritten as path segments in GET /exclusive-bindings/{bindKey}.
  bindKey: IdentifierField(128, { description: "Merchant-side key, 1-128 characters (code points), well-formed Unicode, not . or ..", notDots: true }),
  label: T.Optional(IdentifierField(128, { min: 0, description: "Optional remark, at most 128 characters (code points)" })),
  notifyUrl: T.Optional(UrlField),
});

export const BindingDetailQuery = T.Object({
  chainCode: ChainCodeField,
  tokenSymbol: TokenSymbolField,
  recentLimit: T.Optional(T.String({ pattern: "^([1-9]|1[0-9]|20)$", description: "Integer 1-20, default 10", errorMessage: "must be an integer from 1 to 20" })),
});

const Ts = T.Union([T.String({ format: "date-time" }), T.Null()]);

export const PayinOrderView = T.Object({
  orderNo: T.String(),
  merchantOrderNo: T.String(),
  bindKey: T.Optional(T.String()),
  chainCode: T.String(),
  tokenSymbol: T.String(),
  amount: T.String(),
  paidAmount: T.Union([T.String(), T.Null()]),
  address: T.String(),
  cashierUrl: T.String(),
  paymentUri: T.String(),
  redirectUrl: T.Optional(T.String({ description: "Present when given at creation" })),
  status: T.String(),
  txHash: T.Union([T.String(), T.Null()]),
  fromAddress: T.Union([T.String(), T.Null()]),
  confirmations: T.Integer(),
  expireAt: Ts,
  createdAt: T.String({ format: "date-time" }),
  detectedAt: Ts,
  confirmedAt: Ts,
  completedAt: Ts,
});

/** POST /openapi/payin/orders/{orderNo}/tx-hash (DESIGN 25). */
export const PayinTxHashBody = T.Object({
  txHash: T.String({ minLength: 1, maxLength: 200, description: "The payer's transaction hash (EVM 0x + 64 hex, TRON 64 hex, SOL base58 signature)", errorMessage: "must be a transaction hash" }),
});

/** What the gateway found for the hash, from this order's point of view (payin/tx-hash.ts TX_HASH_RESULTS). */
export const PayinTxHashView = T.Object({
  result: T.String({ description: "credited | not_final | late | not_found | pending | failed | wrong_address | wrong_token | no_token_transfer | not_this_order | already_paid" }),
  message: T.String({ description: "The result in plain words" }),
  order: PayinOrderView,
});

export const BindingView = T.Object({
  bindingId: T.String(),
  chainCode: T.String(),
  tokenSymbol: T.String(),
  bindKey: T.String(),
  label: T.Union([T.String(), T.Null()]),
  addressId: T.String(),
  address: T.String(),
  addressType: T.Literal("exclusive"),
  notifyUrl: T.Union([T.String(), T.Null()]),
  status: T.String(),
  depositUrl: T.String(),
});

/** 4.4 response: the binding plus stats and the recent lists (shape of bindingDetail in ./bindings.ts). */
export const BindingDetailView = T.Composite([
  BindingView,
  T.Object({
    stats: T.Object({
      totalOrders: T.Integer(),
      completedOrders: T.Integer(),
      totalPaidAmount: T.String({ description: "decimal string" }),
      completedPaidAmount: T.String({ description: "decimal string" }),
      lastOrderAt: Ts,
      lastCompletedAt: Ts,
    }),
    recentOrders: T.Array(
      T.Object({
        orderNo: T.String(),
        merchantOrderNo: T.String(),
        amount: T.Union([T.String(), T.Null()]),
        paidAmount: T.Union([T.String(), T.Null()]),
        status: T.String(),
        txHash: T.Union([T.String(), T.Null()]),
        fromAddress: T.Union([T.String(), T.Null()]),
        createdAt: Ts,
        completedAt: Ts,
      }),
    ),
    recentTransactions: T.Array(
      T.Object({
        txHash: T.String(),
        logIndex: T.Integer(),
        fromAddress: T.String(),
        toAddress: T.String(),
        amount: T.String({ description: "decimal string" }),
        blockNumber: T.Integer(),
        blockTime: Ts,
        confirmations: T.Integer(),
        status: T.String(),
        orderNo: T.Union([T.String(), T.Null()]),
      }),
    ),
  }),
]);

/** Pay-in callback body (spec 6.3), as src/payin/views.ts payinCallbackPayload writes it. */
export const PayinCallbackPayload = T.Object({
  merchantUid: T.String(),
  orderNo: T.String(),
  merchantOrderNo: T.String(),
  mode: T.String({ description: "`shared` (ordinary order) or `exclusive` (deposit to an exclusive wallet)" }),
  businessType: T.String({ description: "`payin_order` or `exclusive_deposit`" }),
  bindKey: T.Union([T.String(), T.Null()]),
  expectedAmount: T.Union([T.String(), T.Null()], { description: "decimal string" }),
  paidAmount: T.Union([T.String(), T.Null()], {
    description: "decimal string: what arrived (every digit kept). A different amount than expectedAmount comes with status frozen_abnormal (held for review)",
  }),
  chainCode: T.String(),
  tokenSymbol: T.String(),
  txHash: T.Union([T.String(), T.Null()]),
  fromAddress: T.Union([T.String(), T.Null()]),
  status: T.String({ description: "pay-in status; `completed` is final success" }),
  confirmations: T.Integer({ description: "confirmations of the paying transfer so far" }),
  eventId: T.String({ description: "stable across redeliveries of one event" }),
  eventTime: T.String({ format: "date-time" }),
});
