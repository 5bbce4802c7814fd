// Typed merchant client for the stablegate merchant API (spec 4, 5, 7).
// Runs on Node 20+ and Bun with nothing but built-ins (fetch, node:crypto).
import { randomBytes } from "node:crypto";
import { canonicalBody, canonicalQuery, signRequest } from "./signing.js";
import type {
  CreateInvoiceInput,
  CreateRefundInput,
  Invoice,
  Refund,
  RefundList,
  CreateExclusiveBindingInput,
  CreatePayinOrderInput,
  CreatePayoutOrderInput,
  ExclusiveBinding,
  ExclusiveBindingDetail,
  FailureBody,
  GetExclusiveBindingOptions,
  PayinOrder,
  PayinTxHashCheck,
  PayoutOrder,
  SubmitPayoutOrderInput,
  SubmitPayoutResult,
} from "./types.js";
export type * from "./types.js";

/** What the client passes to `fetch` (a subset of RequestInit). */
export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  redirect?: "manual";
}
/** What the client reads of a response (a subset of Response). */
export interface FetchResponse {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}
export type FetchLike = (url: string, init: FetchInit) => Promise<FetchResponse>;

export interface ClientOptions {
  /** Gateway base URL, e.g. https://pay.example.com (no trailing path). */
  baseUrl: string;
  merchantUid: string;
  apiKey: string;
  /**
   * Extra attempts after a network error or an HTTP 5xx (default 0). Each
   * attempt is signed afresh (new timestamp and nonce), as spec 7 requires.
   * 4xx answers (including 20011/20012/20016) are never retried.
   */
  retries?: number;
  /** Wait before the first retry, doubled for each further one (default 200 ms). */
  retryDelayMs?: number;
  /** Abort a single attempt after this long (default 30 s); counts as a network error. */
  timeoutMs?: number;
  /** Replaces the global fetch (a proxy agent, a test double). */
  fetch?: FetchLike;
  /** Time source for x-timestamp (tests; default Date.now). */
  now?: () => number;
}

/** A failure answer of the gateway: the spec 7 body plus the HTTP status. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    /** The HTTP status of the answer (DESIGN 4 maps each code to one). */
    public readonly status: number,
    /** The business code of spec 7 (10000 when a 5xx came without a failure body). */
    public readonly code: number,
    message: string,
    public readonly data: Record<string, unknown> | null,
    /** The gateway's trace id (body `requestId`, else header x-request-id): log it. */
    public readonly requestId: string | null,
  ) {
    super(message);
  }
  /** Same as `status`. */
  get httpStatus(): number {
    return this.status;
  }
  /** 20011/20012/20016: rebuild and re-sign, never resend the same request. */
  get isAuthFailure(): boolean {
    return this.code === 20005 || this.code === 20011 || this.code === 20012 || this.code === 20016;
  }
}

export type QueryValue = string | number | boolean | undefined | null | ReadonlyArray<string | number | boolean>;
export type Query = Record<string, QueryValue>;

function queryPairs(q: Query | undefined): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(q ?? {})) {
    if (v === undefined || v === null) continue;
    for (const x of Array.isArray(v) ? v : [v]) out.push([k, String(x)]);
  }
  return out;
}

const randomNonce = () => randomBytes(16).toString("hex");

/** One path segment, percent-encoded; the path is signed exactly as sent. */
const seg = (s: string) => encodeURIComponent(s);

export class StablegateClient {
  private readonly base: string;
  constructor(private readonly opts: ClientOptions) {
    this.base = opts.baseUrl.replace(/\/+$/, "");
  }

  /** 4.1 POST /openapi/payin/orders */
  createPayinOrder(input: CreatePayinOrderInput): Promise<PayinOrder> {
    return this.request("POST", "/openapi/payin/orders", { body: input });
  }

  /** 4.2 GET /openapi/payin/orders/{orderNo} (40108 when unknown) */
  getPayinOrder(orderNo: string): Promise<PayinOrder> {
    return this.request("GET", `/openapi/payin/orders/${seg(orderNo)}`);
  }

  /**
   * POST /openapi/payin/orders/{orderNo}/tx-hash (DESIGN 25): the gateway reads the payer's
   * transaction at once and credits it when it pays the order; `result` says what it found.
   * 10001 for a malformed hash, 10029 when checked too often.
   */
  submitPayinTxHash(orderNo: string, txHash: string): Promise<PayinTxHashCheck> {
    return this.request("POST", `/openapi/payin/orders/${seg(orderNo)}/tx-hash`, { body: { txHash } });
  }

  /** 4.3 POST /openapi/payin/exclusive-bindings (get-or-create by bindKey) */
  createExclusiveBinding(input: CreateExclusiveBindingInput): Promise<ExclusiveBinding> {
    return this.request("POST", "/openapi/payin/exclusive-bindings", { body: input });
  }

  /** 4.4 GET /openapi/payin/exclusive-bindings/{bindKey} (40002 when unknown) */
  getExclusiveBinding(bindKey: string, opts: GetExclusiveBindingOptions): Promise<ExclusiveBindingDetail> {
    return this.request("GET", `/openapi/payin/exclusive-bindings/${seg(bindKey)}`, {
      query: { chainCode: opts.chainCode, tokenSymbol: opts.tokenSymbol, recentLimit: opts.recentLimit },
    });
  }

  /** 4.5 POST /openapi/payout/orders */
  createPayoutOrder(input: CreatePayoutOrderInput): Promise<PayoutOrder> {
    return this.request("POST", "/openapi/payout/orders", { body: input });
  }

  /** 4.6 GET /openapi/payout/orders/{orderNo} (54001 when unknown) */
  getPayoutOrder(orderNo: string): Promise<PayoutOrder> {
    return this.request("GET", `/openapi/payout/orders/${seg(orderNo)}`);
  }

  /** 4.7 POST /openapi/payout/orders/{orderNo}/submit (54002 unless the order is `submitted`) */
  submitPayoutOrder(orderNo: string, input: SubmitPayoutOrderInput = {}): Promise<SubmitPayoutResult> {
    return this.request("POST", `/openapi/payout/orders/${seg(orderNo)}/submit`, { body: input });
  }

  /** POST /openapi/invoices (DESIGN 18; 56001 when the currency has no current rate) */
  createInvoice(input: CreateInvoiceInput): Promise<Invoice> {
    return this.request("POST", "/openapi/invoices", { body: input });
  }

  /**
   * POST /openapi/payin/orders/{orderNo}/refunds (DESIGN 20): 55001 over the refundable amount,
   * 55002 an order not paid, 55003 a refundNo reused with another body, 54003 the merchant's own address.
   */
  createRefund(orderNo: string, input: CreateRefundInput): Promise<Refund> {
    return this.request("POST", `/openapi/payin/orders/${seg(orderNo)}/refunds`, { body: input });
  }

  /** GET /openapi/payin/orders/{orderNo}/refunds: the order's refunds, oldest first. */
  listRefunds(orderNo: string): Promise<RefundList> {
    return this.request("GET", `/openapi/payin/orders/${seg(orderNo)}/refunds`);
  }

  /** GET /openapi/invoices/{invoiceNo} (56002 when unknown) */
  getInvoice(invoiceNo: string): Promise<Invoice> {
    return this.request("GET", `/openapi/invoices/${seg(invoiceNo)}`);
  }

  /**
   * Signs and sends one request; resolves with the parsed 2xx body, rejects
   * with ApiError for a failure body (or a network error after the retries).
   * `path` must already be percent-encoded; it is signed as given.
   */
  async request<T>(method: "GET" | "POST", path: string, init: { query?: Query; body?: unknown } = {}): Promise<T> {
    const retries = Math.max(0, Math.floor(this.opts.retries ?? 0));
    for (let attempt = 0; ; attempt++) {
      let res: FetchResponse;
      try {
        res = await this.send(method, path, init);
      } catch (e) {
        if (attempt < retries) {
          await this.pause(attempt);
          continue;
        }
        throw e;
      }
      if (res.status >= 500 && attempt < retries) {
        await res.text().catch(() => "");
        await this.pause(attempt);
        continue;
      }
      return this.read<T>(res);
    }
  }

  private pause(attempt: number): Promise<void> {
    const ms = (this.opts.retryDelayMs ?? 200) * 2 ** attempt;
    return new Promise((r) => setTimeout(r, ms));
  }

  /** One attempt: a fresh timestamp and nonce every time. */
  private async send(method: "GET" | "POST", path: string, init: { query?: Query; body?: unknown }): Promise<FetchResponse> {
    const qs = canonicalQuery(queryPairs(init.query));
    const timestamp = String((this.opts.now ?? Date.now)());
    const nonce = randomNonce();
    // The wire body is the canonical text itself, so it is trivially equivalent to what was signed.
    const bodyText = method === "POST" ? canonicalBody(init.body ?? {}) : "";
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
      "x-api-key": this.opts.apiKey.trim(),
      "x-merchant-uid": this.opts.merchantUid.trim(),
      "x-timestamp": timestamp,
      "x-nonce": nonce,
      "x-signature": signature,
      accept: "application/json",
    };
    if (method === "POST") headers["content-type"] = "application/json";
    const url = this.base + path + (qs ? "?" + qs : "");
    const doFetch: FetchLike = this.opts.fetch ?? (globalThis.fetch as unknown as FetchLike);
    return doFetch(url, {
      method,
      headers,
      body: method === "POST" ? bodyText : undefined,
      signal: AbortSignal.timeout(this.opts.timeoutMs ?? 30_000),
      redirect: "manual",
    });
  }

  private async read<T>(res: FetchResponse): Promise<T> {
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (res.status >= 200 && res.status < 300) {
      if (parsed === undefined && text) throw new ApiError(res.status, 10000, "Response is not JSON", { body: text.slice(0, 200) }, res.headers.get("x-request-id"));
      return parsed as T;
    }
    const b = (parsed && typeof parsed === "object" ? parsed : {}) as Partial<FailureBody>;
    throw new ApiError(
      res.status,
      typeof b.code === "number" ? b.code : res.status >= 500 ? 10000 : res.status,
      typeof b.message === "string" ? b.message : `HTTP ${res.status}${text ? ": " + text.slice(0, 200) : ""}`,
      b.data && typeof b.data === "object" ? b.data : null,
      typeof b.requestId === "string" ? b.requestId : res.headers.get("x-request-id"),
    );
  }
}
