// The compatibility endpoints for shop plugins (DESIGN 19), one Elysia instance over a flat
// route table. Bodies are read raw (the signature covers each field as sent); every answer,
// including unknown paths and methods under /compat, is the protocol's own shape.
import { Elysia } from "elysia";
import type { Config } from "../config/schema";
import type { Cipher } from "../secrets/cipher";
import type { Logger } from "../lib/logger";
import { isStorageFault } from "../db/storage-fault";
import type { CompatCtx } from "./service";
import { checkStatus, createGmpayTransaction, createTransaction, EpusdtError, epusdtFailure } from "./epusdt";
import { epayPage, pick, returnToShop, submit } from "./epay";
import { api, mapi } from "./epay-api";

export interface CompatDeps {
  ctx: CompatCtx & { cipher: Cipher; logger: Logger; config: Pick<Config, "server"> };
  /** The request id the gateway gave this request (x-request-id; epusdt's request_id). */
  requestId(req: Request): string | null;
  /** The hosted checkout of a pay-in. */
  checkoutUrl(checkoutToken: string): string;
  /** Logs an unexpected failure (answered in the protocol's shape all the same). */
  failed(what: string, req: Request, e: unknown): void;
  storageFault(e: unknown): boolean;
}

export function compatDeps(ctx: CompatDeps["ctx"], requestId: CompatDeps["requestId"]): CompatDeps {
  return {
    ctx,
    requestId,
    checkoutUrl: (token) => `${ctx.publicUrl}/checkout/${token}`,
    failed: (what, req, e) => ctx.logger.error(what, { requestId: requestId(req), path: new URL(req.url).pathname, error: String((e as Error)?.stack ?? e) }),
    storageFault: isStorageFault,
  };
}

interface CompatRoute {
  method: "GET" | "POST" | "ALL";
  path: string;
  handle(d: CompatDeps, req: Request, params: Record<string, string>): Response | Promise<Response>;
}

const EPUSDT = "/compat/epusdt/:merchantUid";

export const COMPAT_ROUTES: CompatRoute[] = [
  { method: "POST", path: `${EPUSDT}/api/v1/order/create-transaction`, handle: (d, req, p) => createTransaction(d, req, p.merchantUid!) },
  { method: "POST", path: `${EPUSDT}/payments/gmpay/v1/order/create-transaction`, handle: (d, req, p) => createGmpayTransaction(d, req, p.merchantUid!) },
  { method: "GET", path: `${EPUSDT}/pay/check-status/:tradeId`, handle: async (d, req, p) => await checkStatus(d, req, p.merchantUid!, p.tradeId!) },
  { method: "GET", path: "/compat/epay/submit.php", handle: (d, req) => submit(d, req) },
  { method: "POST", path: "/compat/epay/submit.php", handle: (d, req) => submit(d, req) },
  { method: "POST", path: "/compat/epay/pick", handle: (d, req) => pick(d, req) },
  { method: "POST", path: "/compat/epay/mapi.php", handle: (d, req) => mapi(d, req) },
  { method: "GET", path: "/compat/epay/api.php", handle: (d, req) => api(d, req) },
  { method: "POST", path: "/compat/epay/api.php", handle: (d, req) => api(d, req) },
  { method: "GET", path: "/compat/epay/return/:token", handle: async (d, req, p) => await returnToShop(d, req, p.token!) },
  // Anything else under a protocol's prefix: a base URL joined with a doubled or missing slash is
  // routed as meant (DESIGN 24); what is still unknown answers in that protocol's shape.
  { method: "ALL", path: "/compat/epusdt/*", handle: (d, req) => retried(d, req) ?? epusdtFailure(d, req, new EpusdtError(400, `no such endpoint: ${req.method} ${new URL(req.url).pathname}`)) },
  { method: "ALL", path: "/compat/epay/*", handle: (d, req) => retried(d, req) ?? epayPage(d, req, 404, "There is no such page.") },
];

/**
 * The path a plugin meant: repeated slashes collapsed (`…/compat/epay//submit.php`), and the
 * slash between an epusdt base URL and `api/v1/…` (or `pay/`, `payments/`) restored when the
 * plugin joined them without one (`…/compat/epusdt/M1000001api/v1/…`).
 */
export function meantPath(path: string): string {
  return path.replace(/\/{2,}/g, "/").replace(/^(\/compat\/epusdt\/M\d+)(?=(api|pay|payments)\/)/, "$1/");
}

const PATTERNS = COMPAT_ROUTES.filter((r) => !r.path.endsWith("*")).map((r) => ({
  r,
  re: new RegExp(`^${r.path.replace(/[.]/g, "\\.").replace(/:(\w+)/g, "(?<$1>[^/]+)")}$`),
}));

/** The route the meant path names, when it differs from the path as sent. */
function retried(d: CompatDeps, req: Request): Response | Promise<Response> | undefined {
  const url = new URL(req.url);
  const path = meantPath(url.pathname);
  if (path === url.pathname) return undefined;
  for (const { r, re } of PATTERNS) {
    const m = re.exec(path);
    if (m && (r.method === "ALL" || r.method === req.method)) {
      url.pathname = path;
      return r.handle(d, new Request(url, req), { ...m.groups });
    }
  }
  return undefined;
}

export function compatRoutes(d: CompatDeps) {
  const app = new Elysia({ name: "compat" });
  for (const r of COMPAT_ROUTES) {
    const handler = ({ request, params }: { request: Request; params: Record<string, string> }) => r.handle(d, request, params);
    if (r.method === "GET") app.get(r.path, handler);
    else if (r.method === "POST") app.post(r.path, handler, { parse: "none" });
    else app.all(r.path, handler, { parse: "none" });
  }
  return app;
}
