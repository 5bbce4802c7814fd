// The merchant API's route table (spec 4): one row per operation, read both by
// the Elysia mounting (merchantApiRoutes) and by the OpenAPI generator
// (openapi-doc.ts), so the mounted routes and the published paths cannot drift.
// openapi-doc.test.ts checks that they agree.
import { Elysia } from "elysia";
import type { TSchema } from "@sinclair/typebox";
import type { ErrorCode } from "../errors";
import type { AuthDeps } from "../auth/verify";
import type { PayoutCtx } from "../payout/service";
import type { RefundCtx } from "../payout/refunds";
import type { PayinCtx } from "../payin/service";
import type { PayoutExecutor } from "../payout/executor";
import { BindingDetailQuery } from "../payin/schemas";
import type { SchemaName } from "./openapi-doc";
import { payinHandlers } from "./routes/payin";
import { payoutHandlers } from "./routes/payout";
import { invoiceHandlers } from "./routes/invoices";
import { refundHandlers } from "./routes/refunds";
import type { InvoiceCtx } from "../invoices/service";

/** What the handlers need. */
export interface MerchantApiDeps {
  /** The pay-in and payout services' dependencies, and the public URL links are made with. */
  ctx: PayinCtx & PayoutCtx & InvoiceCtx & Pick<RefundCtx, "refundPayins"> & { publicUrl: string };
  auth: AuthDeps;
  executor: PayoutExecutor;
}

/** The part of Elysia's context the handlers read. */
export interface RouteInput {
  request: Request;
  params: Record<string, string>;
}

export type Handler = (c: RouteInput) => Response | Promise<Response>;

export interface MerchantRoute {
  method: "get" | "post";
  /** OpenAPI form: `{name}` for a path parameter. */
  path: string;
  operationId: string;
  summary: string;
  description: string;
  tag: "Pay-in" | "Exclusive wallets" | "Payout" | "Invoices" | "Refunds";
  pathParam?: { name: string; description: string };
  query?: TSchema;
  /** Request and response schemas, by their name in components.schemas. */
  body?: SchemaName;
  result: SchemaName;
  /** Business codes this operation can answer besides the common ones. */
  codes: ErrorCode[];
  handler: (d: MerchantApiDeps) => Handler;
}

const CHAIN_CODES_ERR: ErrorCode[] = [31001, 31002, 31003];

export const MERCHANT_ROUTES: MerchantRoute[] = [
  {
    method: "post",
    path: "/openapi/payin/orders",
    operationId: "createPayinOrder",
    summary: "Create pay-in order",
    description:
      "Creates an order the payer pays at `cashierUrl` or with `paymentUri`. Repeating a `merchantOrderNo` returns the existing order when every field matches, else 10001.",
    tag: "Pay-in",
    body: "CreatePayinOrder",
    result: "PayinOrder",
    codes: [...CHAIN_CODES_ERR, 40105, 51002],
    handler: payinHandlers.createPayinOrder,
  },
  {
    method: "get",
    path: "/openapi/payin/orders/{orderNo}",
    operationId: "getPayinOrder",
    summary: "Query pay-in order",
    description: "Final success is status `completed`.",
    tag: "Pay-in",
    pathParam: { name: "orderNo", description: "Platform order number returned at creation" },
    result: "PayinOrder",
    codes: [40108],
    handler: payinHandlers.getPayinOrder,
  },
  {
    method: "post",
    path: "/openapi/payin/orders/{orderNo}/tx-hash",
    operationId: "submitPayinTxHash",
    summary: "Check a payer's transaction hash",
    description:
      "For the merchant's support when a payer says they paid (DESIGN 25): the gateway reads that transaction from the order's chain at once and, when it moves the order's token to the order's address, records it as the scan would (deduplicated; the usual amount, lateness and finality rules). `result` says in plain words what it found: `credited`, `not_final` (completes once final), `late`, `not_found`, `pending`, `failed`, `wrong_address`, `wrong_token`, `no_token_transfer`, `not_this_order`, `already_paid`; it never names another order. A malformed hash is 10001. Rate-limited per order and per merchant (10029 with Retry-After).",
    tag: "Pay-in",
    pathParam: { name: "orderNo", description: "Platform order number returned at creation" },
    body: "SubmitPayinTxHash",
    result: "PayinTxHashCheck",
    codes: [40108],
    handler: payinHandlers.submitPayinTxHash,
  },
  {
    method: "post",
    path: "/openapi/payin/exclusive-bindings",
    operationId: "createExclusiveBinding",
    summary: "Create exclusive wallet",
    description: "Get-or-create by `bindKey`: creating again returns the existing address.",
    tag: "Exclusive wallets",
    body: "CreateExclusiveBinding",
    result: "ExclusiveBinding",
    codes: [...CHAIN_CODES_ERR],
    handler: payinHandlers.createExclusiveBinding,
  },
  {
    method: "get",
    path: "/openapi/payin/exclusive-bindings/{bindKey}",
    operationId: "getExclusiveBinding",
    summary: "Query exclusive wallet detail",
    description: "The binding with its stats, recent orders and recent transactions.",
    tag: "Exclusive wallets",
    pathParam: { name: "bindKey", description: "The merchant's bindKey (percent-encoded in the path)" },
    query: BindingDetailQuery,
    result: "ExclusiveBindingDetail",
    codes: [...CHAIN_CODES_ERR, 40002],
    handler: payinHandlers.getExclusiveBinding,
  },
  {
    method: "post",
    path: "/openapi/payout/orders",
    operationId: "createPayoutOrder",
    summary: "Create single payout order",
    description:
      "Creates a payout from one of the merchant's addresses; automatic submission is attempted right after. Repeating a `merchantOrderNo` returns the existing order when every field matches, else 10001.",
    tag: "Payout",
    body: "CreatePayoutOrder",
    result: "PayoutOrder",
    codes: [...CHAIN_CODES_ERR, 51004, 53001, 53002, 53003, 53005, 54003],
    handler: payoutHandlers.createPayoutOrder,
  },
  {
    method: "get",
    path: "/openapi/payout/orders/{orderNo}",
    operationId: "getPayoutOrder",
    summary: "Query single payout order",
    description: "Final success is `confirmed`; final failure is `failed`.",
    tag: "Payout",
    pathParam: { name: "orderNo", description: "Platform order number returned at creation" },
    result: "PayoutOrder",
    codes: [54001],
    handler: payoutHandlers.getPayoutOrder,
  },
  {
    method: "post",
    path: "/openapi/payout/orders/{orderNo}/submit",
    operationId: "submitPayoutOrder",
    summary: "Submit single payout order",
    description: "Retries submission of an order whose automatic submission failed; allowed only while its status is `submitted` (else 54002).",
    tag: "Payout",
    pathParam: { name: "orderNo", description: "Platform order number" },
    body: "SubmitPayoutOrder",
    result: "PayoutOrder",
    codes: [54001, 54002, 51004, 53003, 53005],
    handler: payoutHandlers.submitPayoutOrder,
  },
  {
    method: "post",
    path: "/openapi/invoices",
    operationId: "createInvoice",
    summary: "Create invoice",
    description:
      "A price in a currency (USD, EUR, CNY… or USDT/USDC); the payer picks the network at `invoiceUrl`, which creates the pay-in at priceAmount / rate (locked then). Repeating a `merchantOrderNo` returns the existing invoice when every field matches, else 10001. A fiat currency with no rate younger than `[rates] max_age` is 56001.",
    tag: "Invoices",
    body: "CreateInvoice",
    result: "Invoice",
    codes: [...CHAIN_CODES_ERR, 56001],
    handler: invoiceHandlers.createInvoice,
  },
  {
    method: "get",
    path: "/openapi/invoices/{invoiceNo}",
    operationId: "getInvoice",
    summary: "Query invoice",
    description: "Final success is status `paid`. `payment` is the chosen network's pay-in (null until the payer chooses).",
    tag: "Invoices",
    pathParam: { name: "invoiceNo", description: "Invoice number returned at creation (IV…)" },
    result: "Invoice",
    codes: [56002],
    handler: invoiceHandlers.getInvoice,
  },
  {
    method: "post",
    path: "/openapi/payin/orders/{orderNo}/refunds",
    operationId: "createRefund",
    summary: "Refund a pay-in order",
    description:
      "Sends money of a paid order (completed, risk_settled, frozen_abnormal with a paid amount, or cancelled by the back office's \"Refund all\" with its payment still the order's, so a failed refund can be sent again; else 55002) back, as a payout from the merchant's addresses holding the token on that chain, the order's receiving address first. `amount` at most the refundable amount: paid minus the refunds not failed (55001). `refundNo` is idempotent per order: the same body returns the same refund, another body is 55003. Without `toAddress` the refund is `awaiting_address` and `refundUrl` is a page where the payer enters an address on that chain. Refund callbacks (businessType refund) go to `notifyUrl`, else the order's notifyUrl, else the merchant's default callback URL. Refunds on a frozen_abnormal order count in its resolution: \"Refund the difference\" sends at most paid − amount − refunded, \"Refund all\" what is left, and accepting it as paid is refused once the refunds leave less than the amount kept. Balance errors are the payout's (53003, 53005).",
    tag: "Refunds",
    pathParam: { name: "orderNo", description: "Platform order number of the pay-in" },
    body: "CreateRefund",
    result: "Refund",
    codes: [40108, 55001, 55002, 55003, 54003, 53003, 53005, 51002, 51004],
    handler: refundHandlers.createRefund,
  },
  {
    method: "get",
    path: "/openapi/payin/orders/{orderNo}/refunds",
    operationId: "listRefunds",
    summary: "List an order's refunds",
    description: "Every refund of the order, oldest first. Final success is `confirmed`; final failure is `failed` (its amount is refundable again).",
    tag: "Refunds",
    pathParam: { name: "orderNo", description: "Platform order number of the pay-in" },
    result: "RefundList",
    codes: [40108],
    handler: refundHandlers.listRefunds,
  },
];

/** `/a/{b}` (OpenAPI) as `/a/:b` (Elysia). */
export const elysiaPath = (path: string) => path.replace(/\{([^}]+)\}/g, ":$1");

/** Mounts every row of the table. POST bodies are read raw: the signature covers their exact bytes. */
export function merchantApiRoutes(d: MerchantApiDeps) {
  const app = new Elysia();
  for (const r of MERCHANT_ROUTES) {
    const handle = r.handler(d);
    if (r.method === "post") app.post(elysiaPath(r.path), ({ request, params }) => handle({ request, params }), { parse: "none" });
    else app.get(elysiaPath(r.path), ({ request, params }) => handle({ request, params }));
  }
  return app;
}
