// Headers every answer carries (DESIGN 10 "Hardening"): nosniff on everything; no-store unless the
// route chose its own caching (the back office's stylesheet and script); HSTS when the gateway is
// reached over https (server.public_url), so a browser never tries plain http again.

export interface SecurityHeaderOpts {
  hsts: boolean;
}

/** One year, the usual value; no includeSubDomains: the public_url's host may share a domain with sites the operator does not run over https. */
export const HSTS_VALUE = "max-age=31536000";

/** `requestId`: the request's x-request-id, set unless the answer carries one already. */
export function withSecurityHeaders(res: Response, opts: SecurityHeaderOpts, requestId?: string): Response {
  let out = res;
  try {
    apply(out.headers, opts, requestId);
  } catch {
    // Headers of a fetched response are immutable: copy it.
    out = new Response(res.body, res);
    apply(out.headers, opts, requestId);
  }
  return out;
}

function apply(h: Headers, opts: SecurityHeaderOpts, requestId: string | undefined): void {
  if (requestId && !h.has("x-request-id")) h.set("x-request-id", requestId);
  h.set("x-content-type-options", "nosniff");
  if (!h.has("cache-control")) h.set("cache-control", "no-store");
  if (opts.hsts) h.set("strict-transport-security", HSTS_VALUE);
}
