// JSON-RPC over several HTTP endpoints, with failover, per-URL health and backoff from
// src/chains/common/failover.ts (transport failures: network, timeout, HTTP 429/5xx), and batch requests.
// JSON-RPC error objects are answers, not endpoint failures: they go back to the caller,
// except a plain -32603 "internal error" to a single call, which load-balanced providers
// return when a backend fails; that one is retried like a transport failure.
import { DOWN_AFTER_FAILURES, FailoverTransport, retryAfterMs, type EndpointHealth, type EndpointTarget, type FailoverLogger, type RpcEndpoint } from "./common/failover";
import { redactUrl } from "../lib/redact-url";
import type { Clock } from "../lib/clock";

// Re-exported for existing imports (the loop and the URL redaction live in common/ and lib/).
export { DOWN_AFTER_FAILURES, redactUrl };

export type RpcErrorKind = "rpc" | "http" | "timeout" | "network";

export class RpcError extends Error {
  constructor(
    message: string,
    readonly kind: RpcErrorKind,
    /** JSON-RPC error code (kind "rpc") or HTTP status (kind "http"). */
    readonly code?: number,
    readonly data?: unknown,
    readonly url?: string,
  ) {
    super(message);
    this.name = "RpcError";
  }
  retryAfterMs?: number;
  /** True for endpoint trouble that another attempt (or another URL) may not have. */
  get transient(): boolean {
    return this.kind !== "rpc";
  }
  get httpStatus(): number | undefined {
    return this.kind === "http" ? this.code : undefined;
  }
}

export type RpcLogger = FailoverLogger;

export interface RpcClientOptions {
  /** URLs, or tables with a URL, its rate limit and API keys (chains.<CODE>.rpc_urls). */
  urls: RpcEndpoint[];
  /** Per HTTP request. Default 10 s. */
  timeoutMs?: number;
  /** Attempts per call across all URLs for transport failures. Default max(3, 2 × URLs). */
  attempts?: number;
  /** First backoff of a failing URL; doubles per consecutive failure. Default 100 ms. */
  backoffBaseMs?: number;
  /** Default 10 s. */
  backoffMaxMs?: number;
  /** Largest batch sent in one HTTP request; bigger batches are split. Default 50. */
  maxBatch?: number;
  logger?: RpcLogger;
  /** Drives endpoint backoff (tests move a TestClock). Default: real time. */
  clock?: Clock;
  /** Shortest pause of an endpoint that answered 429 (Retry-After, when longer, wins). Default 250 ms. */
  throttlePauseMs?: number;
}

export interface CallOptions {
  /** Override the attempt count (1 = no retry; the caller handles failures). */
  attempts?: number;
}

export interface RpcCall {
  method: string;
  params: unknown[];
}

export type UrlHealthSnapshot = EndpointHealth;

export class RpcClient {
  private readonly transport: FailoverTransport;
  private readonly timeoutMs: number;
  private readonly maxBatch: number;
  private nextId = 1;

  constructor(opts: RpcClientOptions) {
    if (opts.urls.length === 0) throw new Error("at least one RPC URL is required");
    this.transport = new FailoverTransport({
      urls: opts.urls,
      attempts: opts.attempts,
      backoffBaseMs: opts.backoffBaseMs,
      backoffMaxMs: opts.backoffMaxMs ?? 10_000,
      suspensions: [{ statuses: [429], minPauseMs: opts.throttlePauseMs ?? 250 }],
      logger: opts.logger,
      logName: "rpc",
      clock: opts.clock,
    });
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.maxBatch = opts.maxBatch ?? 50;
  }

  private get attempts(): number {
    return this.transport.attempts;
  }

  /** Aborts requests in flight and refuses new ones (shutdown). */
  close(): void {
    this.transport.close();
  }

  healthSnapshot(): UrlHealthSnapshot[] {
    return this.transport.healthSnapshot();
  }

  /** One call; throws RpcError (kind "rpc" for a JSON-RPC error answer). */
  async request<T = unknown>(method: string, params: unknown[] = [], opts: CallOptions = {}): Promise<T> {
    const body = { jsonrpc: "2.0", id: this.nextId++, method, params };
    const res = await this.send(body, opts.attempts ?? this.attempts, method);
    if (Array.isArray(res) || typeof res !== "object" || res === null) {
      throw new RpcError(`malformed JSON-RPC answer to ${method}`, "rpc", -32700);
    }
    return unwrap<T>(res as JsonRpcResponse, method);
  }

  /**
   * The same call on every endpoint, one attempt each (no failover): for conclusions one
   * endpoint must not draw alone ("nonce too low": does any endpoint know our transaction?).
   * Each element is that endpoint's result or its RpcError.
   */
  async requestEvery<T = unknown>(method: string, params: unknown[] = []): Promise<Array<T | RpcError>> {
    return this.transport.onEach(
      async (t) => {
        const json = await this.post(t, { jsonrpc: "2.0", id: this.nextId++, method, params });
        if (Array.isArray(json) || typeof json !== "object" || json === null) throw new RpcError(`malformed JSON-RPC answer to ${method}`, "rpc", -32700, undefined, t.url);
        return unwrap<T>(json as JsonRpcResponse, method);
      },
      (e, url) => (e instanceof RpcError ? e : new RpcError(String(e), "network", undefined, undefined, url)),
    ) as Promise<Array<T | RpcError>>;
  }

  /**
   * Several calls in JSON-RPC batches; each element is the result or the RpcError of that call.
   * Transport failures of a whole batch are retried like single calls and thrown at the end.
   */
  async batch(calls: RpcCall[], opts: CallOptions = {}): Promise<Array<unknown | RpcError>> {
    const out: Array<unknown | RpcError> = [];
    for (let i = 0; i < calls.length; i += this.maxBatch) {
      const part = calls.slice(i, i + this.maxBatch);
      if (part.length === 1) {
        try {
          out.push(await this.request(part[0].method, part[0].params, opts));
        } catch (e) {
          if (e instanceof RpcError && e.kind === "rpc") out.push(e);
          else throw e;
        }
        continue;
      }
      const bodies = part.map((c) => ({ jsonrpc: "2.0", id: this.nextId++, method: c.method, params: c.params }));
      const res = await this.send(bodies, opts.attempts ?? this.attempts, "batch");
      if (!Array.isArray(res)) {
        // Some endpoints refuse batches with one error object: fall back to single calls.
        for (const c of part) {
          try {
            out.push(await this.request(c.method, c.params, opts));
          } catch (e) {
            if (e instanceof RpcError && e.kind === "rpc") out.push(e);
            else throw e;
          }
        }
        continue;
      }
      const byId = new Map<unknown, JsonRpcResponse>();
      for (const r of res as JsonRpcResponse[]) byId.set(r?.id, r);
      for (let j = 0; j < bodies.length; j++) {
        const r = byId.get(bodies[j].id);
        if (!r) {
          out.push(new RpcError(`no answer for ${part[j].method} in batch`, "rpc", -32603));
          continue;
        }
        try {
          out.push(unwrap(r, part[j].method));
        } catch (e) {
          out.push(e);
        }
      }
    }
    return out;
  }

  /** POST with failover and backoff; returns the parsed JSON body. */
  private send(body: unknown, attempts: number, label: string): Promise<unknown> {
    return this.transport.run({
      call: label,
      attempts,
      exchange: async (t) => {
        const url = t.url;
        const json = await this.post(t, body);
        // A plain -32603 is a load-balanced backend failing: retried like a transport failure.
        const busy = backendFailure(json);
        if (busy) throw new RpcError(`${label}: ${busy.message ?? "internal error"}`, "rpc", busy.code, busy.data, url);
        return json;
      },
      asFailure: (e, url) => (e instanceof RpcError ? e : new RpcError(String(e), "network", undefined, undefined, url)),
      closed: () => new RpcError("client closed (shutting down)", "network"),
    });
  }

  private async post(t: EndpointTarget, body: unknown): Promise<unknown> {
    const url = t.url;
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...t.headers },
        body: JSON.stringify(body),
        signal: AbortSignal.any([this.transport.signal, AbortSignal.timeout(this.timeoutMs)]),
      });
    } catch (e) {
      const name = (e as Error)?.name;
      if (name === "TimeoutError" || name === "AbortError") {
        throw new RpcError(`timeout after ${this.timeoutMs} ms`, "timeout", undefined, undefined, url);
      }
      throw new RpcError(`network error: ${(e as Error)?.message ?? e}`, "network", undefined, undefined, url);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      const name = (e as Error)?.name;
      const kind = name === "TimeoutError" || name === "AbortError" ? "timeout" : "network";
      throw new RpcError(`reading answer failed: ${(e as Error)?.message ?? e}`, kind, undefined, undefined, url);
    }
    if (!res.ok) {
      const err = new RpcError(`HTTP ${res.status}: ${text.slice(0, 200)}`, "http", res.status, undefined, url);
      err.retryAfterMs = retryAfterMs(res);
      throw err;
    }
    try {
      return JSON.parse(text);
    } catch {
      throw new RpcError(`not JSON: ${text.slice(0, 200)}`, "http", res.status, undefined, url);
    }
  }
}

interface JsonRpcResponse {
  id?: unknown;
  result?: unknown;
  error?: { code?: number; message?: string; data?: unknown };
}

function backendFailure(json: unknown): JsonRpcResponse["error"] | null {
  if (Array.isArray(json)) {
    // A whole batch of internal errors is the backend failing, not the calls.
    const all = json.length > 0 && json.every((r) => (r as JsonRpcResponse)?.error?.code === -32603);
    return all ? (json[0] as JsonRpcResponse).error! : null;
  }
  if (!json || typeof json !== "object") return null;
  const e = (json as JsonRpcResponse).error;
  return e && e.code === -32603 ? e : null;
}

function unwrap<T>(r: JsonRpcResponse, method: string): T {
  if (r.error) {
    throw new RpcError(`${method}: ${r.error.message ?? "error"}`, "rpc", r.error.code, r.error.data);
  }
  if (!("result" in r)) throw new RpcError(`${method}: answer without result`, "rpc", -32603);
  return r.result as T;
}
