// Request and callback signing (spec 5.2, 6.2; DESIGN 4). Shared by the
// server's verification and the merchant client, so both sign the same text.
import { createHmac, timingSafeEqual } from "node:crypto";

export type QueryPairs = ReadonlyArray<readonly [string, string]>;

/** RFC 3986 strict variant: also escapes !'()* (accepted by the server as an alternative). */
export function strictEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
}

/** Pairs from a raw query string (no leading `?`), decoded; `+` is a space as in forms. */
export function parseQuery(raw: string): Array<[string, string]> {
  if (!raw) return [];
  const out: Array<[string, string]> = [];
  for (const part of raw.split("&")) {
    if (!part) continue;
    const eq = part.indexOf("=");
    const k = eq < 0 ? part : part.slice(0, eq);
    const v = eq < 0 ? "" : part.slice(eq + 1);
    out.push([decodeComponent(k), decodeComponent(v)]);
  }
  return out;
}

function decodeComponent(s: string): string {
  const spaced = s.replace(/\+/g, " ");
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced; // malformed escapes are signed as sent
  }
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

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
  path: string;
  canonicalQuery: string;
  canonicalBody: string;
}

export function signedText(i: SignInput): string {
  return [
    i.merchantUid.trim(),
    i.timestamp.trim(),
    i.nonce.trim(),
    i.method.toUpperCase(),
    i.path,
    i.canonicalQuery,
    i.canonicalBody,
  ].join("\n");
}

export function hmacHex(secret: string, text: string): string {
  return createHmac("sha256", secret.trim()).update(text, "utf8").digest("hex");
}

export function signRequest(apiKey: string, i: SignInput): string {
  return hmacHex(apiKey, signedText(i));
}

/** Constant-time comparison of hex strings; a different length is a mismatch, never a throw. */
export function safeEqualHex(a: string, b: string): boolean {
  const ab = Buffer.from(a, "utf8");
  const bb = Buffer.from(b, "utf8");
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab); // keep the timing shape similar
    return false;
  }
  return timingSafeEqual(ab, bb);
}

/** Callback signature (spec 6.2): HMAC over `timestamp.nonce.rawBody`. */
export function signCallback(apiKey: string, timestamp: string, nonce: string, rawBody: string | Uint8Array): string {
  const h = createHmac("sha256", apiKey.trim());
  h.update(`${timestamp}.${nonce}.`, "utf8");
  h.update(rawBody);
  return h.digest("hex");
}

export function verifyCallbackSignature(
  apiKey: string,
  timestamp: string,
  nonce: string,
  rawBody: string | Uint8Array,
  signature: string,
): boolean {
  return safeEqualHex(signCallback(apiKey, timestamp, nonce, rawBody), signature);
}
