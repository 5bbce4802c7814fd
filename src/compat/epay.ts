// EPay (易支付) `submit.php` (DESIGN 19, 24): the shop sends the payer's browser here (GET or a
// POSTed form). A `type` that selects a network (`usdt.trc20`, `usdt.tron`) answers 302 to the
// hosted checkout on it; any other type (absent, empty, alipay, wxpay, usdt …) lets the payer
// pick the network on a page here (the signed request travels with the choice, so nothing is
// written until the payer picks). A refused request answers a plain page saying why, with an
// HTTP status, and never a redirect: a bad signature is 401. The return link (the checkout's
// "Return to …" once paid) passes through here so the shop gets EPay's signed result on its
// return_url, as EPay sends it. `mapi.php` and `api.php` (./epay-api.ts) answer JSON.
import { compatSign, compatSignatureOk } from "../lib/compat-signing";
import { compatSecret } from "../merchants/compat-keys";
import { findMerchantById, findMerchantByUid } from "../merchants/service";
import { COMPAT_PAID_STATUS, compatCallbackFields } from "../callbacks/compat";
import { CompatProblem, compatOrderByCheckoutToken, createCompatOrder, findCompatOrderByShopId, pricedNetworks, type CompatOrder, type CompatProblemKind } from "./service";
import { epayTypeNetwork, tradeTypeOf } from "./networks";
import { chainModule } from "../chains/registry";
import type { Merchant } from "../merchants/service";
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

const STATUS_OF: Record<CompatProblemKind, number> = { invalid: 400, reused: 409, no_wallet: 503, amount: 422, busy: 503, rate: 422, unsupported: 400 };

const HTML_HEADERS = { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff" };

export function epayPage(d: CompatDeps, req: Request, status: number, message: string): Response {
  const id = d.requestId(req) ?? "";
  const body =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Payment request refused</title></head>` +
    `<body><main><h1>Payment request refused</h1><p role="alert">${escapeHtml(message)}</p>` +
    `<p>Go back to the shop and try again, or contact the shop.${id ? ` Reference: <code>${escapeHtml(id)}</code>` : ""}</p></main></body></html>`;
  return new Response(body, { status, headers: { ...HTML_HEADERS, ...(id ? { "x-request-id": id } : {}) } });
}

export function epayFailure(d: CompatDeps, req: Request, e: unknown): Response {
  if (e instanceof EpayError) return epayPage(d, req, e.status, e.message);
  if (e instanceof CompatProblem) return epayPage(d, req, STATUS_OF[e.kind], e.message);
  if (e instanceof ParamsError) return epayPage(d, req, 400, e.message);
  d.failed("EPay request failed", req, e);
  return epayPage(d, req, d.storageFault(e) ? 503 : 500, "The payment gateway could not take this request. Try again shortly.");
}

const REQUIRED = ["pid", "out_trade_no", "notify_url", "name", "money", "sign"] as const;

/** The request's parameters: the query, and for a POST the form (whose fields win). */
export async function epayParams(d: CompatDeps, req: Request): Promise<Params> {
  const query = queryParams(req.url);
  if (req.method !== "POST") return query;
  const body = await bodyParams(req, d.ctx.config.server.max_body_bytes);
  return { ...query, ...body };
}

/** The merchant whose EPay key signed `p` (an active one), or an EpayError. */
export async function signedBy(d: CompatDeps, p: Params, required: readonly string[] = REQUIRED): Promise<Merchant> {
  const missing = required.filter((k) => !p[k]);
  if (missing.length) throw new EpayError(400, `Missing parameters: ${missing.join(", ")}.`);
  if (p.sign_type && p.sign_type.toUpperCase() !== "MD5") throw new EpayError(400, "sign_type must be MD5.");
  const merchant = /^\d{1,15}$/.test(p.pid ?? "") ? await findMerchantByUid(d.ctx.db, `M${p.pid}`) : undefined;
  const key = merchant ? compatSecret(d.ctx, merchant, "epay") : undefined;
  if (!merchant || !key || !compatSignatureOk("epay", p, key, p.sign ?? "")) throw new EpayError(401, "Signature check failed (sign).");
  if (merchant.status !== "active") throw new EpayError(403, "This merchant is disabled.");
  if (!/^\d+(\.\d+)?$/.test(p.money ?? "")) throw new EpayError(400, "money must be a decimal amount such as 30.00.");
  return merchant;
}

/**
 * The EPay order for the signed request `p` on `network` ("CHAIN:TOKEN"). Its `type` is the
 * shop's, else the network's trade type: shops sign the callback's `type` even when empty
 * (v2board), and 彩虹易支付 always names one.
 */
export async function createEpayOrder(d: CompatDeps, merchant: Merchant, p: Params, network: string): Promise<CompatOrder> {
  return await createCompatOrder(d.ctx, merchant, {
    protocol: "epay",
    orderId: p.out_trade_no!,
    price: p.money!,
    notifyUrl: p.notify_url!,
    returnUrl: p.return_url || null,
    // EPay always names the payment type in its callback: the shop's, else the network paid (usdt.trc20).
    payType: p.type || tradeTypeOf(network),
    name: p.name!,
    network,
    ...(p.param ? { param: p.param } : {}),
  });
}

const toCheckout = (d: CompatDeps, c: CompatOrder) => new Response(null, { status: 302, headers: { location: d.checkoutUrl(c.order.checkoutToken), "cache-control": "no-store" } });

/** The networks the payer may pick: every enabled one whose token has a current rate (compat/service.ts). */
const pickable = async (d: CompatDeps) => await pricedNetworks(d.ctx);

function networkLabel(pair: string): string {
  const [chain = "", token = ""] = pair.split(":");
  let label = chain;
  try {
    label = chainModule(chain as never).label.network;
  } catch {
    // a chain without a module (tests' extra profiles): its code
  }
  return `${label} ${token}`;
}

/** The page where the payer picks the network: one button per enabled network, the signed request in hidden fields. */
function pickPage(d: CompatDeps, req: Request, p: Params, networks: string[]): Response {
  const id = d.requestId(req) ?? "";
  const hidden = Object.entries(p)
    .filter(([k]) => k !== "network")
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join("");
  const buttons = networks.map((n) => `<li><button type="submit" name="network" value="${escapeHtml(n)}">${escapeHtml(networkLabel(n))}</button></li>`).join("");
  const body =
    `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>选择支付网络 · Choose a network</title></head>` +
    `<body><main><h1>选择支付网络 · Choose a network</h1><p>${escapeHtml(p.name ?? "")}: ${escapeHtml(p.money ?? "")}</p>` +
    `<form method="post" action="${escapeHtml(d.ctx.publicUrl)}/compat/epay/pick">${hidden}<ul>${buttons}</ul></form></main></body></html>`;
  return new Response(body, { status: 200, headers: { ...HTML_HEADERS, ...(id ? { "x-request-id": id } : {}) } });
}

export async function submit(d: CompatDeps, req: Request): Promise<Response> {
  try {
    const p = await epayParams(d, req);
    const merchant = await signedBy(d, p);
    const selected = epayTypeNetwork(d.ctx, p.type);
    if (selected) return toCheckout(d, await createEpayOrder(d, merchant, p, selected));
    // The same out_trade_no again (the payer picked before): its order, as EPay does.
    const existing = await findCompatOrderByShopId(d.ctx.db, merchant.id, "epay", p.out_trade_no!);
    if (existing) return toCheckout(d, await createEpayOrder(d, merchant, p, `${existing.order.chain}:${existing.order.token}`));
    const networks = await pickable(d);
    if (networks.length === 0) throw new CompatProblem("no_wallet", "No network is enabled on this gateway.");
    if (networks.length === 1) return toCheckout(d, await createEpayOrder(d, merchant, p, networks[0]!));
    return pickPage(d, req, p, networks);
  } catch (e) {
    return epayFailure(d, req, e);
  }
}

/** The payer's pick: the signed request again, plus `network`; the order is created on that network. */
export async function pick(d: CompatDeps, req: Request): Promise<Response> {
  try {
    const { network = "", ...p } = await epayParams(d, req);
    const merchant = await signedBy(d, p);
    if (!(await pickable(d)).includes(network)) throw new EpayError(400, `Choose one of the offered networks (${network || "none chosen"}).`);
    return toCheckout(d, await createEpayOrder(d, merchant, p, network));
  } catch (e) {
    return epayFailure(d, req, e);
  }
}

/** The paid page's way back: to the shop's return_url, with EPay's signed result once the order is paid. */
export async function returnToShop(d: CompatDeps, req: Request, token: string): Promise<Response> {
  try {
    const c = await compatOrderByCheckoutToken(d.ctx.db, token);
    if (!c || c.compat.protocol !== "epay" || !c.compat.returnUrl) throw new EpayError(404, "There is no such order.");
    const url = c.compat.returnUrl;
    const merchant = (await findMerchantById(d.ctx.db, c.order.merchantId))!;
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
