// Verification of signed merchant requests (spec 5; DESIGN 4 fixes the order):
// (1) key + merchant, (2) timestamp, (3) nonce format, (4) signature, (5) nonce recorded.
// The body is read between (3) and (4) because the signature covers it; its
// size, content-type and JSON errors are 10001s naming the `body` or header.
import { type Db, writeTx } from "../db/client";
import { deleteExpiredNonces, insertNonce } from "./store";
import { inSlices } from "../lib/slices";
import type { Cipher } from "../secrets/cipher";
import { AppError, invalid } from "../errors";
import { isKeyValidAt, type ApiKeyRow, type Merchant } from "../merchants/service";
import { keyCache } from "../merchants/key-cache";
import { canonicalBody, canonicalQuery, parseQuery, safeEqualHex, signRequest, strictEncode } from "./signing";
import type { RateLimiter } from "./rate-limit";
import { jsonTooDeep, MAX_JSON_DEPTH } from "../lib/json-depth";
import { allowlistOf, inList } from "../lib/client-ip";

export interface AuthDeps {
  db: Db;
  cipher: Cipher;
  now: () => number;
  toleranceMs: number;
  maxBodyBytes: number;
  rateLimiter?: RateLimiter;
  /** The client address (DESIGN 10), read only for merchants with an IP allowlist. */
  clientIp?: (req: Request) => string | undefined;
}

export interface Authenticated {
  merchant: Merchant;
  key: ApiKeyRow;
  /** Parsed JSON body (undefined for GET / empty body). */
  body: unknown;
  query: Array<[string, string]>;
  nonce: string;
  nonceExpiresAt: number;
}

export const NONCE_RE = /^[A-Za-z0-9_-]{1,128}$/;
const HEX64_RE = /^[0-9a-f]{64}$/;
const TIMESTAMP_RE = /^\d{13}$/;
const JSON_CT_RE = /^application\/json\s*(;.*)?$/;

/** Steps 1-5: a verified request whose nonce is recorded (in its own commit). */
export async function authenticate(deps: AuthDeps, req: Request): Promise<Authenticated> {
  const v = await verifySignature(deps, req);
  await writeTx(deps.db, async () => await recordNonce(deps, v));
  return v;
}

/** Steps 1-4; the caller records the nonce (recordNonce), possibly in its own transaction. */
export async function verifySignature(deps: AuthDeps, req: Request): Promise<Authenticated> {
  const h = req.headers;
  const apiKey = (h.get("x-api-key") ?? "").trim();
  const uid = (h.get("x-merchant-uid") ?? "").trim();
  const now = deps.now();

  // (1) the key must be a currently valid key of the named merchant (a rotated
  // key stays valid for requests until its grace period ends).
  const found = apiKey ? await keyCache(deps.db, deps.cipher).lookup(apiKey) : undefined;
  const key = found?.key;
  const merchant = found?.merchant;
  if (!key || !merchant || merchant.uid !== uid || !isKeyValidAt(key, now)) throw new AppError(20005);
  if (merchant.status !== "active") throw new AppError(51002, { reason: "merchant_disabled" }, "Merchant is disabled");
  // The merchant's IP allowlist (empty: any address); refused before anything is read or written.
  const allow = allowlistOf(merchant.ipAllowlist);
  if (allow) {
    const ip = deps.clientIp?.(req);
    if (!ip || !inList(allow, ip)) throw new AppError(20020, { clientIp: ip ?? null });
  }
  // Counted here: only holders of a valid key can spend a merchant's budget,
  // and every request they make (good or bad) costs work.
  // On PostgreSQL the bucket is the database's: the limit holds across gateways (DESIGN 22).
  await deps.rateLimiter?.takeFor(deps.db, merchant.id, now);

  // (2) 13-digit millisecond timestamp within tolerance, both ways.
  const ts = (h.get("x-timestamp") ?? "").trim();
  if (!TIMESTAMP_RE.test(ts) || Math.abs(Number(ts) - now) > deps.toleranceMs) {
    throw new AppError(20012, { serverTime: now, toleranceMs: deps.toleranceMs });
  }

  // (3) nonce format.
  const nonce = (h.get("x-nonce") ?? "").trim();
  if (!NONCE_RE.test(nonce)) throw invalid({ "x-nonce": "must be 1-128 characters of A-Z a-z 0-9 _ -" });

  // Query and body, as covered by the signature.
  const query = parseQuery(rawQuery(req.url));
  const body = await readJsonBody(req, deps.maxBodyBytes);
  const cBody = body === undefined ? "" : canonicalBody(body);

  // (4) signature over the path as sent (still percent-encoded); the strict
  // RFC 3986 query encoding is accepted as an alternative (DESIGN 4).
  const sig = (h.get("x-signature") ?? "").trim();
  if (!HEX64_RE.test(sig)) throw new AppError(20011);
  const base = { merchantUid: uid, timestamp: ts, nonce, method: req.method, path: rawPath(req.url), canonicalBody: cBody };
  const secret = found!.secret;
  const plainQuery = query.length ? canonicalQuery(query) : "";
  const strictQuery = query.length ? canonicalQuery(query, strictEncode) : "";
  const ok =
    safeEqualHex(signRequest(secret, { ...base, canonicalQuery: plainQuery }), sig) ||
    (strictQuery !== plainQuery && safeEqualHex(signRequest(secret, { ...base, canonicalQuery: strictQuery }), sig));
  if (!ok) throw new AppError(20011);

  return { merchant, key, body, query, nonce, nonceExpiresAt: now + 2 * deps.toleranceMs };
}

/**
 * (5) Records the nonce: one INSERT on the (merchant, nonce) primary key, so of
 * concurrent requests with one nonce exactly one wins; 20016 for the others.
 * Kept twice the tolerance: by then its timestamp is outside the window anyway.
 */
export async function recordNonce(deps: Pick<AuthDeps, "db">, a: Pick<Authenticated, "merchant" | "nonce" | "nonceExpiresAt">): Promise<void> {
  if (!await insertNonce(deps.db, a.merchant.id, a.nonce, a.nonceExpiresAt)) throw new AppError(20016);
}

/** The path exactly as it appears in the request line (no URL normalisation). */
export function rawPath(url: string): string {
  const start = pathStart(url);
  if (start < 0) return "/";
  return url.slice(start, endOf(url, start, ["?", "#"]));
}

/** The query string as sent, without `?` (WHATWG URL parsing would re-encode some characters). */
export function rawQuery(url: string): string {
  const start = pathStart(url);
  if (start < 0) return "";
  const q = url.indexOf("?", start);
  if (q < 0) return "";
  return url.slice(q + 1, endOf(url, q + 1, ["#"]));
}

function pathStart(url: string): number {
  const afterScheme = url.indexOf("://");
  return afterScheme >= 0 ? url.indexOf("/", afterScheme + 3) : url.indexOf("/");
}

function endOf(url: string, from: number, stops: string[]): number {
  let end = url.length;
  for (const c of stops) {
    const i = url.indexOf(c, from);
    if (i >= 0 && i < end) end = i;
  }
  return end;
}

function tooLarge(max: number): AppError {
  return new AppError(10001, { fields: { body: `must be at most ${max} bytes` }, maxBytes: max }, `Request body larger than ${max} bytes`);
}

/** Reads at most `max` bytes; a longer body (declared or streamed) is refused without buffering it. */
export async function readCapped(req: Request, max: number): Promise<Uint8Array> {
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > max) throw tooLarge(max);
  // A declared length (within the cap) bounds the body: HTTP framing delivers exactly that many
  // bytes, so it is read in one piece. A ReadableStream reader costs a create ~8 % of its CPU.
  if (declared !== null) {
    const whole = new Uint8Array(await req.arrayBuffer());
    if (whole.byteLength > max) throw tooLarge(max); // a Request built in-process need not match its header
    return whole;
  }
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw tooLarge(max);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** The JSON body, read at most `max` bytes far (declared or streamed); 10001 when too large or malformed. */
export async function readJsonBody(req: Request, max: number): Promise<unknown> {
  if (req.method === "GET" || req.method === "HEAD") return undefined;
  const buf = await readCapped(req, max);
  // An empty POST body signs as "" and needs no content-type.
  if (buf.byteLength === 0) return undefined;
  const ct = (req.headers.get("content-type") ?? "").toLowerCase().trim();
  if (!JSON_CT_RE.test(ct)) {
    throw new AppError(10001, { fields: { "content-type": "must be application/json" } }, "Content-Type must be application/json");
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(buf);
  } catch {
    throw new AppError(10001, { fields: { body: "must be valid UTF-8" } }, "Request body is not valid UTF-8");
  }
  if (jsonTooDeep(text)) {
    throw new AppError(10001, { fields: { body: `must not nest deeper than ${MAX_JSON_DEPTH} levels` } }, `Request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new AppError(10001, { fields: { body: "must be valid JSON" }, detail: String((e as Error).message).slice(0, 200) }, "Request body is not valid JSON");
  }
}

/** Nonces deleted per statement: a backlog (a gateway down for a day) is pruned in slices. */
export const NONCE_PRUNE_SLICE = 2000;

/**
 * Scheduled: nonces are kept twice the tolerance, then pruned. There is no index on
 * expires_at (a write less per signed request): rows go in in time order, so this
 * deletes every row before the first (in rowid order) that has not expired, a cost
 * that grows with what is deleted, not with the table, in slices of NONCE_PRUNE_SLICE rowids
 * with a turn of the event loop between them (DESIGN 11: no job holds it for 50 ms).
 * A row that expires out of order (clock moved back, tolerance changed) is only kept a
 * little longer. Returns how many were deleted.
 */
export async function pruneNonces(db: Db, now: number): Promise<number> {
  let total = 0;
  await inSlices(async () => {
    const n = await writeTx(db, async (tx) => await deleteExpiredNonces(tx, now, NONCE_PRUNE_SLICE));
    total += n;
    // Until a slice finds nothing: a gap in the rowids (a rolled-back insert) makes a slice short.
    return n > 0;
  });
  return total;
}
