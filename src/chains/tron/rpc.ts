// The TRON full-node HTTP API (POST /wallet/..., /walletsolidity/... with JSON bodies)
// over several endpoints: per-URL health, failover in list order (the first URL is the
// preferred one), exponential backoff per URL on transport failures (network, timeout,
// HTTP 5xx), and a longer pause on rate limiting (HTTP 403/429: TronGrid suspends an IP
// or key for ~30 s). The API key goes in the TRON-PRO-API-KEY header and is never logged;
// URLs are logged only through redactUrl.
// Answers with HTTP 200 are answers, whatever they say ({"Error": ...} included): the
// caller interprets them.
import { DOWN_AFTER_FAILURES, type RpcLogger } from "../json-rpc";
import { redactIn, redactUrl } from "../../lib/redact-url";

export type TronErrorKind = "http" | "timeout" | "network" | "answer";

export class TronRpcError extends Error {
  constructor(
    message: string,
    readonly kind: TronErrorKind,
    /** HTTP status (kind "http"). */
    readonly status?: number,
    readonly url?: string,
  ) {
    super(message);
    this.name = "TronRpcError";
  }
  /** Endpoint trouble that another attempt (or another URL) may not have. */
  get transient(): boolean {
    return this.kind !== "answer";
  }
  get rateLimited(): boolean {
    return this.kind === "http" && (this.status === 403 || this.status === 429);
  }
}

/** Same logger shape as the JSON-RPC client's. */
export type TronRpcLogger = RpcLogger;

export interface TronRpcOptions {
  urls: string[];
  /** Sent as TRON-PRO-API-KEY on every request (TronGrid). */
  apiKey?: string;
  /** Per HTTP request. Default 10 s. */
  timeoutMs?: number;
  /** Attempts per call across all URLs. Default max(3, 2 × URLs). */
  attempts?: number;
  /** First backoff of a failing URL; doubles per consecutive failure. Default 100 ms. */
  backoffBaseMs?: number;
  /** Default 30 s. */
  backoffMaxMs?: number;
  /** Shortest pause of a URL that answered 403/429 (TronGrid blocks ~30 s). Default 5 s. */
  rateLimitBackoffMs?: number;
  logger?: TronRpcLogger;
}

interface UrlHealth {
  url: string;
  failures: number;
  downUntil: number;
  lastError?: string;
  /** HTTP requests by outcome ("ok" or the error kind), for metrics. */
  outcomes: Record<string, number>;
}

export interface TronUrlHealth {
  url: string;
  healthy: boolean;
  /** False once DOWN_AFTER_FAILURES requests in a row failed, true again at the first success. */
  up: boolean;
  failures: number;
  lastError?: string;
  /** HTTP requests by outcome ("ok" or the error kind) since start. */
  outcomes: Record<string, number>;
}

/** A wait that ends early when `signal` aborts (shutdown). */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((r) => {
    if (signal?.aborted) return r();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      r();
    }
    signal?.addEventListener("abort", done, { once: true });
  });

export class TronRpc {
  private readonly health: UrlHealth[];
  /** Aborted by close(): requests in flight end at once, new ones fail (graceful shutdown within 5 s). */
  private readonly closing = new AbortController();
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly backoffBaseMs: number;
  private readonly backoffMaxMs: number;
  private readonly rateLimitBackoffMs: number;
  private readonly headers: Record<string, string>;
  private readonly logger?: TronRpcLogger;

  constructor(opts: TronRpcOptions) {
    if (opts.urls.length === 0) throw new Error("at least one TRON node URL is required");
    this.health = opts.urls.map((url) => ({ url: url.replace(/\/+$/, ""), failures: 0, downUntil: 0, outcomes: {} }));
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.attempts = opts.attempts ?? Math.max(3, 2 * opts.urls.length);
    this.backoffBaseMs = opts.backoffBaseMs ?? 100;
    this.backoffMaxMs = opts.backoffMaxMs ?? 30_000;
    this.rateLimitBackoffMs = opts.rateLimitBackoffMs ?? 5_000;
    this.headers = { "content-type": "application/json", ...(opts.apiKey ? { "TRON-PRO-API-KEY": opts.apiKey } : {}) };
    this.logger = opts.logger;
  }

  /** Aborts requests in flight and refuses new ones (shutdown). */
  close(): void {
    this.closing.abort();
  }

  healthSnapshot(): TronUrlHealth[] {
    const now = Date.now();
    return this.health.map((h) => ({ url: redactUrl(h.url), healthy: h.downUntil <= now, up: h.failures < DOWN_AFTER_FAILURES, failures: h.failures, lastError: h.lastError && redactIn(h.lastError, h.url), outcomes: { ...h.outcomes } }));
  }

  /** POST `path` (e.g. "wallet/getnowblock") with failover and backoff; the parsed JSON answer. */
  async post<T = unknown>(path: string, body: Record<string, unknown> = {}, opts: { attempts?: number } = {}): Promise<T> {
    const attempts = opts.attempts ?? this.attempts;
    let last: TronRpcError | undefined;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (this.closing.signal.aborted) throw new TronRpcError("client closed (shutting down)", "network");
      const h = await this.pick();
      if (this.closing.signal.aborted) throw new TronRpcError("client closed (shutting down)", "network");
      try {
        const json = await this.send(h.url, path, body);
        if (h.failures > 0) this.logger?.info({ msg: "tron endpoint recovered", url: redactUrl(h.url) });
        h.outcomes.ok = (h.outcomes.ok ?? 0) + 1;
        h.failures = 0;
        h.downUntil = 0;
        h.lastError = undefined;
        return json as T;
      } catch (e) {
        const err = e instanceof TronRpcError ? e : new TronRpcError(String(e), "network", undefined, h.url);
        // Aborted by close(): shutdown, not the endpoint's fault.
        if (this.closing.signal.aborted) throw err;
        last = err;
        h.outcomes[err.kind] = (h.outcomes[err.kind] ?? 0) + 1;
        this.markDown(h, err);
        this.logger?.warn({ msg: "tron call failed", call: path, url: redactUrl(h.url), kind: err.kind, status: err.status, error: redactIn(err.message, h.url), attempt: attempt + 1 });
      }
    }
    throw last ?? new TronRpcError(`${path} failed`, "network");
  }

  private markDown(h: UrlHealth, err: TronRpcError & { retryAfterMs?: number }) {
    h.failures++;
    let wait = Math.min(this.backoffMaxMs, this.backoffBaseMs * 2 ** (h.failures - 1));
    // Jitter so several watchers do not hammer a recovering endpoint in step.
    wait *= 0.75 + Math.random() * 0.5;
    if (err.rateLimited) wait = Math.max(wait, this.rateLimitBackoffMs);
    if (err.retryAfterMs !== undefined) wait = Math.max(wait, err.retryAfterMs);
    h.downUntil = Date.now() + Math.min(wait, this.backoffMaxMs);
    h.lastError = err.message;
  }

  /** The first healthy URL in preference order; if none, wait for the one that recovers first. */
  private async pick(): Promise<UrlHealth> {
    const now = Date.now();
    const ok = this.health.find((h) => h.downUntil <= now);
    if (ok) return ok;
    const soonest = this.health.reduce((a, b) => (b.downUntil < a.downUntil ? b : a));
    await sleep(Math.max(0, soonest.downUntil - now), this.closing.signal);
    return soonest;
  }

  private async send(base: string, path: string, body: unknown): Promise<unknown> {
    // A provider key may sit in the base URL's path or query: the API path goes after the base path.
    const u = new URL(base);
    u.pathname = `${u.pathname.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
    const url = u.toString();
    let res: Response;
    try {
      res = await fetch(url, { method: "POST", headers: this.headers, body: JSON.stringify(body), signal: AbortSignal.any([this.closing.signal, AbortSignal.timeout(this.timeoutMs)]) });
    } catch (e) {
      const name = (e as Error)?.name;
      if (name === "TimeoutError" || name === "AbortError") throw new TronRpcError(`timeout after ${this.timeoutMs} ms`, "timeout", undefined, base);
      throw new TronRpcError(`network error: ${(e as Error)?.message ?? e}`, "network", undefined, base);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      const name = (e as Error)?.name;
      throw new TronRpcError(`reading answer failed: ${(e as Error)?.message ?? e}`, name === "TimeoutError" || name === "AbortError" ? "timeout" : "network", undefined, base);
    }
    if (!res.ok) {
      const err = new TronRpcError(`HTTP ${res.status}: ${text.slice(0, 200)}`, "http", res.status, base) as TronRpcError & { retryAfterMs?: number };
      const ra = Number(res.headers.get("retry-after"));
      if (Number.isFinite(ra) && ra > 0) err.retryAfterMs = ra * 1000;
      throw err;
    }
    try {
      return text.trim() === "" ? {} : JSON.parse(text);
    } catch {
      throw new TronRpcError(`not JSON: ${text.slice(0, 200)}`, "http", res.status, base);
    }
  }
}
