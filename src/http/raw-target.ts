// Paths that answer only when the request target is spelled exactly so (DESIGN 10: /metrics).
// Bun builds request.url with the URL parser, which resolves dot segments (`/./metrics`,
// `/a/../metrics`, `/%2e/metrics` all read `/metrics`), so the raw target is not in the Request.
// Bun.serve's `routes` match the raw target, byte for byte: the server routes these paths there
// and marks the requests that came that way; a handler asks `cameByExactTarget`.
export const EXACT_TARGETS = ["/metrics"] as const;

const exact = new WeakSet<Request>();

/** The request's raw target was one of EXACT_TARGETS (Bun.serve's route for it took the request). */
export function markExactTarget(req: Request): Request {
  exact.add(req);
  return req;
}

export const cameByExactTarget = (req: Request): boolean => exact.has(req);
