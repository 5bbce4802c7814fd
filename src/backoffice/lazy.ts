// The back office is loaded on its first request (DESIGN 12 pages, their JSX views,
// CSV, TOTP and treasury code): an API-only gateway never holds it in memory, and the
// /openapi router carries none of its routes or the html plugin's global hook.
import type { BackofficeCtx, BackofficeRuntime } from "./guard";

const PREFIX = "/backoffice";

/** True for /backoffice and paths under /backoffice/ (checked on the raw URL, no parsing). */
export function isBackofficePath(url: string): boolean {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0 || !url.startsWith(PREFIX, start)) return false;
  const next = url[start + PREFIX.length];
  return next === undefined || next === "/" || next === "?" || next === "#";
}

type App = { handle(request: Request): Promise<Response> };

export function lazyBackoffice(ctx: BackofficeCtx, runtime: BackofficeRuntime): () => Promise<App> {
  let app: Promise<App> | null = null;
  return () =>
    (app ??= Promise.all([import("../http/app"), import("./routes")]).then(([{ baseApp }, { backofficeRoutes }]) => baseApp(ctx.logger).use(backofficeRoutes(ctx, runtime))));
}
