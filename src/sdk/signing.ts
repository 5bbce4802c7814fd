// Request and callback signing (spec 5.2, 6.2; DESIGN 4), node:crypto only.
// The one copy of the canonical text and the HMACs: the gateway's verification
// (src/auth/signing.ts) imports it, so client and server sign the same text.
// The SDK ships alone, so nothing here may import server code.
import { createHmac, timingSafeEqual } from "node:crypto";

export type QueryPairs = ReadonlyArray<readonly [string, string]>;

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Empty values dropped, sorted by key then value (UTF-16 code units), each escaped by `encode`
 * (encodeURIComponent; the gateway also accepts the strict RFC 3986 form), joined with `&`.
 */
export function canonicalQuery(pairs: QueryPairs, encode: (s: string) => string = encodeURIComponent): string {
  return pairs
    .filter(([, v]) => v !== "" && v !== undefined && v !== null)
    .map(([k, v]) => [String(k), String(v)] as const)
    .sort((a, b) => byCodeUnit(a[0], b[0]) || byCodeUnit(a[1], b[1]))
    .map(([k, v]) => `${encode(k)}=${encode(v)}`)
    .join("&");
}

/** Keys sorted at every depth, compact; dates as ISO strings; undefined members dropped. */
export function canonicalBody(body: unknown): string {
  if (body === undefined) return "";
  return JSON.stringify(sortDeep(body)) ?? "";
}

function sortDeep(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map((x) => (x === undefined ? null : sortDeep(x)));
  if (v && typeof v === "object") {
    // No prototype: a `__proto__` key in parsed JSON stays a signed member
    // instead of silently vanishing from the canonical text.
    const out: Record<string, unknown> = Object.create(null);
    for (const k of Object.keys(v).sort(byCodeUnit)) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = sortDeep(x);
    }
    return out;
  }
  return v;
}

export interface SignInput {
  merchantUid: string;
  timestamp: string;
  nonce: string;
  method: string;
  /** The path exactly as sent (percent-encoded), without the query. */
  path: string;
  canonicalQuery: string;
  canonicalBody: string;
}

/** The seven lines of spec 5.2 joined by `\n`. */
export function signedText(i: SignInput): string {
  return [i.merchantUid.trim(), i.timestamp.trim(), i.nonce.trim(), i.method.toUpperCase(), i.path, i.canonicalQuery, i.canonicalBody].join("\n");
}

/** x-signature: lowercase hex HMAC-SHA256 keyed with the API key. */
export function signRequest(apiKey: string, i: SignInput): string {
  return createHmac("sha256", apiKey.trim()).update(signedText(i), "utf8").digest("hex");
}

/** x-callback-signature: HMAC-SHA256 over `timestamp.nonce.rawBody`. */
export function signCallback(apiKey: string, timestamp: string, nonce: string, rawBody: string | Uint8Array): string {
  const h = createHmac("sha256", apiKey.trim());
  h.update(`${timestamp}.${nonce}.`, "utf8");
  h.update(rawBody);
  return h.digest("hex");
}

/** Constant-time comparison; a different length is a mismatch, never a throw. */
export function safeEqualHex(a: string, b: string): boolean {
  const ab = Buffer.from(a, "utf8");
  const bb = Buffer.from(b, "utf8");
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}
