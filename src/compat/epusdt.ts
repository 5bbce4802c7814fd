// The epusdt protocol (DESIGN 19; the epusdt wiki's API): create-transaction and check-status,
// always HTTP 200 with `{status_code, message, data, request_id}`, status_code 200 or one of
// epusdt's own codes. Handlers: parse → service (./service.ts) → view.
import { compatSignatureOk } from "../lib/compat-signing";
import { Big } from "../lib/money";
import { amountOf } from "../orders/amount";
import { compatSecret } from "../merchants/compat-keys";
import { findMerchantByUid } from "../merchants/service";
import { compatPayment, CompatProblem, createCompatOrder, findCompatOrder, type CompatOrder, type CompatOrderInput, type CompatProblemKind } from "./service";
import { bodyParams, ParamsError, type Params } from "./params";
import { tokenNetwork, tradeTypeNetwork } from "./networks";
import type { CompatDeps } from "./routes";

/** epusdt's status codes and its own words for them (src/util/constant/errno.go). */
export const EPUSDT_MESSAGES = {
  400: "系统错误",
  401: "签名认证错误",
  10002: "支付交易已存在，请勿重复创建",
  10003: "无可用钱包地址，无法发起支付",
  10004: "支付金额有误, 无法满足最小支付单位",
  10005: "无可用金额通道",
  10006: "汇率计算错误",
  10008: "订单不存在",
  10009: "无法解析请求参数",
} as const;
export type EpusdtCode = keyof typeof EPUSDT_MESSAGES;

const CODE_OF: Record<CompatProblemKind, EpusdtCode> = { invalid: 400, reused: 10002, no_wallet: 10003, amount: 10004, busy: 10005, rate: 10006, unsupported: 400 };

export class EpusdtError extends Error {
  constructor(
    readonly code: EpusdtCode,
    readonly detail?: string,
  ) {
    super(detail ?? EPUSDT_MESSAGES[code]);
  }
}

function envelope(d: CompatDeps, req: Request, status_code: number, message: string, data: unknown): Response {
  const request_id = d.requestId(req) ?? "";
  return new Response(JSON.stringify({ status_code, message, data, request_id }), {
    status: 200,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...(request_id ? { "x-request-id": request_id } : {}) },
  });
}

export function epusdtOk(d: CompatDeps, req: Request, data: unknown): Response {
  return envelope(d, req, 200, "success", data);
}

/** Every failure, whatever threw it: epusdt's shape, never the merchant API's or a 500. */
export function epusdtFailure(d: CompatDeps, req: Request, e: unknown): Response {
  let err: EpusdtError;
  if (e instanceof EpusdtError) err = e;
  else if (e instanceof CompatProblem) err = new EpusdtError(CODE_OF[e.kind], e.message);
  else if (e instanceof ParamsError) err = new EpusdtError(10009, e.message);
  else {
    d.failed("epusdt request failed", req, e);
    err = new EpusdtError(400, d.storageFault(e) ? "storage unavailable, try again shortly" : undefined);
  }
  return envelope(d, req, err.code, EPUSDT_MESSAGES[err.code] + (err.detail ? `: ${err.detail}` : ""), null);
}

const REQUIRED = ["order_id", "amount", "notify_url", "signature"] as const;

/** The number epusdt writes for a decimal (its JSON has float64 amounts). */
const num = (d: string) => Number(new Big(d).toFixed());

export function createTransactionView(c: CompatOrder) {
  return {
    trade_id: c.order.orderNo,
    order_id: c.order.merchantOrderNo,
    amount: num(c.compat.priceAmount),
    actual_amount: num(amountOf(c.order, c.order.amount)!),
    token: c.order.address,
    expiration_time: Math.floor((c.order.expireAt ?? c.order.createdAt) / 1000),
    payment_url: "", // set by the handler (the checkout link)
  };
}

/**
 * The network the plugin selected (DESIGN 24): BEpusdt's `trade_type`, or `token` + `network`
 * (GMPay's names or chain codes); undefined: [compat] payment. `currency` must be [compat] currency.
 */
function chosenNetwork(d: CompatDeps, p: Params): string | undefined {
  const want = compatPayment(d.ctx);
  if (p.currency && p.currency.toUpperCase() !== want.currency.toUpperCase()) throw new EpusdtError(400, `currency ${p.currency} is not offered; this gateway prices in ${want.currency}`);
  if (p.trade_type) return tradeTypeNetwork(d.ctx, p.trade_type);
  if (p.token && p.network) return tokenNetwork(d.ctx, p.token, p.network);
  // One of the two alone: the token on [compat] payment's chain, or [compat] payment's token on that network.
  if (p.token) return tokenNetwork(d.ctx, p.token, want.chain);
  if (p.network) return tokenNetwork(d.ctx, want.token, p.network);
  return undefined;
}

/** The shop's request, verified: its merchant, and the order it asks for. */
async function verifiedCreate(d: CompatDeps, req: Request, merchantUid: string, required: readonly string[]) {
  const p = await bodyParams(req, d.ctx.config.server.max_body_bytes);
  const missing = required.filter((k) => !p[k]);
  if (missing.length) throw new EpusdtError(10009, `missing ${missing.join(", ")}`);
  const merchant = await findMerchantByUid(d.ctx.db, merchantUid);
  const secret = merchant ? compatSecret(d.ctx, merchant, "epusdt") : undefined;
  // An unknown merchant, or one without an epusdt token, cannot have signed anything.
  if (!merchant || !secret || !compatSignatureOk("epusdt", p, secret, p.signature!)) throw new EpusdtError(401);
  if (merchant.status !== "active") throw new EpusdtError(400, "merchant disabled");
  const network = chosenNetwork(d, p);
  if (!/^\d+(\.\d+)?$/.test(p.amount!)) throw new EpusdtError(10009, "amount must be a number");
  return { p, merchant, network };
}

/** The order fields every epusdt dialect sends, as the compatibility service takes them. */
function epusdtOrder(p: Params, network: string | undefined): CompatOrderInput {
  return {
    protocol: "epusdt",
    orderId: p.order_id!,
    price: new Big(p.amount!).toFixed(),
    notifyUrl: p.notify_url!,
    returnUrl: p.redirect_url || null,
    ...(network ? { network } : {}),
  };
}

export async function createTransaction(d: CompatDeps, req: Request, merchantUid: string): Promise<Response> {
  try {
    const { p, merchant, network } = await verifiedCreate(d, req, merchantUid, REQUIRED);
    const c = await createCompatOrder(d.ctx, merchant, epusdtOrder(p, network));
    return epusdtOk(d, req, { ...createTransactionView(c), payment_url: d.checkoutUrl(c.order.checkoutToken) });
  } catch (e) {
    return epusdtFailure(d, req, e);
  }
}

/** epusdt's order status: 1 waiting, 2 paid, 3 expired (closed without a shop success). */
export function epusdtStatus(payinStatus: string): 1 | 2 | 3 {
  if (payinStatus === "completed") return 2;
  if (payinStatus === "expired" || payinStatus === "cancelled" || payinStatus === "risk_settled") return 3;
  return 1;
}

export async function checkStatus(d: CompatDeps, req: Request, merchantUid: string, tradeId: string): Promise<Response> {
  try {
    const merchant = await findMerchantByUid(d.ctx.db, merchantUid);
    const c = merchant && merchant.epusdtTokenEnc ? await findCompatOrder(d.ctx.db, merchant.id, "epusdt", tradeId) : undefined;
    if (!c) throw new EpusdtError(10008);
    return epusdtOk(d, req, { trade_id: c.order.orderNo, status: epusdtStatus(c.order.status) });
  } catch (e) {
    return epusdtFailure(d, req, e);
  }
}

const GMPAY_REQUIRED = ["pid", "order_id", "currency", "amount", "notify_url", "signature"] as const;

/** GMPay's create answer (its CreateTransactionResponse): the address as receive_address, the token symbol as token. */
export function gmpayView(d: CompatDeps, c: CompatOrder) {
  const v = createTransactionView(c);
  return {
    trade_id: v.trade_id,
    order_id: v.order_id,
    amount: v.amount,
    currency: c.compat.priceCurrency,
    actual_amount: v.actual_amount,
    receive_address: v.token,
    token: c.order.token,
    status: epusdtStatus(c.order.status),
    expiration_time: v.expiration_time,
    payment_url: d.checkoutUrl(c.order.checkoutToken),
  };
}

/**
 * GMPay's epusdt fork (DESIGN 24): `POST …/payments/gmpay/v1/order/create-transaction` with
 * `pid`, `order_id`, `currency`, `amount`, `notify_url`, optional `token` + `network`,
 * `redirect_url`, `name`, `payment_type`, all signed. `pid` is the plugin's own setting: signed
 * and echoed in the callback; the merchant is the one in the path. Without token and network the
 * order is on [compat] payment (the fork would make a placeholder the payer completes).
 */
export async function createGmpayTransaction(d: CompatDeps, req: Request, merchantUid: string): Promise<Response> {
  try {
    const { p, merchant, network } = await verifiedCreate(d, req, merchantUid, GMPAY_REQUIRED);
    if (p.payment_type && p.payment_type.toLowerCase() === "epay") throw new EpusdtError(400, "payment_type Epay is not offered here; use the EPay endpoint /compat/epay/submit.php");
    const c = await createCompatOrder(d.ctx, merchant, { ...epusdtOrder(p, network), dialect: "gmpay", shopPid: p.pid!, ...(p.name ? { name: p.name } : {}) });
    return epusdtOk(d, req, gmpayView(d, c));
  } catch (e) {
    return epusdtFailure(d, req, e);
  }
}
