// The route template of a request (e.g. /openapi/payin/orders/:orderNo), remembered by
// an app hook so the metrics label is never a raw path.
import { UNMATCHED_ROUTE } from "../lib/event-metrics";

const routes = new WeakMap<Request, string>();

export function rememberRoute(request: Request, route: string | undefined): void {
  if (route) routes.set(request, route);
}

export function routeOf(request: Request): string {
  return routes.get(request) ?? UNMATCHED_ROUTE;
}
