// The TRON full-node HTTP API (POST /wallet/..., /walletsolidity/... with JSON bodies)
// over several endpoints, with the shared failover loop (src/chains/common/failover.ts):
// per-URL health, backoff on transport failures (network, timeout, HTTP 5xx), and a
// longer pause on rate limiting (HTTP 403/429: TronGrid suspends an IP or key for ~30 s). The API key goes in the TRON-PRO-API-KEY header and is never logged;
// URLs are logged only through redactUrl.
// Answers with HTTP 200 are answers, whatever they say ({"Error": ...} included): the
// caller interprets them.
import type { RpcLogger } from "../json-rpc";
import { endpointUrl, FailoverTransport, retryAfterMs, type EndpointHealth, type EndpointTarget, type RpcEndpoint, type SuspensionRule } from "../common/failover";
import type { Clock } from "../../lib/clock";

/** TronGrid suspends an IP or key that exceeds its rate with 403 or 429. */
const RATE_LIMIT_STATUSES = [403, 429] as const;

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
  retryAfterMs?: number;
  get httpStatus(): number | undefined {
    return this.kind === "http" ? this.status : undefined;
  }
  /** Endpoint trouble that another attempt (or another URL) may not have. */
  get transient(): boolean {
    return this.kind !== "answer";
  }
  get rateLimited(): boolean {
    return this.kind === "http" && (RATE_LIMIT_STATUSES as readonly number[]).includes(this.status ?? 0);
  }
}

/** Same logger shape as the JSON-RPC client's. */
export type TronRpcLogger = RpcLogger;

export interface TronRpcOptions {
  /** URLs, or tables with a URL, its rate limit and API keys (rotated in TRON-PRO-API-KEY). */
  urls: RpcEndpoint[];
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
  /** Drives endpoint backoff (tests move a TestClock). Default: real time. */
  clock?: Clock;
}

export type TronUrlHealth = EndpointHealth;

export class TronRpc {
  private readonly transport: FailoverTransport;
  private readonly timeoutMs: number;
  private readonly headers: Record<string, string>;

  constructor(opts: TronRpcOptions) {
    if (opts.urls.length === 0) throw new Error("at least one TRON node URL is required");
    const suspensions: SuspensionRule[] = [{ statuses: RATE_LIMIT_STATUSES, minPauseMs: opts.rateLimitBackoffMs ?? 5_000 }];
    this.transport = new FailoverTransport({
      urls: opts.urls.map((e) => (typeof e === "string" ? e.replace(/\/+$/, "") : { ...e, url: endpointUrl(e).replace(/\/+$/, "") })),
      apiKeyHeader: "TRON-PRO-API-KEY",
      attempts: opts.attempts,
      backoffBaseMs: opts.backoffBaseMs,
      backoffMaxMs: opts.backoffMaxMs ?? 30_000,
      suspensions,
      logger: opts.logger,
      logName: "tron",
      clock: opts.clock,
    });
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.headers = { "content-type": "application/json", ...(opts.apiKey ? { "TRON-PRO-API-KEY": opts.apiKey } : {}) };
  }

  /** Aborts requests in flight and refuses new ones (shutdown). */
  close(): void {
    this.transport.close();
  }

  healthSnapshot(): TronUrlHealth[] {
    return this.transport.healthSnapshot();
  }

  /** POST `path` (e.g. "wallet/getnowblock") with failover and backoff; the parsed JSON answer. */
  post<T = unknown>(path: string, body: Record<string, unknown> = {}, opts: { attempts?: number } = {}): Promise<T> {
    return this.transport.run({
      call: path,
      attempts: opts.attempts,
      exchange: (t) => this.send(t, path, body) as Promise<T>,
      asFailure: (e, url) => (e instanceof TronRpcError ? e : new TronRpcError(String(e), "network", undefined, url)),
      closed: () => new TronRpcError("client closed (shutting down)", "network"),
    });
  }

  /** GET `path` with a query (TronGrid's /v1 REST API: an account's TRC20 history), with failover and backoff; null when the endpoint does not serve it (404). */
  get<T = unknown>(path: string, query: Record<string, string | number | boolean> = {}): Promise<T | null> {
    return this.transport.run({
      call: path.replace(/\/T[1-9A-HJ-NP-Za-km-z]{33}\//, "/…/"),
      exchange: (t) => this.send(t, path, null, query) as Promise<T | null>,
      asFailure: (e, url) => (e instanceof TronRpcError ? e : new TronRpcError(String(e), "network", undefined, url)),
      closed: () => new TronRpcError("client closed (shutting down)", "network"),
    });
  }

  /** One request: POST with a JSON body, or GET (body null) with `query`. */
  private async send(t: EndpointTarget, path: string, body: unknown, query: Record<string, string | number | boolean> = {}): Promise<unknown> {
    // A provider key may sit in the base URL's path or query: the API path goes after the base path.
    const base = t.url;
    const u = new URL(base);
    u.pathname = `${u.pathname.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
    for (const [k, v] of Object.entries(query)) u.searchParams.set(k, String(v));
    const url = u.toString();
    const headers = { ...this.headers, ...t.headers };
    let res: Response;
    try {
      const signal = AbortSignal.any([this.transport.signal, AbortSignal.timeout(this.timeoutMs)]);
      res = await fetch(url, body === null ? { method: "GET", headers, signal } : { method: "POST", headers, body: JSON.stringify(body), signal });
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
    // A GET of TronGrid's v1 API on a node that does not serve it: an answer (null), not an endpoint fault.
    if (body === null && res.status === 404) return null;
    if (!res.ok) {
      const err = new TronRpcError(`HTTP ${res.status}: ${text.slice(0, 200)}`, "http", res.status, base);
      err.retryAfterMs = retryAfterMs(res);
      throw err;
    }
    try {
      return text.trim() === "" ? {} : JSON.parse(text);
    } catch {
      throw new TronRpcError(`not JSON: ${text.slice(0, 200)}`, "http", res.status, base);
    }
  }
}
