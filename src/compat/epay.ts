// EPay (易支付) `submit.php` (DESIGN 19): the shop sends the payer's browser here (GET or a POSTed
// form); a valid request answers 302 to the hosted checkout. A refused one answers a plain page
// saying why, with an HTTP status, and never a redirect: a bad signature is 401. The return
// link (the checkout's "Return to …" once paid) passes through here so the shop gets EPay's
// signed result on its return_url, as EPay sends it.
import { compatSign, compatSignatureOk } from "../lib/compat-signing";
import { compatSecret } from "../merchants/compat-keys";
import { findMerchantById, findMerchantByUid } from "../merchants/service";
import { COMPAT_PAID_STATUS, compatCallbackFields } from "../callbacks/compat";
import { CompatProblem, compatOrderByCheckoutToken, createCompatOrder, type CompatProblemKind } from "./service";
import { bodyParams, ParamsError, queryParams, type Params } from "./params";
import type { CompatDeps } from "./routes";

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export class EpayError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const STATUS_OF: Record<CompatProblemKind, number> = { invalid: 400, reused: 409, no_wallet: 503, amount: 422, busy: 503, rate: 422 };

export function epayPage(d: CompatDeps, req: Request, status: number, message: string): Response {
  const id = d.requestId(req) ?? "";
  const body =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Payment request refused</title></head>` +
    `<body><main><h1>Payment request refused</h1><p role="alert">${escapeHtml(message)}</p>` +
    `<p>Go back to the shop and try again, or contact the shop.${id ? ` Reference: <code>${escapeHtml(id)}</code>` : ""}</p></main></body></html>`;
  return new Response(body, {
    status,
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff", ...(id ? { "x-request-id": id } : {}) },
  });
}

export function epayFailure(d: CompatDeps, req: Request, e: unknown): Response {
  if (e instanceof EpayError) return epayPage(d, req, e.status, e.message);
  if (e instanceof CompatProblem) return epayPage(d, req, STATUS_OF[e.kind], e.message);
  if (e instanceof ParamsError) return epayPage(d, req, 400, e.message);
  d.failed("EPay request failed", req, e);
  return epayPage(d, req, d.storageFault(e) ? 503 : 500, "The payment gateway could not take this request. Try again shortly.");
}

const REQUIRED = ["pid", "type", "out_trade_no", "notify_url", "name", "money", "sign"] as const;

async function submitParams(d: CompatDeps, req: Request): Promise<Params> {
  const query = queryParams(req.url);
  if (req.method !== "POST") return query;
  const body = await bodyParams(req, d.ctx.config.server.max_body_bytes);
  // A form posted to submit.php?… : the form's fields win.
  return { ...query, ...body };
}

export async function submit(d: CompatDeps, req: Request): Promise<Response> {
  try {
    const p = await submitParams(d, req);
    const missing = REQUIRED.filter((k) => !p[k]);
    if (missing.length) throw new EpayError(400, `Missing parameters: ${missing.join(", ")}.`);
    if (p.sign_type && p.sign_type.toUpperCase() !== "MD5") throw new EpayError(400, "sign_type must be MD5.");
    const merchant = /^\d{1,15}$/.test(p.pid!) ? findMerchantByUid(d.ctx.db, `M${p.pid}`) : undefined;
    const key = merchant ? compatSecret(d.ctx, merchant, "epay") : undefined;
    if (!merchant || !key || !compatSignatureOk("epay", p, key, p.sign!)) throw new EpayError(401, "Signature check failed (sign).");
    if (merchant.status !== "active") throw new EpayError(403, "This merchant is disabled.");
    if (!/^\d+(\.\d+)?$/.test(p.money!)) throw new EpayError(400, "money must be a decimal amount such as 30.00.");
    const c = createCompatOrder(d.ctx, merchant, {
      protocol: "epay",
      orderId: p.out_trade_no!,
      price: p.money!,
      notifyUrl: p.notify_url!,
      returnUrl: p.return_url || null,
      payType: p.type!,
      name: p.name!,
      ...(p.param ? { param: p.param } : {}),
    });
    return new Response(null, { status: 302, headers: { location: d.checkoutUrl(c.order.checkoutToken), "cache-control": "no-store" } });
  } catch (e) {
    return epayFailure(d, req, e);
  }
}

/** The paid page's way back: to the shop's return_url, with EPay's signed result once the order is paid. */
export function returnToShop(d: CompatDeps, req: Request, token: string): Response {
  try {
    const c = compatOrderByCheckoutToken(d.ctx.db, token);
    if (!c || c.compat.protocol !== "epay" || !c.compat.returnUrl) throw new EpayError(404, "There is no such order.");
    const url = c.compat.returnUrl;
    const merchant = findMerchantById(d.ctx.db, c.order.merchantId)!;
    const key = compatSecret(d.ctx, merchant, "epay");
    let location = url;
    if (c.order.status === COMPAT_PAID_STATUS && key) {
      const fields = compatCallbackFields(c.order, c.compat, merchant.uid);
      const query = new URLSearchParams({ ...fields, sign: compatSign("epay", fields, key) }).toString();
      location = url + (url.includes("?") ? "&" : "?") + query;
    }
    return new Response(null, { status: 302, headers: { location, "cache-control": "no-store" } });
  } catch (e) {
    return epayFailure(d, req, e);
  }
}
