// OpenAPI 3.1 description of the merchant API, built from the route table the
// gateway mounts (merchant-api.ts) and the same TypeBox schemas that validate
// requests (src/payin/schemas.ts, src/payout/schemas.ts), so the reference
// cannot drift from what the gateway accepts.
import type { TSchema } from "@sinclair/typebox";
import { Type as T } from "@sinclair/typebox";
import { BindingDetailView, BindingView, CreateBindingBody, CreatePayinBody, PayinCallbackPayload, PayinOrderView, PayinTxHashBody, PayinTxHashView } from "../payin/schemas";
import { TX_HASH_RESULTS } from "../payin/tx-hash";
import { CreatePayoutBody, PayoutCallbackPayload, PayoutOrderView, SubmitPayoutBody } from "../payout/schemas";
import { ERRORS, type ErrorCode } from "../errors";
import { MERCHANT_ROUTES, type MerchantRoute } from "./merchant-api";
import { VERSION } from "../version";
import { PAYIN_STATUSES } from "../payin/state";
import { PAYOUT_STATUSES } from "../payout/state";
import { chainModules } from "../chains/registry";
import { CreateInvoiceBody, InvoiceCallbackPayload, InvoiceView } from "../invoices/schemas";
import { INVOICE_STATUSES } from "../invoices/status";
import { CreateRefundBody, RefundCallbackPayload, RefundList, RefundView } from "../payout/refund-schemas";
import { REFUND_STATUSES } from "../payout/refund-state";

export type OpenApiDoc = Record<string, unknown> & {
  info: { title: string; version: string; description: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
};

export interface Operation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  parameters?: Array<Record<string, unknown>>;
  requestBody?: Record<string, unknown>;
  responses: Record<string, Record<string, unknown>>;
  security: Array<Record<string, string[]>>;
  /** Every business code this endpoint can answer, in addition to the HTTP grouping. */
  "x-error-codes": number[];
}

/** Codes any signed request can get, whatever the endpoint. */
export const COMMON_CODES: ErrorCode[] = [10000, 10001, 10003, 10029, 20005, 20011, 20012, 20016, 20020, 51002];
/** Operations with a path parameter: an empty or unroutable one never reaches the handler. */
const PATH_PARAM_CODES: ErrorCode[] = [10002];

const SIGNING = `Every \`/openapi/\` request carries five headers: \`x-api-key\`, \`x-merchant-uid\`,
\`x-timestamp\` (13-digit milliseconds, within the configured tolerance of server time, 5 minutes by default,
either way), \`x-nonce\` (1-128 characters of \`A-Z a-z 0-9 _ -\`, never reused) and \`x-signature\`.
POST bodies are JSON with \`content-type: application/json\`.

The signature is lowercase hex HMAC-SHA256, keyed with the API key, over seven lines joined by \`\\n\`:

1. merchant UID
2. x-timestamp
3. x-nonce
4. method in upper case (\`GET\`, \`POST\`)
5. the path exactly as sent, still percent-encoded, without the query
6. the canonical query: pairs decoded, empty values dropped, sorted by key then value (UTF-16 code-unit order), each key and value \`encodeURIComponent\`-encoded, joined \`k=v\` with \`&\` (the strict RFC 3986 encoding, which also escapes \`!'()*\`, is accepted too)
7. the canonical body: the JSON body with object keys sorted at every depth, no whitespace, non-ASCII written raw; empty for GET

Checks run in this order: key and merchant (20005; a disabled merchant 51002; a client address outside the merchant's IP allowlist 20020), timestamp (20012),
nonce format (10001), signature (20011), nonce reuse (20016). Requests are rate-limited per merchant (429, code 10029).
On 20011, 20012 or 20016 build a new signed request; on a network error or a 5xx a limited retry is fine, each freshly signed.
When the gateway's storage is unavailable (disk full, I/O error, database file lost) every request answers 503 with code 10003
and a \`retry-after\` header: nothing was written; retry the same business request (freshly signed) after that many seconds.

Callbacks are POSTed to \`notifyUrl\` with \`x-callback-timestamp\`, \`x-callback-nonce\`, \`x-callback-signature\`
(lowercase hex HMAC-SHA256 with the API key over \`timestamp.nonce.rawBody\`), \`x-callback-signature-algorithm: HMAC-SHA256\`
and \`x-callback-signature-version: v1\`. Verify against the raw body bytes, in constant time, then answer 2xx.

Every failure has the body \`{code, message, data, requestId}\` and every response the header \`x-request-id\`.
The HTTP status follows from the code:

| code | HTTP | meaning |
|---|---|---|
${Object.entries(ERRORS)
  .map(([c, e]) => `| ${c} | ${e.status} | ${e.message} |`)
  .join("\n")}`;

/** A TypeBox schema as plain JSON Schema (TypeBox's symbols and our errorMessage hint dropped). */
export function jsonSchema(s: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(s), (k, v) => (k === "errorMessage" ? undefined : v));
}

const FailureBodySchema = T.Object(
  {
    code: T.Integer({ description: "Business error code (see the table)" }),
    message: T.String(),
    data: T.Union([T.Object({}, { additionalProperties: true }), T.Null()], {
      description: "Extra data; for 10001 `data.fields` maps each offending field to the reason",
    }),
    requestId: T.Union([T.String(), T.Null()], { description: "Server trace id; log it" }),
  },
  { description: "Body of every failure (spec 7)" },
);

/** The value sets TypeBox leaves as plain strings (the server checks them with their own codes, 31001-31003). */
export const ENUMS = {
  /** The registered chain modules (the product's three; a test may register one more). */
  get chainCode(): string[] {
    return chainModules().map((m) => m.code);
  },
  tokenSymbol: ["USDT", "USDC"],
  payinStatus: [...PAYIN_STATUSES],
  payoutStatus: [...PAYOUT_STATUSES],
  bindingStatus: ["active", "disabled"],
  failedStage: ["submit", "broadcast", "confirm"],
  mode: ["shared", "exclusive"],
  businessType: ["payin_order", "exclusive_deposit"],
  invoiceStatus: [...INVOICE_STATUSES],
  invoiceBusinessType: ["invoice"],
  refundStatus: [...REFUND_STATUSES],
  refundBusinessType: ["refund"],
  txHashResult: [...TX_HASH_RESULTS],
} as const;

/** Which value set a property takes, by schema and property name (`status` depends on the resource). */
const ENUM_OF: Record<string, Record<string, keyof typeof ENUMS>> = {
  "*": { chainCode: "chainCode", tokenSymbol: "tokenSymbol", failedStage: "failedStage", mode: "mode", businessType: "businessType" },
  PayinOrder: { status: "payinStatus" },
  PayinTxHashCheck: { result: "txHashResult" },
  "PayinTxHashCheck.order": { status: "payinStatus" },
  PayinCallbackPayload: { status: "payinStatus" },
  "ExclusiveBindingDetail.recentOrders": { status: "payinStatus" },
  ExclusiveBinding: { status: "bindingStatus" },
  ExclusiveBindingDetail: { status: "bindingStatus" },
  PayoutOrder: { status: "payoutStatus" },
  PayoutCallbackPayload: { status: "payoutStatus" },
  Invoice: { status: "invoiceStatus" },
  "Invoice.payment": { status: "payinStatus" },
  InvoiceCallbackPayload: { status: "invoiceStatus", businessType: "invoiceBusinessType" },
  "InvoiceCallbackPayload.payment": { status: "payinStatus" },
  Refund: { status: "refundStatus" },
  "RefundList.refunds": { status: "refundStatus" },
  RefundCallbackPayload: { status: "refundStatus", businessType: "refundBusinessType" },
};

/** Adds `enum` to the string (or string|null) properties named in ENUM_OF, at every depth. */
function withEnums(where: string, schema: Record<string, any>): Record<string, any> {
  const props = schema.properties as Record<string, Record<string, any>> | undefined;
  for (const [name, p] of Object.entries(props ?? {})) {
    const set = ENUM_OF[where]?.[name] ?? ENUM_OF["*"]![name];
    if (set) {
      const target = p.type === "string" ? p : (p.anyOf as Array<Record<string, any>> | undefined)?.find((b) => b.type === "string");
      if (target) target.enum = [...ENUMS[set]];
    }
    if (p.type === "array" && p.items) withEnums(`${where}.${name}`, p.items);
    else if (p.type === "object") withEnums(`${where}.${name}`, p);
    else for (const b of (p.anyOf as Array<Record<string, any>> | undefined) ?? []) if (b.type === "object") withEnums(`${where}.${name}`, b);
  }
  return schema;
}

const SCHEMAS = {
  CreatePayinOrder: CreatePayinBody,
  PayinOrder: PayinOrderView,
  SubmitPayinTxHash: PayinTxHashBody,
  PayinTxHashCheck: PayinTxHashView,
  CreateExclusiveBinding: CreateBindingBody,
  ExclusiveBinding: BindingView,
  ExclusiveBindingDetail: BindingDetailView,
  CreatePayoutOrder: CreatePayoutBody,
  SubmitPayoutOrder: SubmitPayoutBody,
  PayoutOrder: PayoutOrderView,
  Failure: FailureBodySchema,
  PayinCallbackPayload,
  PayoutCallbackPayload,
  CreateInvoice: CreateInvoiceBody,
  Invoice: InvoiceView,
  InvoiceCallbackPayload,
  CreateRefund: CreateRefundBody,
  Refund: RefundView,
  RefundList,
  RefundCallbackPayload,
} satisfies Record<string, TSchema>;

const ref = (name: keyof typeof SCHEMAS & string) => ({ $ref: `#/components/schemas/${name}` });

const AUTH_HEADERS = ["x-api-key", "x-merchant-uid", "x-timestamp", "x-nonce", "x-signature"] as const;
const SECURITY = [Object.fromEntries(AUTH_HEADERS.map((h) => [h, [] as string[]]))];

/** The name of a schema in components.schemas. */
export type SchemaName = keyof typeof SCHEMAS & string;

function queryParameters(s: TSchema): Array<Record<string, unknown>> {
  const props = (s as { properties?: Record<string, TSchema> }).properties ?? {};
  const required = new Set((s as { required?: string[] }).required ?? []);
  return Object.entries(props).map(([name, p]) => {
    const schema = jsonSchema(p);
    const set = ENUM_OF["*"]![name];
    if (set) schema.enum = [...ENUMS[set]];
    return { name, in: "query", required: required.has(name), description: schema.description, schema };
  });
}

function codesOf(e: MerchantRoute): ErrorCode[] {
  return [...new Set([...COMMON_CODES, ...(e.pathParam ? PATH_PARAM_CODES : []), ...e.codes])].sort((a, b) => a - b);
}

function responses(e: MerchantRoute): Operation["responses"] {
  const out: Operation["responses"] = {
    "200": { description: "Success: the resource itself, not wrapped", content: { "application/json": { schema: ref(e.result) } } },
  };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of codesOf(e)) {
    const st = ERRORS[c].status;
    byStatus.set(st, [...(byStatus.get(st) ?? []), c]);
  }
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: codes.map((c) => `${c} ${ERRORS[c].message}`).join("; "),
      content: {
        "application/json": {
          schema: ref("Failure"),
          examples: Object.fromEntries(
            codes.map((c) => [String(c), { summary: ERRORS[c].message, value: { code: c, message: ERRORS[c].message, data: null, requestId: "req_…" } }]),
          ),
        },
      },
    };
  }
  return out;
}

function operation(e: MerchantRoute): Operation {
  const parameters: Array<Record<string, unknown>> = [];
  if (e.pathParam) {
    parameters.push({ name: e.pathParam.name, in: "path", required: true, description: e.pathParam.description, schema: { type: "string", minLength: 1, maxLength: 128 } });
  }
  if (e.query) parameters.push(...queryParameters(e.query));
  const op: Operation = {
    operationId: e.operationId,
    summary: e.summary,
    description: e.description,
    tags: [e.tag],
    responses: responses(e),
    security: SECURITY,
    "x-error-codes": codesOf(e),
  };
  if (parameters.length) op.parameters = parameters;
  if (e.body) op.requestBody = { required: true, content: { "application/json": { schema: ref(e.body) } } };
  return op;
}

function callbackWebhook(name: "PayinCallbackPayload" | "PayoutCallbackPayload" | "InvoiceCallbackPayload" | "RefundCallbackPayload", summary: string) {
  const headers: Array<[string, string]> = [
    ["x-callback-timestamp", "Millisecond timestamp"],
    ["x-callback-nonce", "Random string, fresh per delivery"],
    ["x-callback-signature", "Lowercase hex HMAC-SHA256 with the API key over `timestamp.nonce.rawBody`"],
    ["x-callback-signature-algorithm", "`HMAC-SHA256`"],
    ["x-callback-signature-version", "`v1`"],
  ];
  return {
    post: {
      operationId: name,
      summary,
      description: "Sent to the order's notifyUrl. Any 2xx within the timeout is success; otherwise redelivered (3 deliveries at most). Deliveries may repeat: update idempotently.",
      parameters: headers.map(([h, d]) => ({ name: h, in: "header", required: true, description: d, schema: { type: "string" } })),
      requestBody: { required: true, content: { "application/json": { schema: ref(name) } } },
      responses: { "200": { description: "Any 2xx acknowledges the callback" } },
      // Sent by the gateway, authenticated by x-callback-signature (verified by the merchant), not by the API's headers.
      security: [],
    },
  };
}

/** The whole description; `serverUrl` is the gateway's public URL. */
export function buildOpenApiDoc(serverUrl: string): OpenApiDoc {
  const paths: OpenApiDoc["paths"] = {};
  for (const e of MERCHANT_ROUTES) (paths[e.path] ??= {})[e.method] = operation(e);
  const headerScheme = (name: string, description: string) => ({ type: "apiKey", in: "header", name, description });
  return {
    openapi: "3.1.0",
    info: {
      title: "stablegate merchant API",
      version: VERSION,
      description: SIGNING,
    },
    servers: [{ url: serverUrl }],
    tags: [
      { name: "Pay-in", description: "Orders a payer pays once" },
      { name: "Exclusive wallets", description: "Permanent deposit addresses per bindKey" },
      { name: "Payout", description: "Transfers from the merchant's addresses" },
      { name: "Invoices", description: "Prices in a currency; the payer picks the network" },
      { name: "Refunds", description: "Money of a paid order sent back to the payer, as a payout" },
    ],
    paths,
    webhooks: {
      payinCallback: callbackWebhook("PayinCallbackPayload", "Pay-in status callback"),
      payoutCallback: callbackWebhook("PayoutCallbackPayload", "Payout status callback"),
      invoiceCallback: callbackWebhook("InvoiceCallbackPayload", "Invoice status callback (businessType `invoice`)"),
      refundCallback: callbackWebhook("RefundCallbackPayload", "Refund status callback (businessType `refund`): on every change"),
    },
    components: {
      schemas: Object.fromEntries(Object.entries(SCHEMAS).map(([k, s]) => [k, withEnums(k, jsonSchema(s))])),
      securitySchemes: {
        "x-api-key": headerScheme("x-api-key", "The API key (`mch_…`); also the signing secret"),
        "x-merchant-uid": headerScheme("x-merchant-uid", "The merchant UID"),
        "x-timestamp": headerScheme("x-timestamp", "13-digit millisecond timestamp within the tolerance of server time"),
        "x-nonce": headerScheme("x-nonce", "1-128 characters of A-Z a-z 0-9 _ -, unique per request"),
        "x-signature": headerScheme("x-signature", "Lowercase hex HMAC-SHA256 of the signed text (see the description)"),
      },
    },
    "x-error-codes": Object.fromEntries(Object.entries(ERRORS).map(([c, e]) => [c, { status: e.status, message: e.message }])),
  };
}
