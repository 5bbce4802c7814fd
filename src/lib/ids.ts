// Public identifiers (DESIGN 4): PI/PO + time-ordered digits (<= 32 chars),
// EB… bindings, AD… addresses, EV… callback events.
import { createHash, randomBytes } from "node:crypto";

let lastMs = 0;
let seq = 0;

function stamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}${p(d.getUTCMilliseconds(), 3)}`;
}

/** 2-letter prefix + 17-digit UTC time + 4-digit sequence + 3 random digits = 26 chars. */
export function newOrderNo(prefix: "PI" | "PO" | "IV" | "RF", nowMs: number): string {
  if (nowMs === lastMs) seq = (seq + 1) % 10000;
  else {
    lastMs = nowMs;
    seq = 0;
  }
  const rand = String(randomBytes(2).readUInt16BE(0) % 1000).padStart(3, "0");
  return `${prefix}${stamp(nowMs)}${String(seq).padStart(4, "0")}${rand}`;
}

/**
 * An order number derived from what caused the order (a deposit's chain, transaction and log
 * index), same shape as newOrderNo: the time, then 7 digits of SHA-256 of `key` and `attempt`.
 * A rescan after a restore makes the same order again under the same number, so the merchant
 * sees it, and its callbacks' eventIds, once (DESIGN 16). `attempt` moves past a taken number.
 */
export function derivedOrderNo(prefix: "PI" | "PO", timeMs: number, key: string, attempt = 0): string {
  const h = createHash("sha256").update(`${key}\n${attempt}`).digest().readUInt32BE(0) % 10_000_000;
  return `${prefix}${stamp(timeMs)}${String(h).padStart(7, "0")}`;
}

/** The smallest orderNo made at `ms` or later: orderNos sort as their creation times (date filters seek by it). */
export function orderNoFloor(prefix: "PI" | "PO", ms: number): string {
  return `${prefix}${stamp(Math.max(0, ms))}`;
}

export function newId(prefix: string): string {
  return prefix + randomBytes(10).toString("hex").toUpperCase();
}

/** Unguessable token for public links (checkout pages). */
export function newToken(): string {
  return randomBytes(18).toString("base64url");
}

/**
 * Keys written on every create start with the time, so their unique index grows at its
 * right edge: a group of creates then dirties one index page, not one random page each
 * (fewer pages written to the WAL per commit). 48-bit ms as 12 hex digits.
 */
const msHex = (ms: number) => Math.max(0, Math.floor(ms)).toString(16).padStart(12, "0").slice(-12);

/** Callback event id: EV + time + 10 random bytes (as unique as newId, ordered by time). */
export function newEventId(nowMs: number): string {
  return "EV" + msHex(nowMs).toUpperCase() + randomBytes(10).toString("hex").toUpperCase();
}

/** A checkout token: the time, then 18 random bytes (the unguessable part, as newToken). */
export function newTimedToken(nowMs: number): string {
  return msHex(nowMs) + newToken();
}

/** An order number's prefix and creation time (not global: `exec` keeps no state between calls). */
const ORDER_NO_TIME = /^[A-Z]{2}(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{3})/;

/** The creation time a PI/PO order number starts with (UTC, ms), null for another shape. */
export function orderNoTime(orderNo: string): number | null {
  const m = ORDER_NO_TIME.exec(orderNo);
  if (!m) return null;
  const t = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, +m[7]!);
  return Number.isFinite(t) ? t : null;
}

/**
 * The eventId of an order's callback, the same every time the same change is written: EV +
 * the order's creation time (index locality, as newEventId) + 20 hex digits of SHA-256 over
 * (merchant, kind, order, status, occurrence). A rescan after a restore writes the callbacks
 * the merchant already received again under the ids it has, so it can drop them (DESIGN 16).
 * `occurrence` counts earlier events of the same order and status (a status reached again).
 */
export function orderEventId(e: { merchantId: number; kind: string; orderNo: string; status: string; occurrence: number; fallbackMs: number }): string {
  // Bun's one-shot SHA-256 (the same digest as node:crypto's createHash, a third of its cost: this runs for every callback written).
  const h = Bun.SHA256.hash(`${e.merchantId}\n${e.kind}\n${e.orderNo}\n${e.status}\n${e.occurrence}`, "hex").slice(0, 20).toUpperCase();
  return "EV" + msHex(orderNoTime(e.orderNo) ?? e.fallbackMs).toUpperCase() + h;
}
