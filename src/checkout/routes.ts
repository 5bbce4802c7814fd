// Public, unauthenticated routes of the hosted pages. The token in the path is
// the only key, so an unknown or malformed token always gets the same 404.
import { isStorageFault, STORAGE_RETRY_AFTER_S } from "../db/storage-fault";
import { Elysia } from "elysia";
import { renderCheckoutPage } from "./checkout-page";
import { renderDepositPage } from "./deposit-page";
import { pickLocale, type Locale } from "./i18n";
import { renderMessagePage } from "./not-found-page";
import { htmlHeaders, jsonHeaders, newNonce } from "./security";
import { checkoutStatusJson, depositStatusJson } from "./status-view";
import type { CheckoutDeps } from "./types";

/** Tokens are opaque to us, but bounded: anything else is not ours to look up. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
export const DEFAULT_POLL_INTERVAL_MS = 2000;

function locale(request: Request): Locale {
  const lang = new URL(request.url).searchParams.get("lang");
  return pickLocale(request.headers.get("accept-language"), lang);
}

function htmlResponse(render: (nonce: string) => string, status = 200): Response {
  const nonce = newNonce();
  return new Response(render(nonce), { status, headers: htmlHeaders(nonce) });
}

function messagePage(request: Request, kind: "notFound" | "error"): Response {
  return htmlResponse((nonce) => renderMessagePage(locale(request), nonce, kind), kind === "notFound" ? 404 : 500);
}

function jsonResponse(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: jsonHeaders() });
}

function jsonError(status: number, code: number, message: string): Response {
  return jsonResponse({ code, message, data: null, requestId: null }, status);
}

const notFoundJson = () => jsonError(404, 10002, "not found");

/** Looks up by token, turning a malformed token into "not found" and a failing lookup into a logged 500. */
function lookup<T>(
  token: string,
  find: (token: string) => T | null,
  onError: (context: string, err: unknown) => void,
): { found: T | null; failed: boolean } {
  if (!TOKEN_PATTERN.test(token)) return { found: null, failed: false };
  try {
    return { found: find(token), failed: false };
  } catch (err) {
    onError("checkout: lookup failed", err);
    return { found: null, failed: true };
  }
}

export function checkoutRoutes(deps: CheckoutDeps) {
  const poll = deps.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const onError = deps.onError ?? ((context: string, err: unknown) => console.error(context, err));

  return new Elysia({ name: "checkout" })
    .get("/checkout/:token", ({ params, request }) => {
      const { found: order, failed } = lookup(params.token, (t) => deps.findOrder(t), onError);
      if (failed) return messagePage(request, "error");
      if (!order) return messagePage(request, "notFound");
      const sandbox = deps.sandbox(order.chainCode);
      return htmlResponse((nonce) =>
        renderCheckoutPage({
          order,
          token: params.token,
          locale: locale(request),
          nonce,
          sandbox,
          canSimulate: sandbox && typeof deps.simulatePayment === "function",
          serverTime: deps.now(),
          pollIntervalMs: poll,
        }),
      );
    })
    .get("/checkout/:token/status", ({ params }) => {
      const { found: order, failed } = lookup(params.token, (t) => deps.findOrder(t), onError);
      if (failed) return jsonError(500, 10000, "internal error");
      if (!order) return notFoundJson();
      return jsonResponse(checkoutStatusJson(order, deps.now()));
    })
    .post("/checkout/:token/simulate", async ({ params }) => {
      const { found: order, failed } = lookup(params.token, (t) => deps.findOrder(t), onError);
      if (failed) return jsonError(500, 10000, "internal error");
      // Outside sandbox the route does not exist, whatever the token.
      if (!order || !deps.simulatePayment || !deps.sandbox(order.chainCode)) return notFoundJson();
      if (order.status !== "waiting_payment") return jsonError(409, 10001, "order is not waiting for payment");
      try {
        await deps.simulatePayment(params.token);
      } catch (err) {
        onError("checkout: simulated payment failed", err);
        if (isStorageFault(err)) return new Response(JSON.stringify({ code: 10003, message: "Storage unavailable", data: { retryAfter: STORAGE_RETRY_AFTER_S }, requestId: null }), { status: 503, headers: { ...jsonHeaders(), "retry-after": String(STORAGE_RETRY_AFTER_S) } });
        return jsonError(500, 10000, "simulated payment failed");
      }
      return jsonResponse({ ok: true });
    })
    .get("/deposit/:token", ({ params, request }) => {
      const { found: deposit, failed } = lookup(params.token, (t) => deps.findDeposit(t), onError);
      if (failed) return messagePage(request, "error");
      if (!deposit) return messagePage(request, "notFound");
      return htmlResponse((nonce) =>
        renderDepositPage({
          deposit,
          token: params.token,
          locale: locale(request),
          nonce,
          sandbox: deps.sandbox(deposit.chainCode),
          serverTime: deps.now(),
          pollIntervalMs: poll,
        }),
      );
    })
    .get("/deposit/:token/status", ({ params }) => {
      const { found: deposit, failed } = lookup(params.token, (t) => deps.findDeposit(t), onError);
      if (failed) return jsonError(500, 10000, "internal error");
      if (!deposit) return notFoundJson();
      return jsonResponse(depositStatusJson(deposit, deps.now()));
    });
}
