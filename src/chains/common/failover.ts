// One failover loop for every chain's node transport (JSON-RPC for BSC/SOL, TRON's HTTP
// API): endpoints in preference order (the first URL is the preferred one), per-endpoint
// health, exponential backoff with jitter per endpoint on transport failures, and pauses
// for HTTP statuses that mean "suspended" (rate limits) as data, not code. The protocol
// (what a request looks like, which answers are failures) stays with the caller.
import { type Clock, sleep, systemClock } from "../../lib/clock";
import { redactIn, redactUrl } from "../../lib/redact-url";

/**
 * An endpoint counts as down (readiness, metrics, the rpc_down alert) after this many
 * failed requests in a row: one failed call with its retries, not a single 429.
 */
export const DOWN_AFTER_FAILURES = 3;

export interface FailoverLogger {
  info(obj: Record<string, unknown>): void;
  warn(obj: Record<string, unknown>): void;
  error(obj: Record<string, unknown>): void;
}

/** An endpoint that answers one of `statuses` is paused at least `minPauseMs`, even on its first failure. */
export interface SuspensionRule {
  statuses: readonly number[];
  minPauseMs: number;
}

/** What the loop needs to know of a failed exchange (the caller's error classes carry these). */
export interface EndpointFailure extends Error {
  /** Outcome counter key: "http", "timeout", "network", or the protocol's own kind. */
  readonly kind: string;
  /** HTTP status, when the failure is one. */
  readonly httpStatus?: number;
  /** From a Retry-After header. */
  retryAfterMs?: number;
}

/**
 * One configured endpoint (`chains.<CODE>.rpc_urls`): a URL, or a table with its own request
 * rate (`rate_limit`, requests per second, a token bucket) and several `api_keys` used in turn.
 * A key goes where the URL says `{api_key}`, else in the client's key header.
 */
export type RpcEndpoint = string | { url: string; rate_limit?: number; api_keys?: string[] };

/** The URL of an endpoint as configured (with `{api_key}` still in it: safe to log). */
export const endpointUrl = (e: RpcEndpoint): string => (typeof e === "string" ? e : e.url);

export interface FailoverOptions {
  urls: RpcEndpoint[];
  /** Header a rotated key goes in when the URL has no `{api_key}` (TRON: TRON-PRO-API-KEY). Default x-api-key. */
  apiKeyHeader?: string;
  /** Attempts per call across all URLs. Default max(3, 2 × URLs). */
  attempts?: number;
  /** First backoff of a failing URL; doubles per consecutive failure. Default 100 ms. */
  backoffBaseMs?: number;
  backoffMaxMs: number;
  suspensions?: readonly SuspensionRule[];
  logger?: FailoverLogger;
  /** Prefix of the log messages ("rpc", "tron"). */
  logName: string;
  /** Pauses and waits run on this clock (tests move a TestClock). Default: real time. */
  clock?: Clock;
}

export interface EndpointHealth {
  url: string;
  healthy: boolean;
  /** False once DOWN_AFTER_FAILURES requests in a row failed, true again at the first success. */
  up: boolean;
  failures: number;
  lastError?: string;
  /** HTTP requests by outcome ("ok" or the error kind) since start. */
  outcomes: Record<string, number>;
  /** Answers that said "slow down" (HTTP 429, or a status of a suspension rule such as TronGrid's 403) since start. */
  throttled: number;
}

/** What an exchange sends to: the URL (a rotated key in place of `{api_key}`) and the key's header. */
export interface EndpointTarget {
  url: string;
  headers: Record<string, string>;
}

interface Endpoint {
  url: string;
  failures: number;
  downUntil: number;
  lastError?: string;
  outcomes: Record<string, number>;
  throttled: number;
  bucket: TokenBucket | null;
  keys: readonly string[];
  nextKey: number;
}

/**
 * Requests per second as a token bucket (a burst of up to one second's worth): take() resolves
 * when the request may go. Reservations are handed out in order, so concurrent callers queue.
 */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly perSecond: number,
    private readonly clock: Clock,
  ) {
    this.tokens = Math.max(1, perSecond);
    this.at = clock.now();
  }

  /** Ms to wait before the next request may go (0: now); the request's token is taken. */
  reserve(): number {
    const now = this.clock.now();
    const cap = Math.max(1, this.perSecond);
    this.tokens = Math.min(cap, this.tokens + ((now - this.at) * this.perSecond) / 1000);
    this.at = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens * 1000) / this.perSecond);
  }
}

/** HTTP statuses that mean "too many requests" from every provider. */
const THROTTLE_STATUS = 429;

export class FailoverTransport {
  private readonly endpoints: Endpoint[];
  /** Aborted by close(): requests in flight end at once, new ones fail (graceful shutdown within 5 s). */
  private readonly closing = new AbortController();
  readonly attempts: number;
  private readonly backoffBaseMs: number;
  private readonly backoffMaxMs: number;
  private readonly suspensions: readonly SuspensionRule[];
  private readonly clock: Clock;

  constructor(private readonly opts: FailoverOptions) {
    this.clock = opts.clock ?? systemClock;
    this.endpoints = opts.urls.map((e) => {
      const spec = typeof e === "string" ? { url: e } : e;
      const rate = spec.rate_limit;
      return { url: spec.url, failures: 0, downUntil: 0, outcomes: {}, throttled: 0, bucket: rate && rate > 0 ? new TokenBucket(rate, this.clock) : null, keys: spec.api_keys ?? [], nextKey: 0 };
    });
    this.attempts = opts.attempts ?? Math.max(3, 2 * opts.urls.length);
    this.backoffBaseMs = opts.backoffBaseMs ?? 100;
    this.backoffMaxMs = opts.backoffMaxMs;
    this.suspensions = opts.suspensions ?? [];
  }

  /** Aborted at shutdown: pass it to every request. */
  get signal(): AbortSignal {
    return this.closing.signal;
  }

  /** Aborts requests in flight and refuses new ones (shutdown). */
  close(): void {
    this.closing.abort();
  }

  healthSnapshot(): EndpointHealth[] {
    const now = this.clock.now();
    return this.endpoints.map((h) => ({
      url: redactUrl(h.url),
      healthy: h.downUntil <= now,
      up: h.failures < DOWN_AFTER_FAILURES,
      failures: h.failures,
      lastError: h.lastError && redactIn(h.lastError, h.url),
      outcomes: { ...h.outcomes },
      throttled: h.throttled,
    }));
  }

  /** The number of endpoints. */
  get size(): number {
    return this.endpoints.length;
  }

  /**
   * The endpoint's rate limit honoured (waits for its token) and its next key: where one request
   * goes. Keys rotate per request, so a provider's per-key quota is shared among them.
   */
  private async target(h: Endpoint): Promise<EndpointTarget> {
    const wait = h.bucket?.reserve() ?? 0;
    if (wait > 0) await sleep(this.clock, wait, this.closing.signal);
    if (h.keys.length === 0) return { url: h.url, headers: {} };
    const key = h.keys[h.nextKey++ % h.keys.length]!;
    if (h.url.includes("{api_key}")) return { url: h.url.replaceAll("{api_key}", encodeURIComponent(key)), headers: {} };
    return { url: h.url, headers: { [this.opts.apiKeyHeader ?? "x-api-key"]: key } };
  }

  /** One attempt on every endpoint (no failover, each within its rate limit): for conclusions one endpoint must not draw alone. */
  async onEach<T>(exchange: (t: EndpointTarget) => Promise<T>, asFailure: (e: unknown, url: string) => EndpointFailure): Promise<Array<T | EndpointFailure>> {
    return Promise.all(
      this.endpoints.map(async (h) => {
        try {
          return await exchange(await this.target(h));
        } catch (e) {
          const err = asFailure(e, h.url);
          this.countThrottle(h, err);
          return err;
        }
      }),
    );
  }

  private countThrottle(h: Endpoint, err: EndpointFailure): void {
    const s = err.httpStatus;
    if (s === undefined) return;
    if (s === THROTTLE_STATUS || this.suspensions.some((r) => r.statuses.includes(s))) h.throttled++;
  }

  /**
   * Runs `exchange` against the first healthy endpoint, failing over on errors. `asFailure`
   * turns whatever `exchange` threw into the caller's error; `closed` is thrown at shutdown.
   */
  async run<T, E extends EndpointFailure>(a: {
    call: string;
    attempts?: number;
    /** Sends one request to `t.url` with `t.headers` (the endpoint's rotated API key, if any). */
    exchange: (t: EndpointTarget) => Promise<T>;
    asFailure: (e: unknown, url: string) => E;
    closed: () => E;
  }): Promise<T> {
    const attempts = a.attempts ?? this.attempts;
    const log = this.opts.logger;
    let last: E | undefined;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (this.closing.signal.aborted) throw a.closed();
      const h = await this.pick();
      if (this.closing.signal.aborted) throw a.closed();
      try {
        const out = await a.exchange(await this.target(h));
        if (h.failures > 0) log?.info({ msg: `${this.opts.logName} endpoint recovered`, url: redactUrl(h.url) });
        h.outcomes.ok = (h.outcomes.ok ?? 0) + 1;
        h.failures = 0;
        h.downUntil = 0;
        h.lastError = undefined;
        return out;
      } catch (e) {
        const err = a.asFailure(e, h.url);
        // Aborted by close(): shutdown, not the endpoint's fault.
        if (this.closing.signal.aborted) throw err;
        last = err;
        h.outcomes[err.kind] = (h.outcomes[err.kind] ?? 0) + 1;
        this.countThrottle(h, err);
        this.markDown(h, err);
        log?.warn({ msg: `${this.opts.logName} call failed`, call: a.call, url: redactUrl(h.url), kind: err.kind, status: err.httpStatus, error: redactIn(err.message, h.url), attempt: attempt + 1 });
      }
    }
    throw last ?? a.asFailure(new Error(`${a.call} failed`), "");
  }

  /**
   * Pause length after a failure: backoff with jitter, at most backoffMaxMs; at least the
   * Retry-After the endpoint sent (up to a minute), or without one a matching suspension rule.
   */
  pauseFor(failures: number, err: EndpointFailure): number {
    let wait = Math.min(this.backoffMaxMs, this.backoffBaseMs * 2 ** (failures - 1));
    // Jitter so several watchers do not hammer a recovering endpoint in step.
    wait *= 0.75 + Math.random() * 0.5;
    wait = Math.min(wait, this.backoffMaxMs);
    // The endpoint said how long: that, even past backoffMaxMs (a minute at most), instead of a rule's guess.
    if (err.retryAfterMs !== undefined) return Math.max(wait, Math.min(err.retryAfterMs, Math.max(this.backoffMaxMs, RETRY_AFTER_MAX_MS)));
    for (const r of this.suspensions) if (err.httpStatus !== undefined && r.statuses.includes(err.httpStatus)) wait = Math.max(wait, r.minPauseMs);
    return Math.min(wait, this.backoffMaxMs);
  }

  private markDown(h: Endpoint, err: EndpointFailure) {
    h.failures++;
    h.downUntil = this.clock.now() + this.pauseFor(h.failures, err);
    h.lastError = err.message;
  }

  /** The first healthy URL in preference order; if none, wait for the one that recovers first. */
  private async pick(): Promise<Endpoint> {
    const now = this.clock.now();
    const ok = this.endpoints.find((h) => h.downUntil <= now);
    if (ok) return ok;
    const soonest = this.endpoints.reduce((a, b) => (b.downUntil < a.downUntil ? b : a));
    await sleep(this.clock, Math.max(0, soonest.downUntil - now), this.closing.signal);
    return soonest;
  }
}

/** Longest Retry-After honoured. */
export const RETRY_AFTER_MAX_MS = 60_000;

/** The Retry-After header in ms: a positive number of seconds, or an HTTP date still ahead. */
export function retryAfterMs(res: Response, now = Date.now()): number | undefined {
  const raw = res.headers.get("retry-after")?.trim();
  if (!raw) return undefined;
  const ra = Number(raw);
  if (Number.isFinite(ra)) return ra > 0 ? ra * 1000 : undefined;
  const at = Date.parse(raw);
  return Number.isFinite(at) && at > now ? at - now : undefined;
}
