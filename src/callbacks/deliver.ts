// One delivery attempt (spec 6.1, 6.2): sign the stored payload bytes with a
// fresh timestamp and nonce, POST them to the checked address, and report what
// happened. Success is a 2xx within the timeout; redirects are not followed.
import { randomBytes } from "node:crypto";
import { signCallback } from "../auth/signing";
import { VERSION } from "../version";
import { type Lookup, resolveTarget, TargetRefused } from "./target";

export const RESPONSE_BODY_LIMIT = 2048;
export const USER_AGENT = `stablegate/${VERSION}`;

/**
 * A shop protocol's own request (DESIGN 19: epusdt's POST, EPay's GET) instead of the signed
 * callback POST: no HMAC headers; it counts as delivered only when a 2xx answer's body is
 * `acknowledged` (epusdt `ok`, EPay `success`).
 */
export interface PlainRequest {
  method: "GET" | "POST";
  /** The full target (EPay: with its query). */
  url: string;
  body: string | null;
  contentType?: string;
  /** What the answer must say, for the attempt's error text. */
  expect: string;
  acknowledged(answer: string): boolean;
}

export interface DeliveryInput {
  url: string;
  /** The outbox payload, sent byte for byte. */
  body: string;
  apiKey: string;
  timeoutMs: number;
  allowPrivate: boolean;
  now: () => number;
  /** Aborts an attempt in flight (shutdown). */
  signal?: AbortSignal;
  lookup?: Lookup;
  /** Extra TLS trust (tests with a self-signed receiver). */
  ca?: string;
  /** A shop protocol's request (then `body` and `apiKey` are not used). */
  plain?: PlainRequest;
  /**
   * Asked after the target resolved, just before the request goes out: false sends nothing (the
   * outcome says `notSent`). The worker checks there that its claim still holds (a gateway frozen
   * past its lease must not send what another gateway took).
   */
  mayStillSend?: () => Promise<boolean>;
}

export interface AttemptOutcome {
  ok: boolean;
  startedAt: number;
  durationMs: number;
  httpStatus: number | null;
  responseBody: string | null;
  error: string | null;
  /** Nothing was sent: `mayStillSend` said no (not an attempt). */
  notSent?: true;
}

export function callbackHeaders(apiKey: string, body: string, timestamp: string, nonce: string): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": USER_AGENT,
    "x-callback-timestamp": timestamp,
    "x-callback-nonce": nonce,
    "x-callback-signature": signCallback(apiKey, timestamp, nonce, body),
    "x-callback-signature-algorithm": "HMAC-SHA256",
    "x-callback-signature-version": "v1",
  };
}

export function newNonce(): string {
  return randomBytes(16).toString("hex");
}

/** Reads at most `limit` bytes of the body, then stops reading. */
async function readCapped(res: Response, limit: number): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
  const all = Buffer.concat(chunks);
  return new TextDecoder().decode(all.subarray(0, limit));
}

function describe(e: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timed out after ${timeoutMs}ms`;
  const err = e as Error & { code?: string };
  if (err?.name === "AbortError") return "aborted";
  return err?.code ? `${err.code}: ${err.message}` : String(err?.message ?? e);
}

export async function deliverOnce(input: DeliveryInput): Promise<AttemptOutcome> {
  const startedAt = input.now();
  const t0 = performance.now();
  const done = (o: Omit<AttemptOutcome, "startedAt" | "durationMs">): AttemptOutcome => ({
    ...o,
    startedAt,
    durationMs: Math.round(performance.now() - t0),
  });
  // One deadline covers DNS, connect, headers and the (capped) body read. The request's own
  // AbortController is made only when a request goes out: an attempt that ends before it (a name
  // that does not resolve, a refused target: every attempt of the bench's callbacks) makes no
  // controller and no signal (after 20,000 such attempts ~9,400 of each were waiting for a
  // collection: docs/performance.md "RSS under the bench's load"). `stop` ends the attempt: the
  // deadline, or the caller's signal (the worker's shutdown).
  let controller: AbortController | null = null;
  let timedOut = false;
  let stopped: DOMException | null = null;
  let reject: (e: DOMException) => void = () => {};
  const aborted = new Promise<never>((_, r) => (reject = r));
  aborted.catch(() => {});
  const stop = (reason?: unknown) => {
    if (stopped) return;
    stopped = new DOMException("aborted", "AbortError");
    reject(stopped);
    controller?.abort(reason);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, input.timeoutMs);
  const outer = input.signal;
  const onOuter = () => stop(outer!.reason);
  if (outer?.aborted) onOuter();
  else outer?.addEventListener("abort", onOuter, { once: true });
  try {
    const plain = input.plain;
    const target = await Promise.race([resolveTarget(plain?.url ?? input.url, input.allowPrivate, input.lookup), aborted]);
    if (input.mayStillSend && !(await Promise.race([input.mayStillSend(), aborted]))) {
      return { ...done({ ok: false, httpStatus: null, responseBody: null, error: "not sent: the claim ended before the request went out" }), notSent: true };
    }
    let headers: Record<string, string>;
    if (plain) headers = { "user-agent": USER_AGENT, ...(plain.contentType ? { "content-type": plain.contentType } : {}), host: target.host };
    else headers = { ...callbackHeaders(input.apiKey, input.body, String(input.now()), newNonce()), host: target.host };
    const tls = target.serverName || input.ca ? { serverName: target.serverName, ca: input.ca } : undefined;
    const method = plain?.method ?? "POST";
    const body = plain ? (plain.body ?? undefined) : input.body;
    if (stopped) throw stopped;
    controller = new AbortController();
    const res = await fetch(target.connectUrl, { method, headers, body, redirect: "manual", signal: controller.signal, tls });
    const responseBody = await Promise.race([readCapped(res, RESPONSE_BODY_LIMIT), aborted]);
    const is2xx = res.status >= 200 && res.status < 300;
    const ok = is2xx && (!plain || plain.acknowledged(responseBody));
    let error: string | null = null;
    if (!is2xx) {
      const location = res.headers.get("location");
      error = res.status >= 300 && res.status < 400 ? `redirect ${res.status} not followed${location ? ` (to ${location})` : ""}` : `HTTP ${res.status}`;
    } else if (!ok) error = `answer not acknowledged: the body must be ${JSON.stringify(plain!.expect)}`;
    return done({ ok, httpStatus: res.status, responseBody, error });
  } catch (e) {
    if (e instanceof TargetRefused) return done({ ok: false, httpStatus: null, responseBody: null, error: e.message });
    return done({ ok: false, httpStatus: null, responseBody: null, error: describe(e, timedOut, input.timeoutMs) });
  } finally {
    clearTimeout(timer);
    // A listener left on a signal that can still abort keeps the signal, this attempt's
    // closures and its error reachable in Bun (~2.5 KB per attempt, not collected):
    // docs/performance.md, "memory, this session".
    outer?.removeEventListener("abort", onOuter);
  }
}
