// Typed merchant client: signs every request (fresh timestamp and nonce per
// call, including retries). Merchants may copy this file or import it.
import { canonicalBody, canonicalQuery, signRequest } from "../auth/signing";

export interface ClientOptions {
  baseUrl: string;
  merchantUid: string;
  apiKey: string;
  fetch?: typeof fetch;
  now?: () => number;
}

export class ApiError extends Error {
  constructor(
    public readonly httpStatus: number,
    public readonly code: number,
    message: string,
    public readonly data: Record<string, unknown> | null,
    public readonly requestId: string | null,
  ) {
    super(`${code} ${message}`);
  }
}

export type Query = Record<string, string | number | boolean | undefined | null | Array<string | number>>;

function queryPairs(q: Query | undefined): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(q ?? {})) {
    if (v === undefined || v === null) continue;
    for (const x of Array.isArray(v) ? v : [v]) out.push([k, String(x)]);
  }
  return out;
}

function randomNonce(): string {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

export class StablegateClient {
  constructor(private readonly opts: ClientOptions) {}

  /** Signs and sends one request; throws ApiError with the spec's failure body on non-2xx. */
  async request<T>(method: "GET" | "POST", path: string, init: { query?: Query; body?: unknown } = {}): Promise<T> {
    const pairs = queryPairs(init.query);
    const qs = canonicalQuery(pairs);
    const timestamp = String((this.opts.now ?? Date.now)());
    const nonce = randomNonce();
    const bodyText = init.body === undefined ? "" : canonicalBody(init.body);
    const signature = signRequest(this.opts.apiKey, {
      merchantUid: this.opts.merchantUid,
      timestamp,
      nonce,
      method,
      path,
      canonicalQuery: qs,
      canonicalBody: bodyText,
    });
    const headers: Record<string, string> = {
      "x-api-key": this.opts.apiKey,
      "x-merchant-uid": this.opts.merchantUid,
      "x-timestamp": timestamp,
      "x-nonce": nonce,
      "x-signature": signature,
    };
    if (method === "POST") headers["content-type"] = "application/json";
    const url = this.opts.baseUrl.replace(/\/$/, "") + path + (qs ? "?" + qs : "");
    const res = await (this.opts.fetch ?? fetch)(url, { method, headers, body: method === "POST" ? bodyText : undefined });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    if (!res.ok) {
      const b = (parsed ?? {}) as { code?: number; message?: string; data?: Record<string, unknown> | null; requestId?: string | null };
      throw new ApiError(res.status, b.code ?? 10000, b.message ?? text.slice(0, 200), b.data ?? null, b.requestId ?? res.headers.get("x-request-id"));
    }
    return parsed as T;
  }
}
