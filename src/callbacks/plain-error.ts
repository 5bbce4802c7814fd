// A delivery error in plain words (issue 30): the worker records what the network or the
// merchant's server said ("ECONNREFUSED: Unable to connect. Is the computer able to access the
// url?", "HTTP 502", "timed out after 10000ms"); the back office and the CLI show one short
// sentence a merchant can act on. The raw text stays in the database (and in the attempt's
// detail) for whoever needs it.

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
const NETWORK: [RegExp, string][] = [
  [/ECONNREFUSED|connection refused/i, "The server refused the connection: nothing is listening at that address and port."],
  [/ENOTFOUND|EAI_AGAIN|getaddrinfo|DNS|cannot resolve callback host|has no addresses/i, "The host name could not be found (DNS)."],
  [/ECONNRESET|socket hang up|closed unexpectedly|EPIPE|ConnectionClosed/i, "The connection was closed before the server answered."],
  [/EHOSTUNREACH|ENETUNREACH|unreachable/i, "The host cannot be reached from the gateway's network."],
  [/ETIMEDOUT|ConnectionTimeout/i, "The connection could not be opened in time."],
  [/CERT|certificate|SSL|TLS|self.signed/i, "The server's HTTPS certificate was not accepted."],
];

/** One short sentence for a recorded attempt error (null when there was none). */
export function plainError(error: string | null | undefined, httpStatus?: number | null): string | null {
  if (!error && (httpStatus === null || httpStatus === undefined || (httpStatus >= 200 && httpStatus < 300))) return null;
  const e = error ?? "";
  const timeout = /timed out after (\d+)\s*ms/i.exec(e);
  if (timeout) return `No answer within ${formatSeconds(Number(timeout[1]))} (the callback timeout).`;
  const redirect = /redirect (\d{3}) not followed(?: \(to (.+)\))?/i.exec(e);
  if (redirect) return `The server answered with a redirect (${redirect[1]}${redirect[2] ? ` to ${redirect[2]}` : ""}); redirects are not followed, so set the final URL.`;
  const status = httpStatus ?? (/^HTTP (\d{3})$/.exec(e.trim()) ? Number(e.trim().slice(5)) : null);
  if (status !== null && (status < 200 || status >= 300) && (!error || /^HTTP \d{3}$/.test(e.trim()))) {
    const reason = HTTP_REASONS[status];
    return `The server answered HTTP ${status}${reason ? ` (${reason})` : ""}; only a 2xx answer counts.`;
  }
  if (/is not a public host|special-purpose address/i.test(e)) return "The URL points to a private or local address, which callbacks may not reach.";
  if (/not a valid absolute URL|must use http or https|must not carry credentials|callback URL /i.test(e)) return "The callback URL is not valid.";
  if (/API key .* (not found|cannot be decrypted)/i.test(e)) return "The API key that signs this order's callbacks is missing or unreadable.";
  if (e === "aborted") return "The gateway stopped while sending; it is sent again after the restart.";
  for (const [re, words] of NETWORK) if (re.test(e)) return words;
  // Unknown: the first sentence, without a repeated "CODE: CODE:" prefix, kept short.
  const first = e.replace(/^([A-Z_]+): (\1: )+/, "$1: ").split(/(?<=\.)\s/)[0]!;
  return first.length > 160 ? first.slice(0, 157) + "…" : first;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
