// EPay's JSON endpoints as 彩虹易支付 answers them (DESIGN 24):
// - `mapi.php` (API payment): the signed submit.php fields; answers `{code: 1, msg, trade_no,
//   payurl, qrcode}` (payurl: the hosted checkout; qrcode: the payment URI a wallet scans). A
//   `type` that selects a network is used, else [compat] payment (an API payment needs an
//   address now, so the payer does not pick here).
// - `api.php?act=query|order|orders` with `pid` and `key` (the EPay key itself, as 彩虹易支付's
//   v1 API takes it): the merchant's own status (never its key), one order by `trade_no` or
//   `out_trade_no` with `status` 1 paid / 0 not, or a page of orders.
// Failures are `{code: <0, msg}` with HTTP 200, as 彩虹易支付 answers; nothing here is a 500.
import { timingSafeEqual } from "node:crypto";
import { compatSecret } from "../merchants/compat-keys";
import { findMerchantByUid, type Merchant } from "../merchants/service";
import { COMPAT_PAID_STATUS, epayPid } from "../callbacks/compat";
import { paymentUri } from "../payin/payment-uri";
import type { ChainCode } from "../chains/types";
import { CompatProblem, findCompatOrder, findCompatOrderByShopId, type CompatOrder } from "./service";
import { compatOrderCounts, compatOrdersPage } from "./store";
import { epayTypeNetwork } from "./networks";
import { createEpayOrder, EpayError, epayParams, signedBy } from "./epay";
import { ParamsError, type Params } from "./params";
import type { CompatDeps } from "./routes";

function json(d: CompatDeps, req: Request, body: Record<string, unknown>): Response {
  const id = d.requestId(req) ?? "";
  return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...(id ? { "x-request-id": id } : {}) } });
}

/** 彩虹易支付's failure: code -1 (or the code given) and the reason. */
function failure(d: CompatDeps, req: Request, e: unknown, code = -1): Response {
  if (e instanceof EpayError || e instanceof CompatProblem || e instanceof ParamsError) return json(d, req, { code, msg: e.message });
  d.failed("EPay API request failed", req, e);
  return json(d, req, { code, msg: d.storageFault(e) ? "The payment gateway is busy; try again shortly." : "The payment gateway could not take this request." });
}

export async function mapi(d: CompatDeps, req: Request): Promise<Response> {
  try {
    const p = await epayParams(d, req);
    const merchant = await signedBy(d, p);
    const network = epayTypeNetwork(d.ctx, p.type) ?? d.ctx.config.compat.payment;
    const c = await createEpayOrder(d, merchant, p, network);
    return json(d, req, { code: 1, msg: "success", trade_no: c.order.orderNo, payurl: d.checkoutUrl(c.order.checkoutToken), qrcode: qrContent(d, c) });
  } catch (e) {
    return failure(d, req, e);
  }
}

function qrContent(d: CompatDeps, c: CompatOrder): string {
  const chain = c.order.chain as ChainCode;
  const adapter = d.ctx.chains.get(chain);
  const token = adapter?.tokens.find((t) => t.symbol === c.order.token);
  return token ? paymentUri(chain, token, c.order.address, BigInt(c.order.amount), c.order.orderNo) : c.order.address;
}

const two = (n: number) => String(n).padStart(2, "0");
/** 彩虹易支付's time text, `YYYY-MM-DD HH:mm:ss` (UTC here). */
const timeText = (ms: number | null) => {
  if (ms === null) return null;
  const t = new Date(ms);
  return `${t.getUTCFullYear()}-${two(t.getUTCMonth() + 1)}-${two(t.getUTCDate())} ${two(t.getUTCHours())}:${two(t.getUTCMinutes())}:${two(t.getUTCSeconds())}`;
};

/** One order as api.php shows it: status 1 paid, 0 not. */
export function epayOrderView(c: CompatOrder, merchantUid: string) {
  const paid = c.order.status === COMPAT_PAID_STATUS;
  return {
    trade_no: c.order.orderNo,
    out_trade_no: c.order.merchantOrderNo,
    api_trade_no: c.order.txHash ?? "",
    type: c.compat.payType ?? "",
    pid: epayPid(merchantUid),
    addtime: timeText(c.order.createdAt),
    endtime: paid ? timeText(c.order.completedAt ?? c.order.updatedAt) : null,
    name: c.compat.name ?? "",
    money: c.compat.priceAmount,
    param: c.compat.param ?? "",
    buyer: "",
    status: paid ? 1 : 0,
  };
}

/** The merchant whose pid and key these are, else 彩虹易支付's -3. */
async function keyHolder(d: CompatDeps, p: Params): Promise<Merchant> {
  const merchant = /^\d{1,15}$/.test(p.pid ?? "") ? await findMerchantByUid(d.ctx.db, `M${p.pid}`) : undefined;
  const key = merchant ? compatSecret(d.ctx, merchant, "epay") : undefined;
  const given = Buffer.from(p.key ?? "", "utf8");
  if (!merchant || !key || given.length !== Buffer.byteLength(key) || !timingSafeEqual(given, Buffer.from(key, "utf8"))) throw new EpayError(-3, "KEY校验失败");
  return merchant;
}

const DAY = 86_400_000;

async function actQuery(d: CompatDeps, m: Merchant) {
  const today = Math.floor(d.ctx.clock.now() / DAY) * DAY;
  const counts = await compatOrderCounts(d.ctx.db, m.id, "epay", [
    [today, today + DAY],
    [today - DAY, today],
  ]);
  // The merchant's own status: never its key, and no balance (stablegate settles on chain).
  return { code: 1, pid: epayPid(m.uid), active: m.status === "active" ? 1 : 0, money: "0.00", type: 0, orders: counts.total, order_today: counts.within[0], order_lastday: counts.within[1] };
}

async function actOrder(d: CompatDeps, m: Merchant, p: Params) {
  const c = p.trade_no ? await findCompatOrder(d.ctx.db, m.id, "epay", p.trade_no) : p.out_trade_no ? await findCompatOrderByShopId(d.ctx.db, m.id, "epay", p.out_trade_no) : undefined;
  if (!p.trade_no && !p.out_trade_no) throw new EpayError(-4, "订单号不能为空 (trade_no or out_trade_no is required)");
  if (!c) throw new EpayError(-1, "订单号不存在");
  return { code: 1, msg: "查询订单号成功！", ...epayOrderView(c, m.uid) };
}

async function actOrders(d: CompatDeps, m: Merchant, p: Params) {
  const limit = Math.min(50, Math.max(1, Number.parseInt(p.limit ?? "", 10) || 20));
  const page = Math.max(1, Number.parseInt(p.page ?? "", 10) || 1);
  const rows = await compatOrdersPage(d.ctx.db, m.id, "epay", limit, (page - 1) * limit);
  return { code: 1, msg: "查询结算记录成功！", data: rows.map((c) => epayOrderView(c, m.uid)) };
}

export async function api(d: CompatDeps, req: Request): Promise<Response> {
  let code = -1;
  try {
    const p = await epayParams(d, req);
    const act = (p.act ?? "").toLowerCase();
    if (!["query", "order", "orders"].includes(act)) {
      code = -5;
      throw new EpayError(-5, act ? `act=${act} is not offered by this gateway (query, order and orders are)` : "No Act!");
    }
    const m = await keyHolder(d, p);
    if (act === "query") return json(d, req, await actQuery(d, m));
    if (act === "order") return json(d, req, await actOrder(d, m, p));
    return json(d, req, await actOrders(d, m, p));
  } catch (e) {
    return failure(d, req, e, e instanceof EpayError && e.status < 0 ? e.status : code);
  }
}
