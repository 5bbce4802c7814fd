// Callback verification for merchants (spec 6.2): HMAC-SHA256 with the API
// key over `timestamp.nonce.rawBody`, lowercase hex, compared in constant time.
import { safeEqualHex, signCallback } from "./signing.js";

/** A fetch `Headers` (anything with `get`), or a plain object such as Node's `req.headers` / Express's. */
export type HeadersLike = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

export interface VerifyCallbackOptions {
  /** Reject callbacks whose x-callback-timestamp is further than this from now (either way). Off by default. */
  maxAgeMs?: number;
  now?: () => number;
}

export const CALLBACK_HEADERS = {
  timestamp: "x-callback-timestamp",
  nonce: "x-callback-nonce",
  signature: "x-callback-signature",
  algorithm: "x-callback-signature-algorithm",
  version: "x-callback-signature-version",
} as const;

function header(h: HeadersLike, name: string): string | undefined {
  if (typeof h.get === "function") return (h as { get(name: string): string | null }).get(name) ?? undefined;
  const rec = h as Record<string, string | string[] | undefined>;
  let v = rec[name];
  if (v === undefined) {
    const k = Object.keys(rec).find((x) => x.toLowerCase() === name);
    v = k === undefined ? undefined : rec[k];
  }
  return Array.isArray(v) ? v[0] : v;
}

/**
 * True when the callback was signed with `apiKey` (or one of several keys,
 * e.g. the old and new key around a rotation). `rawBody` must be the bytes as
 * received: a re-serialised JSON body does not verify. Only after `true`
 * update your order, then answer 2xx.
 */
export function verifyCallback(
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: HeadersLike,
  apiKey: string | readonly string[],
  opts: VerifyCallbackOptions = {},
): boolean {
  const ts = header(headers, CALLBACK_HEADERS.timestamp)?.trim() ?? "";
  const nonce = header(headers, CALLBACK_HEADERS.nonce)?.trim() ?? "";
  const sig = header(headers, CALLBACK_HEADERS.signature)?.trim() ?? "";
  const alg = header(headers, CALLBACK_HEADERS.algorithm)?.trim();
  const ver = header(headers, CALLBACK_HEADERS.version)?.trim();
  if (alg !== undefined && alg.toUpperCase() !== "HMAC-SHA256") return false;
  if (ver !== undefined && ver !== "v1") return false;
  if (!/^\d{1,16}$/.test(ts) || !nonce || !sig) return false;
  if (opts.maxAgeMs !== undefined) {
    const now = (opts.now ?? Date.now)();
    if (Math.abs(now - Number(ts)) > opts.maxAgeMs) return false;
  }
  const body = rawBody instanceof ArrayBuffer ? new Uint8Array(rawBody) : rawBody;
  const keys = typeof apiKey === "string" ? [apiKey] : apiKey;
  let ok = false;
  // Every key is tried (no early exit) so timing does not tell which one matched.
  for (const k of keys) if (k && safeEqualHex(signCallback(k, ts, nonce, body), sig)) ok = true;
  return ok;
}
