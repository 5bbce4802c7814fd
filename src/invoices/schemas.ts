// The invoice API's request and response schemas (DESIGN 18): they validate requests, type the
// views, and feed OpenAPI (src/http/openapi-doc.ts).
import { Type as T } from "@sinclair/typebox";
import { OrderNoField, TextField, UrlField } from "../orders/fields";

export const CreateInvoiceBody = T.Object({
  merchantOrderNo: OrderNoField,
  priceAmount: T.String({
    pattern: "^(0|[1-9]\\d*)(\\.\\d{1,6})?$",
    description: "Decimal string, > 0: at most 2 fractional digits for a fiat currency, 6 for USDT/USDC. JSON numbers are rejected.",
    examples: ["100.00"],
    errorMessage: "must be a decimal string with at most 6 fractional digits and no leading zeros",
  }),
  priceCurrency: T.String({
    pattern: "^[A-Z]{3,4}$",
    description: "USD, EUR, CNY, … (any currency the gateway's [rates] can price), or USDT/USDC",
    examples: ["CNY"],
    errorMessage: "must be an upper-case currency code such as USD, CNY or USDT",
  }),
  notifyUrl: T.Optional(UrlField),
  redirectUrl: T.Optional(T.String({ minLength: 1, maxLength: 2048, description: "http(s) URL the paid page links back to", errorMessage: "must be an http(s) URL" })),
  description: T.Optional(TextField(256, { min: 0, description: "Shown to the payer, at most 256 characters (code points)" })),
  payments: T.Optional(
    T.Array(T.String({ pattern: "^[A-Z0-9]{2,16}:[A-Z0-9]{2,16}$", errorMessage: 'must be "CHAIN:TOKEN", e.g. "TRON:USDT"' }), {
      minItems: 1,
      maxItems: 32,
      uniqueItems: true,
      description: 'Networks the payer may choose, as "CHAIN:TOKEN" (e.g. "TRON:USDT"); default every enabled pair',
      errorMessage: 'must be a non-empty list of distinct "CHAIN:TOKEN" strings',
    }),
  ),
  expireMinutes: T.Optional(T.Integer({ minimum: 5, maximum: 1440, description: "Minutes until the invoice expires, 5-1440; default payin.expire_after", errorMessage: "must be an integer from 5 to 1440" })),
});

const Ts = T.Union([T.String({ format: "date-time" }), T.Null()]);

export const InvoicePayment = T.Object(
  {
    orderNo: T.String({ description: "The pay-in order of the chosen network" }),
    chainCode: T.String(),
    tokenSymbol: T.String(),
    amount: T.String({ description: "decimal string: what the payer sends" }),
    rate: T.String({ description: "decimal string: units of priceCurrency per 1 token, locked when the network was chosen" }),
    paidAmount: T.Union([T.String(), T.Null()], { description: "decimal string: what arrived" }),
    txHash: T.Union([T.String(), T.Null()]),
    status: T.String({ description: "the pay-in order's status" }),
  },
  { description: "The chosen network's pay-in; null until the payer chooses" },
);

const InvoiceFields = {
  invoiceNo: T.String(),
  merchantOrderNo: T.String(),
  priceAmount: T.String({ description: "decimal string (2 fractional digits for fiat, 6 for USDT/USDC)" }),
  priceCurrency: T.String(),
  description: T.Union([T.String(), T.Null()]),
  status: T.String({ description: "`paid` is final success" }),
  invoiceUrl: T.String({ description: "The hosted page where the payer picks the network and pays" }),
  payments: T.Array(T.String(), { description: '"CHAIN:TOKEN" the payer may choose from' }),
  expireAt: T.String({ format: "date-time" }),
  createdAt: T.String({ format: "date-time" }),
  paidAt: Ts,
  payment: T.Union([InvoicePayment, T.Null()]),
};

export const InvoiceView = T.Object({
  ...InvoiceFields,
  redirectUrl: T.Optional(T.String({ description: "Present when given at creation" })),
});

/** Invoice callback body: the view plus merchantUid and businessType "invoice" (DESIGN 18). */
export const InvoiceCallbackPayload = T.Object({
  merchantUid: T.String(),
  businessType: T.Literal("invoice"),
  ...InvoiceFields,
  eventId: T.String({ description: "stable across redeliveries of one event" }),
  eventTime: T.String({ format: "date-time" }),
});
