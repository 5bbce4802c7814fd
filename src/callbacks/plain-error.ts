// A delivery error in plain words (issue 30): the worker records what the network or the
// merchant's server said ("ECONNREFUSED: Unable to connect. Is the computer able to access the
// url?", "HTTP 502", "timed out after 10000ms"); the back office and the CLI show one short
// sentence a merchant can act on. The raw text stays in the database (and in the attempt's
// detail) for whoever needs it. The sentences are coded (src/i18n/catalog.ts "delivery.*"), so a
// page shows them in its language by code.
import type { DomainParams } from "../errors";
import { type DeliveryCode, textOf } from "../i18n/catalog";

const HTTP_REASONS: Record<number, string> = {
  400: "bad request",
  401: "unauthorized",
  403: "forbidden",
  404: "not found",
  405: "method not allowed",
  408: "request timeout",
  413: "payload too large",
  415: "unsupported media type",
  422: "unprocessable content",
  429: "too many requests",
  500: "internal server error",
  502: "bad gateway",
  503: "service unavailable",
  504: "gateway timeout",
};

/** Network failures by the error code (or message) the runtime reports. */
const NETWORK: [RegExp, DeliveryCode][] = [
  [/ECONNREFUSED|connection refused/i, "delivery.refused"],
  [/ENOTFOUND|EAI_AGAIN|getaddrinfo|DNS|cannot resolve callback host|has no addresses/i, "delivery.dns"],
  [/ECONNRESET|socket hang up|closed unexpectedly|EPIPE|ConnectionClosed/i, "delivery.reset"],
  [/EHOSTUNREACH|ENETUNREACH|unreachable/i, "delivery.unreachable"],
  [/ETIMEDOUT|ConnectionTimeout/i, "delivery.connect_timeout"],
  [/CERT|certificate|SSL|TLS|self.signed/i, "delivery.certificate"],
];

/** A recorded attempt error as a coded text (src/i18n/catalog.ts DELIVERY_EN), null when there was none. */
export interface PlainError {
  code: DeliveryCode;
  params: DomainParams;
}

/** What went wrong with a recorded attempt, by code and parameters (null when there was no error). */
export function plainErrorOf(error: string | null | undefined, httpStatus?: number | null): PlainError | null {
  if (!error && (httpStatus === null || httpStatus === undefined || (httpStatus >= 200 && httpStatus < 300))) return null;
  const e = error ?? "";
  const of = (code: DeliveryCode, params: DomainParams = {}): PlainError => ({ code, params });
  const timeout = /timed out after (\d+)\s*ms/i.exec(e);
  if (timeout) return of("delivery.timeout", { seconds: formatSeconds(Number(timeout[1])) });
  const redirect = /redirect (\d{3}) not followed(?: \(to (.+)\))?/i.exec(e);
  if (redirect) return redirect[2] ? of("delivery.redirect_to", { code: redirect[1]!, url: redirect[2] }) : of("delivery.redirect", { code: redirect[1]! });
  const status = httpStatus ?? (/^HTTP (\d{3})$/.exec(e.trim()) ? Number(e.trim().slice(5)) : null);
  if (status !== null && (status < 200 || status >= 300) && (!error || /^HTTP \d{3}$/.test(e.trim()))) {
    const reason = HTTP_REASONS[status];
    return reason ? of("delivery.http_reason", { status, reason }) : of("delivery.http", { status });
  }
  if (/is not a public host|special-purpose address/i.test(e)) return of("delivery.private_target");
  if (/not a valid absolute URL|must use http or https|must not carry credentials|callback URL /i.test(e)) return of("delivery.bad_url");
  if (/API key .* (not found|cannot be decrypted)/i.test(e)) return of("delivery.api_key");
  if (e === "aborted") return of("delivery.aborted");
  for (const [re, code] of NETWORK) if (re.test(e)) return of(code);
  // Unknown: the first sentence, without a repeated "CODE: CODE:" prefix, kept short.
  const first = e.replace(/^([A-Z_]+): (\1: )+/, "$1: ").split(/(?<=\.)\s/)[0]!;
  return of("delivery.other", { text: first.length > 160 ? first.slice(0, 157) + "…" : first });
}

/** One short English sentence for a recorded attempt error (null when there was none): the CLI's. */
export function plainError(error: string | null | undefined, httpStatus?: number | null): string | null {
  const p = plainErrorOf(error, httpStatus);
  return p === null ? null : textOf("en", p.code, p.params);
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
