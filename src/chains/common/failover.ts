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

export interface FailoverOptions {
  urls: string[];
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
}

interface Endpoint {
  url: string;
  failures: number;
  downUntil: number;
  lastError?: string;
  outcomes: Record<string, number>;
}

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
    this.endpoints = opts.urls.map((url) => ({ url, failures: 0, downUntil: 0, outcomes: {} }));
    this.attempts = opts.attempts ?? Math.max(3, 2 * opts.urls.length);
    this.backoffBaseMs = opts.backoffBaseMs ?? 100;
    this.backoffMaxMs = opts.backoffMaxMs;
    this.suspensions = opts.suspensions ?? [];
    this.clock = opts.clock ?? systemClock;
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
    return this.endpoints.map((h) => ({ url: redactUrl(h.url), healthy: h.downUntil <= now, up: h.failures < DOWN_AFTER_FAILURES, failures: h.failures, lastError: h.lastError && redactIn(h.lastError, h.url), outcomes: { ...h.outcomes } }));
  }

  /**
   * Runs `exchange` against the first healthy endpoint, failing over on errors. `asFailure`
   * turns whatever `exchange` threw into the caller's error; `closed` is thrown at shutdown.
   */
  async run<T, E extends EndpointFailure>(a: {
    call: string;
    attempts?: number;
    exchange: (url: string) => Promise<T>;
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
        const out = await a.exchange(h.url);
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
        this.markDown(h, err);
        log?.warn({ msg: `${this.opts.logName} call failed`, call: a.call, url: redactUrl(h.url), kind: err.kind, status: err.httpStatus, error: redactIn(err.message, h.url), attempt: attempt + 1 });
      }
    }
    throw last ?? a.asFailure(new Error(`${a.call} failed`), "");
  }

  /** Pause length after a failure: backoff with jitter, at least a matching suspension rule and Retry-After, at most backoffMaxMs. */
  pauseFor(failures: number, err: EndpointFailure): number {
    let wait = Math.min(this.backoffMaxMs, this.backoffBaseMs * 2 ** (failures - 1));
    // Jitter so several watchers do not hammer a recovering endpoint in step.
    wait *= 0.75 + Math.random() * 0.5;
    for (const r of this.suspensions) if (err.httpStatus !== undefined && r.statuses.includes(err.httpStatus)) wait = Math.max(wait, r.minPauseMs);
    if (err.retryAfterMs !== undefined) wait = Math.max(wait, err.retryAfterMs);
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

/** The Retry-After header in ms, when it is a positive number of seconds. */
export function retryAfterMs(res: Response): number | undefined {
  const ra = Number(res.headers.get("retry-after"));
  return Number.isFinite(ra) && ra > 0 ? ra * 1000 : undefined;
}
