// Request and result types of the merchant API (spec 2-4, DESIGN 4-6).
// Standalone on purpose: the package ships without the gateway. A type test
// (types.test.ts) keeps these in step with the gateway's own schemas.

export type ChainCode = "TRON" | "BSC" | "SOL" | "ETH" | "POLYGON" | "ARBITRUM" | "BASE" | "OPTIMISM" | "AVALANCHE" | "XLAYER" | "PLASMA" | "TON";
export type TokenSymbol = "USDT" | "USDC";
/** Spec 3.1. `completed` is the only final success. */
export type PayinStatus = "waiting_payment" | "detected" | "confirming" | "completed" | "risk_settled" | "expired" | "frozen_abnormal" | "cancelled";
/** Spec 3.2. `confirmed` is final success, `failed` final failure. */
export type PayoutStatus = "submitted" | "broadcasted" | "confirmed" | "failed";
export type BindingStatus = "active" | "disabled";
/** Where a payout failed: never signed or broadcast, rejected by the node, or reverted/dropped. */
export type FailedStage = "submit" | "broadcast" | "confirm";
/** A decimal string such as "10.5" (never a JSON number). */
export type DecimalString = string;
/** ISO 8601 UTC with milliseconds. */
export type Timestamp = string;

export interface CreatePayinOrderInput {
  chainCode: ChainCode;
  tokenSymbol: TokenSymbol;
  merchantOrderNo: string;
  amount: DecimalString;
  notifyUrl: string;
  /** Optional (a stablegate extension): the paid checkout page links back here ("Return to …"). */
  redirectUrl?: string;
}

export interface PayinOrder {
  orderNo: string;
  merchantOrderNo: string;
  /** Present when the order came from an exclusive wallet. */
  bindKey?: string;
  chainCode: ChainCode;
  tokenSymbol: TokenSymbol;
  amount: DecimalString;
  paidAmount: DecimalString | null;
  address: string;
  cashierUrl: string;
  paymentUri: string;
  /** Present when given at creation. */
  redirectUrl?: string;
  status: PayinStatus;
  txHash: string | null;
  fromAddress: string | null;
  confirmations: number;
  expireAt: Timestamp | null;
  createdAt: Timestamp;
  detectedAt: Timestamp | null;
  confirmedAt: Timestamp | null;
  completedAt: Timestamp | null;
}

export interface CreateExclusiveBindingInput {
  chainCode: ChainCode;
  tokenSymbol: TokenSymbol;
  bindKey: string;
  label?: string;
  notifyUrl?: string;
}

export interface ExclusiveBinding {
  bindingId: string;
  chainCode: ChainCode;
  tokenSymbol: TokenSymbol;
  bindKey: string;
  label: string | null;
  addressId: string;
  address: string;
  addressType: "exclusive";
  notifyUrl: string | null;
  status: BindingStatus;
  /** Hosted page showing the address and its QR. */
  depositUrl: string;
}

export interface GetExclusiveBindingOptions {
  chainCode: ChainCode;
  tokenSymbol: TokenSymbol;
  /** 1-20, default 10. */
  recentLimit?: number | string;
}

export interface ExclusiveBindingDetail extends ExclusiveBinding {
  stats: {
    totalOrders: number;
    completedOrders: number;
    totalPaidAmount: DecimalString;
    completedPaidAmount: DecimalString;
    lastOrderAt: Timestamp | null;
    lastCompletedAt: Timestamp | null;
  };
  recentOrders: Array<{
    orderNo: string;
    merchantOrderNo: string;
    amount: DecimalString | null;
    paidAmount: DecimalString | null;
    status: PayinStatus;
    txHash: string | null;
    fromAddress: string | null;
    createdAt: Timestamp | null;
    completedAt: Timestamp | null;
  }>;
  recentTransactions: Array<{
    txHash: string;
    logIndex: number;
    fromAddress: string;
    toAddress: string;
    amount: DecimalString;
    blockNumber: number;
    blockTime: Timestamp | null;
    confirmations: number;
    status: string;
    orderNo: string | null;
  }>;
}

export interface CreatePayoutOrderInput {
  chainCode: ChainCode;
  tokenSymbol: TokenSymbol;
  /** Omit to let the gateway pick an address with enough balance. */
  fromAddress?: string;
  toAddress: string;
  amount: DecimalString;
  /** A JSON boolean; soft-deletes the source address after success. */
  deleteSourceAfterSuccess?: boolean;
  merchantOrderNo: string;
  notifyUrl: string;
}

export interface PayoutOrder {
  orderNo: string;
  merchantOrderNo: string;
  chainCode: ChainCode;
  tokenSymbol: TokenSymbol;
  fromAddress: string;
  toAddress: string;
  amount: DecimalString;
  fee: DecimalString;
  deleteSourceAfterSuccess: boolean;
  txHash: string | null;
  status: PayoutStatus;
  failedStage: FailedStage | null;
  lastError: string | null;
  createdAt: Timestamp;
  submittedAt: Timestamp | null;
  broadcastedAt: Timestamp | null;
  confirmedAt: Timestamp | null;
  failedAt: Timestamp | null;
}

export interface SubmitPayoutOrderInput {
  remark?: string;
}
export type SubmitPayoutResult = PayoutOrder;

/** Body of a pay-in callback (spec 6.3). */
export interface PayinCallback {
  merchantUid: string;
  orderNo: string;
  merchantOrderNo: string;
  mode: "shared" | "exclusive";
  businessType: "payin_order" | "exclusive_deposit";
  bindKey: string | null;
  expectedAmount: DecimalString | null;
  paidAmount: DecimalString | null;
  chainCode: ChainCode;
  tokenSymbol: TokenSymbol;
  txHash: string | null;
  fromAddress: string | null;
  status: PayinStatus;
  confirmations: number;
  /** Stable across redeliveries of one event. */
  eventId: string;
  eventTime: Timestamp;
}

/** Body of a payout callback (spec 6.3). */
export interface PayoutCallback {
  merchantUid: string;
  orderNo: string;
  merchantOrderNo: string;
  chainCode: ChainCode;
  tokenSymbol: TokenSymbol;
  fromAddress: string;
  toAddress: string;
  txHash: string | null;
  amount: DecimalString;
  status: PayoutStatus;
  failedStage?: FailedStage | null;
  eventId: string;
  eventTime: Timestamp;
}

/** Invoice status (DESIGN 18): follows the pay-in of the chosen network; `paid` is final success. */
export type InvoiceStatus = "open" | "paid" | "frozen_abnormal" | "risk_settled" | "expired" | "cancelled";

/** POST /openapi/invoices: a price in a currency; the payer picks the network on `invoiceUrl`. */
export interface CreateInvoiceInput {
  merchantOrderNo: string;
  /** At most 2 fractional digits for a fiat currency, 6 for USDT/USDC. */
  priceAmount: DecimalString;
  /** USD, EUR, CNY, … (what the gateway's [rates] can price), or USDT/USDC. */
  priceCurrency: string;
  notifyUrl?: string;
  redirectUrl?: string;
  description?: string;
  /** "CHAIN:TOKEN" entries, e.g. "TRON:USDT"; default every enabled pair. */
  payments?: string[];
  /** 5-1440; default the gateway's payin.expire_after. */
  expireMinutes?: number;
}

/** The chosen network's pay-in, with the rate locked when it was chosen. */
export interface InvoicePayment {
  orderNo: string;
  chainCode: ChainCode;
  tokenSymbol: TokenSymbol;
  amount: DecimalString;
  /** Units of priceCurrency per 1 token. */
  rate: DecimalString;
  paidAmount: DecimalString | null;
  txHash: string | null;
  status: PayinStatus;
}

export interface Invoice {
  invoiceNo: string;
  merchantOrderNo: string;
  priceAmount: DecimalString;
  priceCurrency: string;
  description: string | null;
  status: InvoiceStatus;
  invoiceUrl: string;
  payments: string[];
  expireAt: Timestamp;
  createdAt: Timestamp;
  paidAt: Timestamp | null;
  /** null until the payer chooses a network. */
  payment: InvoicePayment | null;
  redirectUrl?: string;
}

/** Body of an invoice callback: the invoice plus merchantUid and businessType "invoice". */
export interface InvoiceCallback extends Omit<Invoice, "redirectUrl"> {
  merchantUid: string;
  businessType: "invoice";
  eventId: string;
  eventTime: Timestamp;
}

/** Refund status (DESIGN 20): `confirmed` is final success, `failed` final failure. */
export type RefundStatus = "awaiting_address" | "submitted" | "broadcasted" | "confirmed" | "failed";

/** POST /openapi/payin/orders/{orderNo}/refunds */
export interface CreateRefundInput {
  /** 1-64 characters, unique per order: the same body returns the same refund, another body is 55003. */
  refundNo: string;
  /** At most the refundable amount: paid minus the refunds not failed (55001). */
  amount: DecimalString;
  /** The payer's address on the order's chain; omitted: the payer gives it at `refundUrl`. */
  toAddress?: string;
  notifyUrl?: string;
}

export interface Refund {
  refundNo: string;
  orderNo: string;
  amount: DecimalString;
  /** null while awaiting_address. */
  toAddress: string | null;
  status: RefundStatus;
  /** The payer's page for the address (refunds made without toAddress). */
  refundUrl: string | null;
  /** The payout order that sends the refund, once there is an address. */
  payoutOrderNo: string | null;
  txHash: string | null;
  createdAt: Timestamp;
}

export interface RefundList {
  refunds: Refund[];
}

/** Body of a refund callback: the refund plus merchantUid and businessType "refund". */
export interface RefundCallback extends Refund {
  merchantUid: string;
  businessType: "refund";
  eventId: string;
  eventTime: Timestamp;
}

/** What the gateway found for a payer's transaction hash, from the order's point of view (DESIGN 25). */
export type PayinTxHashResult =
  | "credited"
  | "not_final"
  | "late"
  | "not_found"
  | "pending"
  | "failed"
  | "wrong_address"
  | "wrong_token"
  | "no_token_transfer"
  | "not_this_order"
  | "already_paid";

/** POST /openapi/payin/orders/{orderNo}/tx-hash */
export interface SubmitPayinTxHashInput {
  txHash: string;
}

export interface PayinTxHashCheck {
  result: PayinTxHashResult;
  /** The result in plain words. */
  message: string;
  /** The order as it stands after the check. */
  order: PayinOrder;
}

/** The failure body of every error (spec 7). */
export interface FailureBody {
  code: number;
  message: string;
  data: Record<string, unknown> | null;
  requestId: string | null;
}
