// JSON-RPC over several HTTP endpoints: per-URL health, failover in list order
// (the first URL is the preferred one), exponential backoff per URL on transport
// failures (network, timeout, HTTP 429/5xx), and batch requests.
// JSON-RPC error objects are answers, not endpoint failures: they go back to the caller,
// except a plain -32603 "internal error" to a single call, which load-balanced providers
// return when a backend fails; that one is retried like a transport failure.

/**
 * An endpoint counts as down (readiness, metrics, the rpc_down alert) after this many
 * failed requests in a row: one failed call with its retries, not a single 429.
 */
export const DOWN_AFTER_FAILURES = 3;

export type RpcErrorKind = "rpc" | "http" | "timeout" | "network";

import { redactUrl } from "../lib/redact-url";

// Moved to src/lib/redact-url.ts (shared with TRON); re-exported for existing imports.
export { redactUrl };

const redactIn = (text: string, url: string) => text.split(url).join(redactUrl(url));

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
  /** True for endpoint trouble that another attempt (or another URL) may not have. */
  get transient(): boolean {
    return this.kind !== "rpc";
  }
}

export interface RpcLogger {
  info(obj: Record<string, unknown>): void;
  warn(obj: Record<string, unknown>): void;
  error(obj: Record<string, unknown>): void;
}

export interface RpcClientOptions {
  urls: string[];
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
}

export interface CallOptions {
  /** Override the attempt count (1 = no retry; the caller handles failures). */
  attempts?: number;
}

export interface RpcCall {
  method: string;
  params: unknown[];
}

interface UrlHealth {
  url: string;
  failures: number;
  downUntil: number;
  lastError?: string;
  /** HTTP requests by outcome ("ok" or the error kind), for metrics. */
  outcomes: Record<string, number>;
}

export interface UrlHealthSnapshot {
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

export class RpcClient {
  private readonly health: UrlHealth[];
  /** Aborted by close(): requests in flight end at once, new ones fail (graceful shutdown within 5 s). */
  private readonly closing = new AbortController();
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly backoffBaseMs: number;
  private readonly backoffMaxMs: number;
  private readonly maxBatch: number;
  private readonly logger?: RpcLogger;
  private nextId = 1;

  constructor(opts: RpcClientOptions) {
    if (opts.urls.length === 0) throw new Error("at least one RPC URL is required");
    this.health = opts.urls.map((url) => ({ url, failures: 0, downUntil: 0, outcomes: {} }));
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.attempts = opts.attempts ?? Math.max(3, 2 * opts.urls.length);
    this.backoffBaseMs = opts.backoffBaseMs ?? 100;
    this.backoffMaxMs = opts.backoffMaxMs ?? 10_000;
    this.maxBatch = opts.maxBatch ?? 50;
    this.logger = opts.logger;
  }

  /** Aborts requests in flight and refuses new ones (shutdown). */
  close(): void {
    this.closing.abort();
  }

  healthSnapshot(): UrlHealthSnapshot[] {
    const now = Date.now();
    return this.health.map((h) => ({ url: redactUrl(h.url), healthy: h.downUntil <= now, up: h.failures < DOWN_AFTER_FAILURES, failures: h.failures, lastError: h.lastError && redactIn(h.lastError, h.url), outcomes: { ...h.outcomes } }));
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
  private async send(body: unknown, attempts: number, label: string): Promise<unknown> {
    let last: RpcError | undefined;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (this.closing.signal.aborted) throw new RpcError("client closed (shutting down)", "network");
      const h = await this.pick();
      if (this.closing.signal.aborted) throw new RpcError("client closed (shutting down)", "network");
      try {
        const json = await this.post(h.url, body);
        const busy = backendFailure(json);
        if (busy) throw new RpcError(`${label}: ${busy.message ?? "internal error"}`, "rpc", busy.code, busy.data, h.url);
        if (h.failures > 0) this.logger?.info({ msg: "rpc endpoint recovered", url: redactUrl(h.url) });
        h.outcomes.ok = (h.outcomes.ok ?? 0) + 1;
        h.failures = 0;
        h.downUntil = 0;
        h.lastError = undefined;
        return json;
      } catch (e) {
        const err = e instanceof RpcError ? e : new RpcError(String(e), "network", undefined, undefined, h.url);
        // Aborted by close(): shutdown, not the endpoint's fault.
        if (this.closing.signal.aborted) throw err;
        last = err;
        h.outcomes[err.kind] = (h.outcomes[err.kind] ?? 0) + 1;
        this.markDown(h, err);
        this.logger?.warn({ msg: "rpc call failed", call: label, url: redactUrl(h.url), kind: err.kind, error: redactIn(err.message, h.url), attempt: attempt + 1 });
      }
    }
    throw last ?? new RpcError(`${label} failed`, "network");
  }

  private markDown(h: UrlHealth, err: RpcError & { retryAfterMs?: number }) {
    h.failures++;
    const exp = Math.min(this.backoffMaxMs, this.backoffBaseMs * 2 ** (h.failures - 1));
    // Jitter so several watchers do not hammer a recovering endpoint in step.
    let wait = exp * (0.75 + Math.random() * 0.5);
    if (err.retryAfterMs !== undefined) wait = Math.min(this.backoffMaxMs, Math.max(wait, err.retryAfterMs));
    h.downUntil = Date.now() + wait;
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

  private async post(url: string, body: unknown): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.any([this.closing.signal, AbortSignal.timeout(this.timeoutMs)]),
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
      const err = new RpcError(`HTTP ${res.status}: ${text.slice(0, 200)}`, "http", res.status, undefined, url) as RpcError & {
        retryAfterMs?: number;
      };
      const ra = Number(res.headers.get("retry-after"));
      if (Number.isFinite(ra) && ra > 0) err.retryAfterMs = ra * 1000;
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
