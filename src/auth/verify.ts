// Verification of signed merchant requests (spec 5; DESIGN 4 fixes the order):
// (1) key + merchant, (2) timestamp, (3) nonce format, (4) signature, (5) nonce recorded.
import type { Db } from "../db/client";
import type { Cipher } from "../secrets/cipher";
import { AppError, invalid } from "../http/errors";
import { findKeyByValue, findMerchantById, isKeyValidAt, type ApiKeyRow, type Merchant } from "../merchants/service";
import { canonicalBody, canonicalQuery, parseQuery, safeEqualHex, signRequest, strictEncode } from "./signing";
import type { RateLimiter } from "./rate-limit";

export interface AuthDeps {
  db: Db;
  cipher: Cipher;
  now: () => number;
  toleranceMs: number;
  maxBodyBytes: number;
  rateLimiter?: RateLimiter;
}

export interface Authenticated {
  merchant: Merchant;
  key: ApiKeyRow;
  /** Parsed JSON body (undefined for GET / empty body). */
  body: unknown;
  query: Array<[string, string]>;
}

const NONCE_RE = /^[A-Za-z0-9_-]{1,128}$/;
const HEX64_RE = /^[0-9a-f]{64}$/;

export async function authenticate(deps: AuthDeps, req: Request): Promise<Authenticated> {
  const h = req.headers;
  const apiKey = h.get("x-api-key") ?? "";
  const uid = (h.get("x-merchant-uid") ?? "").trim();
  const now = deps.now();

  // (1) the key must be an active key of the named merchant.
  const key = apiKey ? findKeyByValue(deps, apiKey) : undefined;
  const merchant = key ? findMerchantById(deps.db, key.merchantId) : undefined;
  if (!key || !merchant || merchant.uid !== uid || !isKeyValidAt(key, now)) throw new AppError(20005);
  if (merchant.status !== "active") throw new AppError(51002, null, "Merchant is disabled");
  deps.rateLimiter?.take(merchant.id, now);

  // (2) 13-digit millisecond timestamp within tolerance, both ways.
  const ts = (h.get("x-timestamp") ?? "").trim();
  if (!/^\d{13}$/.test(ts) || Math.abs(Number(ts) - now) > deps.toleranceMs) throw new AppError(20012);

  // (3) nonce format.
  const nonce = (h.get("x-nonce") ?? "").trim();
  if (!NONCE_RE.test(nonce)) throw invalid({ "x-nonce": "1-128 characters of A-Z a-z 0-9 _ -" });

  // Body and query are needed for the signature.
  const url = new URL(req.url);
  const rawQuery = url.search.startsWith("?") ? url.search.slice(1) : url.search;
  const query = parseQuery(rawQuery);
  const body = await readJsonBody(req, deps.maxBodyBytes);
  const cBody = body === undefined ? "" : canonicalBody(body);

  // (4) signature over the path as sent (still percent-encoded).
  const sig = (h.get("x-signature") ?? "").trim();
  const base = { merchantUid: uid, timestamp: ts, nonce, method: req.method, path: rawPath(req.url), canonicalBody: cBody };
  const secret = deps.cipher.decrypt(key.secretEnc);
  const ok =
    HEX64_RE.test(sig) &&
    (safeEqualHex(signRequest(secret, { ...base, canonicalQuery: canonicalQuery(query) }), sig) ||
      safeEqualHex(signRequest(secret, { ...base, canonicalQuery: canonicalQuery(query, strictEncode) }), sig));
  if (!ok) throw new AppError(20011);

  // (5) record the nonce only now, atomically per merchant.
  const res = deps.db.$client
    .query("INSERT INTO nonces (merchant_id, nonce, expires_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")
    .run(merchant.id, nonce, now + 2 * deps.toleranceMs);
  if (res.changes !== 1) throw new AppError(20016);

  return { merchant, key, body, query };
}

/** The path exactly as it appears in the request line. */
export function rawPath(url: string): string {
  const afterScheme = url.indexOf("://");
  const start = afterScheme >= 0 ? url.indexOf("/", afterScheme + 3) : url.indexOf("/");
  if (start < 0) return "/";
  let end = url.length;
  for (const c of ["?", "#"]) {
    const i = url.indexOf(c, start);
    if (i >= 0 && i < end) end = i;
  }
  return url.slice(start, end);
}

async function readJsonBody(req: Request, max: number): Promise<unknown> {
  if (req.method === "GET" || req.method === "HEAD") return undefined;
  const ct = (req.headers.get("content-type") ?? "").toLowerCase();
  const len = Number(req.headers.get("content-length") ?? "0");
  if (len > max) throw new AppError(10001, { fields: { body: `larger than ${max} bytes` }, maxBytes: max }, "Request body too large");
  const buf = new Uint8Array(await req.arrayBuffer());
  if (buf.byteLength > max) throw new AppError(10001, { fields: { body: `larger than ${max} bytes` }, maxBytes: max }, "Request body too large");
  if (buf.byteLength === 0) return undefined;
  if (!/^application\/json(\s*;.*)?$/.test(ct)) throw new AppError(10001, { fields: { "content-type": "must be application/json" } }, "Content-Type must be application/json");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(buf);
  } catch {
    throw new AppError(10001, { fields: { body: "not valid UTF-8" } }, "Request body is not valid UTF-8");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError(10001, { fields: { body: "not valid JSON" } }, "Request body is not valid JSON");
  }
}

/** Scheduled: nonces are kept twice the tolerance, then pruned. */
export function pruneNonces(db: Db, now: number): number {
  return db.$client.query("DELETE FROM nonces WHERE expires_at < ?").run(now).changes;
}
