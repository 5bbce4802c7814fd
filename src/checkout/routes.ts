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
import type { CheckoutDeps, CheckoutOrderView, InvoiceChoiceProblem, InvoiceDeps, TxHashPageAnswer } from "./types";

/** The page's HTTP status per answer: the payer's mistake 422, too many 429, the network unreachable 503. */
const TX_HASH_STATUS: Partial<Record<TxHashPageAnswer, number>> = { malformed: 422, rate_limited: 429, unavailable: 503 };
import { renderInvoicePage } from "./invoice-page";
import { renderRefundPage } from "./refund-page";
import { newOnceToken, once, ONCE_FIELD } from "../once/once";
import { RateLimiter } from "../auth/rate-limit";
import { AppError } from "../errors";
import type { RefundDeps, RefundProblem } from "./types";

/** Tokens are opaque to us, but bounded: anything else is not ours to look up. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
export const DEFAULT_POLL_INTERVAL_MS = 2000;

function locale(request: Request): Locale {
  const lang = new URL(request.url).searchParams.get("lang");
  return pickLocale(request.headers.get("accept-language"), lang);
}

function htmlResponse(render: (nonce: string) => string, status = 200, extra: Record<string, string> = {}): Response {
  const nonce = newNonce();
  return new Response(render(nonce), { status, headers: { ...htmlHeaders(nonce), ...extra } });
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
async function lookup<T>(
  token: string,
  find: (token: string) => Promise<T | null>,
  onError: (context: string, err: unknown) => void,
): Promise<{ found: T | null; failed: boolean }> {
  if (!TOKEN_PATTERN.test(token)) return { found: null, failed: false };
  try {
    return { found: await find(token), failed: false };
  } catch (err) {
    onError("checkout: lookup failed", err);
    return { found: null, failed: true };
  }
}

export function checkoutRoutes(deps: CheckoutDeps) {
  const poll = deps.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const onError = deps.onError ?? ((context: string, err: unknown) => console.error(context, err));

  const pageOptions = (order: CheckoutOrderView, token: string, request: Request, nonce: string) => {
    const sandbox = deps.sandbox(order.chainCode);
    return {
      order,
      token,
      locale: locale(request),
      nonce,
      sandbox,
      canSimulate: sandbox && typeof deps.simulatePayment === "function",
      canCheckTxHash: typeof deps.checkTxHash === "function",
      serverTime: deps.now(),
      pollIntervalMs: poll,
    };
  };

  return new Elysia({ name: "checkout" })
    .get("/checkout/:token", async ({ params, request }) => {
      const { found: order, failed } = await lookup(params.token, async (t) => await deps.findOrder(t), onError);
      if (failed) return messagePage(request, "error");
      if (!order) return messagePage(request, "notFound");
      return htmlResponse((nonce) => renderCheckoutPage(pageOptions(order, params.token, request, nonce)));
    })
    .post(
      // "I have paid" posts to the page's own URL, so its relative links (status, simulate) still resolve.
      "/checkout/:token",
      async ({ params, request, body }) => {
        const { found: order, failed } = await lookup(params.token, async (t) => await deps.findOrder(t), onError);
        if (failed) return messagePage(request, "error");
        if (!order || !deps.checkTxHash) return messagePage(request, "notFound");
        const form = (body ?? {}) as Record<string, unknown>;
        const typed = typeof form.txHash === "string" ? form.txHash.trim().slice(0, 200) : "";
        const answer = typed === "" ? "malformed" : await deps.checkTxHash(params.token, typed, request);
        const now = await deps.findOrder(params.token) ?? order;
        return htmlResponse(
          (nonce) => renderCheckoutPage({ ...pageOptions(now, params.token, request, nonce), txHash: { answer, typed } }),
          TX_HASH_STATUS[answer] ?? 200,
        );
      },
      { parse: "urlencoded" },
    )
    .get("/checkout/:token/status", async ({ params }) => {
      const { found: order, failed } = await lookup(params.token, async (t) => await deps.findOrder(t), onError);
      if (failed) return jsonError(500, 10000, "internal error");
      if (!order) return notFoundJson();
      return jsonResponse(checkoutStatusJson(order, deps.now()));
    })
    .post("/checkout/:token/simulate", async ({ params }) => {
      const { found: order, failed } = await lookup(params.token, async (t) => await deps.findOrder(t), onError);
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
    .get("/deposit/:token", async ({ params, request }) => {
      const { found: deposit, failed } = await lookup(params.token, async (t) => await deps.findDeposit(t), onError);
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
    .get("/deposit/:token/status", async ({ params }) => {
      const { found: deposit, failed } = await lookup(params.token, async (t) => await deps.findDeposit(t), onError);
      if (failed) return jsonError(500, 10000, "internal error");
      if (!deposit) return notFoundJson();
      return jsonResponse(depositStatusJson(deposit, deps.now()));
    })
    .use(deps.invoices ? invoiceRoutes(deps, deps.invoices, onError) : new Elysia())
    .use(deps.refunds ? refundRoutes(deps, deps.refunds, onError) : new Elysia());
}

const REFUND_PROBLEM_STATUS: Record<RefundProblem, number> = { mismatch: 422, invalid: 422, own: 422, unavailable: 503 };

/** The payer's refund page (DESIGN 20): the form until an address is given, then the refund's progress. */
function refundRoutes(deps: CheckoutDeps, rf: RefundDeps, onError: (context: string, err: unknown) => void) {
  const page = (request: Request, token: string, found: NonNullable<Awaited<ReturnType<RefundDeps["findRefund"]>>>, problem?: RefundProblem, typed?: string) =>
    htmlResponse(
      (nonce) => renderRefundPage({ refund: found, token, locale: locale(request), nonce, sandbox: deps.sandbox(found.chainCode), problem, typed, formToken: newOnceToken(deps.now()) }),
      problem ? REFUND_PROBLEM_STATUS[problem] : 200,
    );
  return new Elysia({ name: "refund-page" })
    .get("/refund/:token", async ({ params, request }) => {
      const { found, failed } = await lookup(params.token, async (t) => await rf.findRefund(t), onError);
      if (failed) return messagePage(request, "error");
      if (!found) return messagePage(request, "notFound");
      return page(request, params.token, found);
    })
    .post(
      "/refund/:token",
      async ({ params, request, body }) => {
        const form = (body ?? {}) as Record<string, unknown>;
        const giveOnce = () => giveAddress(request, params.token, form);
        // The form's one-time token: sent twice, the address is given once and both see its answer;
        // a token that runs nothing leads back to the page, which shows what became of the refund.
        return deps.forms ? once(deps.forms, form[ONCE_FIELD], `refund:${params.token}`, giveOnce, () => seeOther(encodeURIComponent(params.token), request)) : giveOnce();
      },
      { parse: "urlencoded" },
    );

  /** The refund form's action: the payer's address, typed twice, starts the refund's sending. */
  async function giveAddress(request: Request, token: string, form: Record<string, unknown>): Promise<Response> {
    const { found, failed } = await lookup(token, async (t) => await rf.findRefund(t), onError);
    if (failed) return messagePage(request, "error");
    if (!found) return messagePage(request, "notFound");
    const address = typeof form.address === "string" ? form.address.trim() : "";
    const repeat = typeof form.repeat === "string" ? form.repeat.trim() : "";
    if (found.status !== "awaiting_address") return seeOther(encodeURIComponent(token), request);
    if (address === "" || address !== repeat) return page(request, token, found, "mismatch", address);
    let r: Awaited<ReturnType<RefundDeps["giveAddress"]>>;
    try {
      r = await rf.giveAddress(token, address);
    } catch (err) {
      onError("refund: giving the address failed", err);
      return messagePage(request, "error");
    }
    if ("problem" in r) return page(request, token, await rf.findRefund(token) ?? found, r.problem, address);
    return seeOther(encodeURIComponent(token), request);
  }
}

/** 303 to a path relative to the request (a public_url path prefix survives), keeping ?lang. */
function seeOther(location: string, request: Request): Response {
  const lang = new URL(request.url).searchParams.get("lang");
  const q = lang === "en" || lang === "zh" ? `?lang=${lang}` : "";
  return new Response(null, { status: 303, headers: { location: location + q, "cache-control": "no-store" } });
}

const PROBLEM_STATUS: Record<InvoiceChoiceProblem, number> = { closed: 409, not_offered: 422, payment_detected: 409, no_rate: 503, busy: 503, amount_limits: 422, too_many: 429 };

/**
 * Each network choice on an invoice page makes a pay-in (another network closes the current one
 * and opens a new one): choices are limited per invoice and per client address, with the API's
 * token buckets (auth/rate-limit.ts). A burst of this many, then one more every 60/N seconds.
 */
export const INVOICE_CHOICES_PER_MINUTE = 10;
export const CLIENT_CHOICES_PER_MINUTE = 30;

/**
 * The invoice page (DESIGN 18): the network buttons until one is chosen, then the chosen
 * network's checkout (a redirect, so a reload or a shared link lands on the payment);
 * `?change=1` shows the buttons again while the payment may still change network.
 */
function invoiceRoutes(deps: CheckoutDeps, inv: InvoiceDeps, onError: (context: string, err: unknown) => void) {
  const perInvoice = new RateLimiter<string>(INVOICE_CHOICES_PER_MINUTE);
  const perClient = new RateLimiter<string>(CLIENT_CHOICES_PER_MINUTE);
  /** Seconds until this client may choose a network on this invoice again, or null: it may now. */
  const limited = (request: Request, token: string): number | null => {
    try {
      const now = deps.now();
      perClient.take(deps.clientIp?.(request) ?? "unknown", now);
      perInvoice.take(token, now);
      return null;
    } catch (e) {
      if (e instanceof AppError && e.code === 10029) return Number((e.data as { retryAfter?: number } | null)?.retryAfter ?? 60);
      throw e;
    }
  };
  const page = (request: Request, token: string, found: NonNullable<Awaited<ReturnType<InvoiceDeps["findInvoice"]>>>, problem?: InvoiceChoiceProblem, retryAfter?: number) =>
    htmlResponse(
      (nonce) =>
        renderInvoicePage({
          invoice: found,
          token,
          locale: locale(request),
          nonce,
          sandbox: found.networks.some((n) => deps.sandbox(n.chainCode)),
          serverTime: deps.now(),
          changing: new URL(request.url).searchParams.get("change") === "1",
          problem,
        }),
      problem ? PROBLEM_STATUS[problem] : 200,
      retryAfter === undefined ? {} : { "retry-after": String(retryAfter) },
    );
  return new Elysia({ name: "invoice-page" })
    .get("/invoice/:token", async ({ params, request }) => {
      const { found, failed } = await lookup(params.token, async (t) => await inv.findInvoice(t), onError);
      if (failed) return messagePage(request, "error");
      if (!found) return messagePage(request, "notFound");
      const changing = new URL(request.url).searchParams.get("change") === "1" && found.current?.changeable;
      if (found.current && !changing) return seeOther(`../checkout/${encodeURIComponent(found.current.checkoutToken)}`, request);
      return page(request, params.token, found);
    })
    .post(
      "/invoice/:token/pay",
      async ({ params, request, body }) => {
        const { found, failed } = await lookup(params.token, async (t) => await inv.findInvoice(t), onError);
        if (failed) return messagePage(request, "error");
        if (!found) return messagePage(request, "notFound");
        const network = typeof (body as Record<string, unknown> | undefined)?.network === "string" ? ((body as Record<string, string>).network as string) : "";
        const wait = limited(request, params.token);
        if (wait !== null) return page(request, params.token, found, "too_many", wait);
        let r: Awaited<ReturnType<InvoiceDeps["chooseNetwork"]>>;
        try {
          r = await inv.chooseNetwork(params.token, network);
        } catch (err) {
          onError("invoice: choosing the network failed", err);
          return messagePage(request, "error");
        }
        if ("checkoutToken" in r) return seeOther(`../../checkout/${encodeURIComponent(r.checkoutToken)}`, request);
        // Shown with the buttons again (fresh: the refusal may have been a race with a payment).
        const again = await inv.findInvoice(params.token) ?? found;
        return page(request, params.token, again, r.problem);
      },
      { parse: "urlencoded" },
    );
}
