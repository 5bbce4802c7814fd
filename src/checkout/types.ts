// What the hosted pages need from the rest of the gateway. The pages only ever
// see these views, so nothing private (keys, other orders) can reach them.
import type { OnceDeps } from "../once/once";
import type { ChainCode, TokenSymbol } from "../chains/types";
import type { TxHashResult } from "../payin/tx-hash";

/** The 8 pay-in states of spec 3.1 (the pay-in state machine owns them). */
export { PAYIN_STATUSES, type PayinStatus } from "../payin/state";
import type { PayinStatus } from "../payin/state";

export interface CheckoutOrderView {
  merchantName: string;
  orderNo: string;
  merchantOrderNo: string;
  chainCode: ChainCode;
  tokenSymbol: TokenSymbol;
  /** Decimal string, 6+ fraction digits. */
  amount: string;
  paidAmount: string | null;
  address: string;
  paymentUri: string;
  status: PayinStatus;
  /** ISO 8601; null for orders without expiry (exclusive deposits). */
  expireAt: string | null;
  confirmations: number;
  requiredConfirmations: number;
  txHash: string | null;
  createdAt: string;
  completedAt: string | null;
  /** Where the paid page's "Return to …" link goes (the merchant's redirectUrl), if any. */
  redirectUrl?: string | null;
  /** An invoice's order: the invoice page, linked as "Change network" while nothing was paid. */
  invoiceUrl?: string | null;
  /** frozen_abnormal, risk_settled: why the money is on hold (src/payin/hold.ts). */
  holdReason?: "short" | "over" | "late" | "operator" | null;
  /** An invoice's order: its price, e.g. "71.00 CNY" (the amount above is that price in tokens). */
  invoicePrice?: string | null;
  /** A cancelled order's latest refund (the guided "Refund all", issue 36), if any. */
  refund?: CheckoutRefundView | null;
}

/**
 * What the payer's page of a cancelled order says of its latest refund: on its way (sending),
 * waiting for the payer's address, sent, or failed (nothing sent; never "on its way"); and its page.
 */
export interface CheckoutRefundView {
  state: "on_its_way" | "awaiting_address" | "sent" | "failed";
  /** "12.41 USDC" */
  amount: string;
  /** The refund page (relative), or null for a refund made before every refund had one. */
  url: string | null;
}

/** One network an invoice's payer may choose (DESIGN 18). */
export interface InvoiceNetworkView {
  /** "CHAIN:TOKEN", posted back when chosen. */
  value: string;
  chainCode: ChainCode;
  tokenSymbol: TokenSymbol;
  /** "<chain label> <token>", e.g. "TRON USDT": the button's name. */
  label: string;
}

/** The invoice statuses (src/invoices/status.ts). */
export type InvoicePageStatus = "open" | "paid" | "frozen_abnormal" | "risk_settled" | "expired" | "cancelled";

export interface InvoicePageView {
  merchantName: string;
  invoiceNo: string;
  /** Decimal string in priceCurrency. */
  priceAmount: string;
  priceCurrency: string;
  description: string | null;
  status: InvoicePageStatus;
  /** ISO 8601. */
  expireAt: string;
  networks: InvoiceNetworkView[];
  /** The chosen network's order, if any: its checkout token, "CHAIN:TOKEN" and whether it may still change. */
  current: { checkoutToken: string; network: string; changeable: boolean } | null;
}

/** Why a network choice was refused (src/payin/invoice-network.ts ChoiceProblem). */
export type InvoiceChoiceProblem = "closed" | "not_offered" | "payment_detected" | "no_rate" | "busy" | "amount_limits" | "too_many";

/** The invoice side of the hosted pages; absent where invoices are not served. */
export interface InvoiceDeps {
  findInvoice(token: string): Promise<InvoicePageView | null>;
  /** Creates (or switches to) the pay-in of `network`; its checkout token, or why not. */
  chooseNetwork(token: string, network: string): Promise<{ checkoutToken: string } | { problem: InvoiceChoiceProblem }>;
}

/** A refund as its payer's page shows it (DESIGN 20). */
export interface RefundPageView {
  merchantName: string;
  orderNo: string | null;
  chainCode: ChainCode;
  tokenSymbol: TokenSymbol;
  /** Decimal string. */
  amount: string;
  /** awaiting_address, submitted, broadcasted, confirmed or failed. */
  status: string;
  toAddress: string | null;
  /** The refund's transaction once broadcast. */
  txHash?: string | null;
}

/** Why the payer's address was refused. */
export type RefundProblem = "mismatch" | "invalid" | "own" | "unavailable";

/** The refund side of the hosted pages. */
export interface RefundDeps {
  findRefund(token: string): Promise<RefundPageView | null>;
  /** Records the payer's address and starts sending; or why not. */
  giveAddress(token: string, address: string): Promise<{ ok: true } | { problem: RefundProblem }>;
}

export interface DepositEntryView {
  amount: string;
  status: PayinStatus;
  txHash: string | null;
  createdAt: string;
}

export interface DepositView {
  merchantName: string;
  chainCode: ChainCode;
  tokenSymbol: TokenSymbol;
  address: string;
  /** Wallet-launch URI without an amount. */
  paymentUri: string;
  label: string | null;
  recentDeposits: DepositEntryView[];
}

export interface CheckoutDeps {
  findOrder(token: string): Promise<CheckoutOrderView | null>;
  findDeposit(token: string): Promise<DepositView | null>;
  /** Sandbox only: send the exact amount to the order's address through the sandbox chain. */
  simulatePayment?(token: string): Promise<void>;
  sandbox: (chain: ChainCode) => boolean;
  /** Server clock, ms since epoch (sent to the page so countdowns survive client clock skew). */
  now(): number;
  /** How often the page polls its status endpoint; default 2000 ms. */
  pollIntervalMs?: number;
  /** Invoices (DESIGN 18): the page where the payer picks the network. */
  invoices?: InvoiceDeps;
  /** Refunds (DESIGN 20): the page where the payer gives the address. */
  refunds?: RefundDeps;
  /** The client address of a request (server.trusted_proxies believed): the invoice page's per-client limit. */
  clientIp?(request: Request): string | null;
  /** One-time form tokens (src/once/once.ts): the refund form sent twice gives the address once. */
  forms?: OnceDeps;
  /**
   * "I have paid" (DESIGN 25): the payer's transaction hash, read from the chain at once and
   * credited when it pays the order; what was found. `request` names the client for the rate limit.
   */
  checkTxHash?(token: string, txHash: string, request: Request): Promise<TxHashPageAnswer>;
  /** Where lookup and simulation failures go (the payer only sees a friendly page); default console.error. */
  onError?(context: string, err: unknown): void;
}

/** What the hosted page says to a transaction hash (payin/tx-hash.ts TX_HASH_RESULTS, and the page's own refusals). */
export type TxHashPageAnswer = TxHashResult | "malformed" | "rate_limited" | "unavailable";
