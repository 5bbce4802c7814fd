// The shop-plugin callbacks (DESIGN 19). A compatibility order (payin_orders.compat) announces
// nothing of its ordinary life to the shop: only its completion, once, as the protocol's own
// callback, written to the outbox in the pay-in funnel's transaction and delivered by the same
// worker with the same retries. The stored payload is the protocol's fields without the
// signature; each delivery signs them with the merchant's key in force then (a shop that changed
// its token verifies with the new one), and counts only when the shop acknowledges it:
// epusdt's body `ok` or `success` (trimmed, any case; DESIGN 24), EPay's body containing `success`.
// GMPay's epusdt fork (compat_orders.dialect = gmpay) gets that fork's body: its `pid`, the
// receiving address as `receive_address` and the token symbol as `token`.
import type { Tx } from "../db/client";
import type { compatOrders, payinOrders } from "../db/schema";
import { merchantUid } from "../merchants/store";
import { compatSign, type CompatProtocol } from "../lib/compat-signing";
import { Big, fromBaseUnits } from "../lib/money";
import { enqueueCallback } from "./outbox";
import type { PlainRequest } from "./deliver";

type PayinRow = typeof payinOrders.$inferSelect;
type CompatRow = typeof compatOrders.$inferSelect;

export const COMPAT_KINDS: readonly CompatProtocol[] = ["epusdt", "epay"];

export function isCompatKind(kind: string): kind is CompatProtocol {
  return (COMPAT_KINDS as readonly string[]).includes(kind);
}

/** The one pay-in status a shop hears of: the order is paid (epusdt status 2, EPay TRADE_SUCCESS). */
export const COMPAT_PAID_STATUS = "completed";

/** A decimal as its shortest text ("30.000000" → "30"): how epusdt writes and signs its numbers. */
export function shortDecimal(d: string): string {
  return new Big(d).toFixed();
}

/** The EPay `pid` of a merchant: the digits of its UID (M1000001 → 1000001). */
export function epayPid(merchantUid: string): string {
  return merchantUid.replace(/\D/g, "");
}

/** The protocol's callback fields of a paid compatibility order, unsigned. */
export function compatCallbackFields(o: PayinRow, c: CompatRow, merchantUid: string): Record<string, string> {
  if (c.protocol === "epusdt" && c.dialect === "gmpay") {
    return {
      pid: c.shopPid ?? "",
      trade_id: o.orderNo,
      order_id: o.merchantOrderNo,
      amount: shortDecimal(c.priceAmount),
      actual_amount: shortDecimal(fromBaseUnits(BigInt(o.amount), o.decimals, 6)),
      receive_address: o.address,
      token: o.token,
      block_transaction_id: o.txHash ?? "",
      status: "2",
    };
  }
  if (c.protocol === "epusdt") {
    return {
      trade_id: o.orderNo,
      order_id: o.merchantOrderNo,
      amount: shortDecimal(c.priceAmount),
      actual_amount: shortDecimal(fromBaseUnits(BigInt(o.amount), o.decimals, 6)),
      token: o.address,
      block_transaction_id: o.txHash ?? "",
      status: "2",
    };
  }
  return {
    pid: epayPid(merchantUid),
    trade_no: o.orderNo,
    out_trade_no: o.merchantOrderNo,
    type: c.payType ?? "",
    name: c.name ?? "",
    money: c.priceAmount,
    trade_status: "TRADE_SUCCESS",
    ...(c.param ? { param: c.param } : {}),
    sign_type: "MD5",
  };
}

/**
 * Called by the pay-in funnel for every status change of a compatibility order, in its
 * transaction: the paid status enqueues the shop's callback; every other status sends nothing.
 * `shopSideOf` reads the order's compat_orders row (payin/compat-side-store.ts `compatSideOf`: a port, as
 * callbacks rank below pay-ins and the shop-plugin layer).
 */
export async function followCompatOrder(tx: Tx, o: PayinRow, now: number, shopSideOf: (tx: Tx, payinOrderId: number) => Promise<CompatRow | undefined>): Promise<void> {
  if (o.status !== COMPAT_PAID_STATUS) return;
  const c = await shopSideOf(tx, o.id);
  if (!c) return;
  const m = (await merchantUid(tx, o.merchantId))!;
  await enqueueCallback(tx, {
    merchantId: o.merchantId,
    kind: c.protocol as CompatProtocol,
    orderNo: o.orderNo,
    status: o.status,
    apiKeyId: o.apiKeyId,
    url: c.notifyUrl,
    payload: compatCallbackFields(o, c, m.uid),
    now,
  });
}

/** epusdt's JSON numbers (their decimal text is valid JSON); every other field is a string. */
const NUMERIC = new Set(["amount", "actual_amount", "status"]);

/** The epusdt callback body in the field order the fork sends: the fields, the signature, then status. */
function epusdtBody(fields: Record<string, string>, signature: string): string {
  const value = (k: string, v: string) => `${JSON.stringify(k)}:${NUMERIC.has(k) ? v : JSON.stringify(v)}`;
  const parts = Object.entries(fields)
    .filter(([k]) => k !== "status")
    .map(([k, v]) => value(k, v));
  parts.push(value("signature", signature), value("status", fields.status ?? "2"));
  return `{${parts.join(",")}}`;
}

/** epusdt (and its forks) count a callback delivered on `ok` or `success`, trimmed, any case. */
export function epusdtAcknowledged(answer: string): boolean {
  const a = answer.trim().toLowerCase();
  return a === "ok" || a === "success";
}

/** The request a delivery sends: signed now with `secret`, acknowledged as the protocol says. */
export function compatRequest(protocol: CompatProtocol, url: string, payload: string, secret: string): PlainRequest {
  const fields = JSON.parse(payload) as Record<string, string>;
  if (protocol === "epusdt") {
    const body = epusdtBody(fields, compatSign("epusdt", fields, secret));
    return { method: "POST", url, body, contentType: "application/json", expect: "ok or success", acknowledged: epusdtAcknowledged };
  }
  const sign = compatSign("epay", fields, secret);
  const query = new URLSearchParams({ ...fields, sign }).toString();
  const target = url + (url.includes("?") ? (/[?&]$/.test(url) ? "" : "&") : "?") + query;
  return { method: "GET", url: target, body: null, expect: "success", acknowledged: (answer) => answer.includes("success") };
}
