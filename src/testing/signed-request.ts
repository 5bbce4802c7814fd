// Hand-built signed requests for auth tests: every part of what is signed
// and what is sent can be set separately, to tamper with one of them.
import { canonicalBody, canonicalQuery, parseQuery, signRequest, type QueryPairs } from "../auth/signing";

export interface RawSignedRequest {
  baseUrl: string;
  uid: string;
  apiKey: string;
  method?: string;
  /** Path as sent (already percent-encoded). */
  path: string;
  /** Query pairs, sent in this order, each key and value encodeURIComponent-ed. */
  query?: QueryPairs;
  /** JSON value (sent with JSON.stringify) or raw text. */
  body?: unknown;
  rawBody?: string | Uint8Array;
  timestamp?: string;
  nonce?: string;
  contentType?: string | null;
  /** What is signed, when it must differ from what is sent. */
  sign?: Partial<{ uid: string; method: string; path: string; canonicalQuery: string; canonicalBody: string; apiKey: string }>;
  /** Replaces the computed signature. */
  signature?: string;
  headers?: Record<string, string | null>;
  now?: () => number;
}

let seq = 0;
export function testNonce(): string {
  return `t${Date.now().toString(36)}_${(++seq).toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

export function encodeQuery(pairs: QueryPairs | undefined): string {
  return (pairs ?? []).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
}

/** Builds the fetch arguments of a signed request. */
export function buildSignedRequest(r: RawSignedRequest): { url: string; init: RequestInit; signature: string; nonce: string; timestamp: string } {
  const method = r.method ?? (r.body !== undefined || r.rawBody !== undefined ? "POST" : "GET");
  const qs = encodeQuery(r.query);
  const timestamp = r.timestamp ?? String((r.now ?? Date.now)());
  const nonce = r.nonce ?? testNonce();
  const wire = r.rawBody ?? (r.body === undefined ? undefined : JSON.stringify(r.body));
  const parsedBody = r.body !== undefined ? r.body : typeof r.rawBody === "string" && r.rawBody ? safeParse(r.rawBody) : undefined;
  const signature =
    r.signature ??
    signRequest(r.sign?.apiKey ?? r.apiKey, {
      merchantUid: r.sign?.uid ?? r.uid,
      timestamp,
      nonce,
      method: r.sign?.method ?? method,
      path: r.sign?.path ?? r.path,
      canonicalQuery: r.sign?.canonicalQuery ?? canonicalQuery(parseQuery(qs)),
      canonicalBody: r.sign?.canonicalBody ?? (parsedBody === undefined ? "" : canonicalBody(parsedBody)),
    });
  const headers: Record<string, string> = {
    "x-api-key": r.apiKey,
    "x-merchant-uid": r.uid,
    "x-timestamp": timestamp,
    "x-nonce": nonce,
    "x-signature": signature,
  };
  const ct = r.contentType === undefined ? (wire !== undefined ? "application/json" : null) : r.contentType;
  if (ct) headers["content-type"] = ct;
  for (const [k, v] of Object.entries(r.headers ?? {})) {
    if (v === null) delete headers[k];
    else headers[k] = v;
  }
  return {
    url: r.baseUrl + r.path + (qs ? "?" + qs : ""),
    init: { method, headers, body: wire as BodyInit | undefined },
    signature,
    nonce,
    timestamp,
  };
}

function safeParse(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

export interface Answer {
  status: number;
  body: { code: number; message: string; data: Record<string, unknown> | null; requestId: string | null } & Record<string, unknown>;
  headers: Headers;
}

export async function sendSigned(r: RawSignedRequest): Promise<Answer> {
  const { url, init } = buildSignedRequest(r);
  const res = await fetch(url, init);
  const text = await res.text();
  let body: Answer["body"];
  try {
    body = JSON.parse(text);
  } catch {
    body = { code: -1, message: text, data: null, requestId: null };
  }
  return { status: res.status, body, headers: res.headers };
}
