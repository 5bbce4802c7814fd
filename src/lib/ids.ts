// Public identifiers (DESIGN 4): PI/PO + time-ordered digits (<= 32 chars),
// EB… bindings, AD… addresses, EV… callback events.
import { randomBytes } from "node:crypto";

let lastMs = 0;
let seq = 0;

function stamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}${p(d.getUTCMilliseconds(), 3)}`;
}

/** 2-letter prefix + 17-digit UTC time + 4-digit sequence + 3 random digits = 26 chars. */
export function newOrderNo(prefix: "PI" | "PO" | "IV", nowMs: number): string {
  if (nowMs === lastMs) seq = (seq + 1) % 10000;
  else {
    lastMs = nowMs;
    seq = 0;
  }
  const rand = String(randomBytes(2).readUInt16BE(0) % 1000).padStart(3, "0");
  return `${prefix}${stamp(nowMs)}${String(seq).padStart(4, "0")}${rand}`;
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
