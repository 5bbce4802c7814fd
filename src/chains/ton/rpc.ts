// The toncenter v3 HTTP API (GET /api/v3/…, POST /api/v3/runGetMethod, /api/v3/message) over
// several endpoints with the shared failover loop (src/chains/common/failover.ts): per-URL
// health, backoff on transport failures, a pause on rate limiting (HTTP 429; toncenter answers
// it past 1 request/s without a key). The key goes in the X-API-Key header and is never logged.
// Answers with HTTP 200 are answers; the caller interprets them.
import type { RpcLogger } from "../json-rpc";
import { endpointUrl, FailoverTransport, retryAfterMs, type EndpointHealth, type EndpointTarget, type RpcEndpoint } from "../common/failover";
import type { Clock } from "../../lib/clock";

const RATE_LIMIT_STATUSES = [429] as const;

export class TonRpcError extends Error {
  retryAfterMs?: number;
  constructor(
    message: string,
    readonly kind: "http" | "timeout" | "network",
    readonly status?: number,
  ) {
    super(message);
    this.name = "TonRpcError";
  }
  get httpStatus(): number | undefined {
    return this.kind === "http" ? this.status : undefined;
  }
}

export interface TonRpcOptions {
  /** Base URLs up to the API root, e.g. "https://toncenter.com" (the client adds /api/v3/…), or tables with a URL, its rate limit and API keys (rotated in X-API-Key). */
  urls: RpcEndpoint[];
  apiKey?: string;
  timeoutMs?: number;
  attempts?: number;
  backoffBaseMs?: number;
  logger?: RpcLogger;
  clock?: Clock;
}

export class TonRpc {
  private readonly transport: FailoverTransport;
  private readonly timeoutMs: number;
  private readonly headers: Record<string, string>;

  constructor(opts: TonRpcOptions) {
    if (opts.urls.length === 0) throw new Error("at least one toncenter URL is required");
    this.transport = new FailoverTransport({
      urls: opts.urls.map((e) => (typeof e === "string" ? e.replace(/\/+$/, "") : { ...e, url: endpointUrl(e).replace(/\/+$/, "") })),
      apiKeyHeader: "X-API-Key",
      attempts: opts.attempts,
      backoffBaseMs: opts.backoffBaseMs,
      backoffMaxMs: 30_000,
      suspensions: [{ statuses: RATE_LIMIT_STATUSES, minPauseMs: 1_000 }],
      logger: opts.logger,
      logName: "ton",
      clock: opts.clock,
    });
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.headers = { "content-type": "application/json", ...(opts.apiKey ? { "X-API-Key": opts.apiKey } : {}) };
  }

  close(): void {
    this.transport.close();
  }

  healthSnapshot(): EndpointHealth[] {
    return this.transport.healthSnapshot();
  }

  /** GET /api/v3/`path` with the query (undefined values left out). */
  get<T>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
    const q = new URLSearchParams(Object.entries(query).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])));
    return this.call<T>(path, "GET", `?${q.toString()}`, undefined);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>(path, "POST", "", JSON.stringify(body));
  }

  /**
   * POST /api/v3/message: the node's refusal of the message itself (HTTP 400 or 500 with an
   * `error`, e.g. "cannot apply external message to current state") is an answer, not an
   * endpoint failure: it is not retried elsewhere and marks no endpoint down.
   */
  sendMessage(boc: string): Promise<{ refused?: string }> {
    return this.call<{ refused?: string }>("message", "POST", "", JSON.stringify({ boc }), true);
  }

  private call<T>(path: string, method: string, query: string, body: string | undefined, refusals = false): Promise<T> {
    return this.transport.run({
      call: path,
      exchange: (base) => this.send(base, path, method, query, body, refusals) as Promise<T>,
      asFailure: (e) => (e instanceof TonRpcError ? e : new TonRpcError(String(e), "network")),
      closed: () => new TonRpcError("client closed (shutting down)", "network"),
    });
  }

  private async send(t: EndpointTarget, path: string, method: string, query: string, body: string | undefined, refusals = false): Promise<unknown> {
    const u = new URL(t.url);
    u.pathname = `${u.pathname.replace(/\/+$/, "")}/api/v3/${path}`;
    let res: Response;
    let text: string;
    try {
      res = await fetch(u.toString() + query, { method, headers: { ...this.headers, ...t.headers }, body, signal: AbortSignal.any([this.transport.signal, AbortSignal.timeout(this.timeoutMs)]) });
      text = await res.text();
    } catch (e) {
      const name = (e as Error)?.name;
      if (name === "TimeoutError" || name === "AbortError") throw new TonRpcError(`timeout after ${this.timeoutMs} ms`, "timeout");
      throw new TonRpcError(`network error: ${(e as Error)?.message ?? e}`, "network");
    }
    if (!res.ok && refusals && (res.status === 400 || res.status === 500)) {
      const error = (() => {
        try {
          return (JSON.parse(text) as { error?: unknown }).error;
        } catch {
          return undefined;
        }
      })();
      if (typeof error === "string") return { refused: error.slice(0, 300) };
    }
    if (!res.ok) {
      const err = new TonRpcError(`HTTP ${res.status}: ${text.slice(0, 200)}`, "http", res.status);
      err.retryAfterMs = retryAfterMs(res);
      throw err;
    }
    try {
      return JSON.parse(text);
    } catch {
      throw new TonRpcError(`not JSON: ${text.slice(0, 200)}`, "http", res.status);
    }
  }
}
