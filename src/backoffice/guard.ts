// How every back-office route is wrapped: `page` for GETs, `action` for POSTs.
// Both load the session from the cookie and check the role; `action` also
// checks the CSRF token (403, nothing changes without it) and, for money and
// key actions, a recent re-authentication. Handlers receive a Viewer and
// return JSX (a string) or a Response.
import type { Config } from "../config/schema";
import type { Cipher } from "../secrets/cipher";
import type { PayinCtx } from "../payin/service";
import type { PayoutCtx } from "../payout/service";
import type { RefundCtx } from "../payout/refunds";
import type { ChainState, Watchers } from "../ops/chain-status";
import type { GasMonitor } from "../ops/gas";
import { clientAddrResolver, type ClientAddr } from "../lib/client-ip";
import { parseDuration } from "../lib/duration";
import { timingSafeEqual } from "node:crypto";
import { loadSession, needsReauth, reauthenticate, type SessionPolicy, type SessionRow } from "./sessions";
import type { Role, UserDeps, UserRow } from "./users";
import { userTotpSecret } from "./totp";
import { ErrorPage, ReauthPage } from "./views/common";
import { NotFound, Forbidden } from "./errors";
import { isStorageFault } from "../db/storage-fault";
import { locale, withLocale } from "./i18n";
import { DomainError } from "../errors";
import { errorSentence } from "../i18n/catalog";
import { once, ONCE_FIELD, type OnceDeps, type OnceRefusal } from "../once/once";

export const SESSION_COOKIE = "sg_session";
/** Double-submit token for forms shown before sign-in (login, setup). */
export const PRE_CSRF_COOKIE = "sg_csrf";
export const BASE = "/backoffice";

/**
 * What the back office's pages read from the gateway: the services' dependencies (the pages call
 * the pay-in, payout and treasury services), secrets for users' TOTP and keys, and its config.
 */
export type BackofficeCtx = PayinCtx &
  PayoutCtx &
  Pick<RefundCtx, "refundPayins"> & {
    cipher: Cipher;
    publicUrl: string;
    config: Pick<Config, "auth" | "backoffice" | "server" | "rates" | "compat">;
    ms: { rotationGrace: number; retryDelays: number[] };
  };

/** What the back office reads of the running gateway: chain states (watchers, gas) and the callback wake-up. */
export interface BackofficeRuntime {
  watchers: Watchers;
  ops: { gas: GasMonitor };
  kick(): void;
}

/** Everything the back office needs, built once per gateway. */
export interface BackofficeDeps {
  ctx: BackofficeCtx;
  users: UserDeps;
  policy: SessionPolicy;
  secureCookies: boolean;
  /** Something committed that may have written callbacks: deliver them now. */
  kick(): void;
  /** Each chain's head, scan position, RPC endpoints and gas wallet, as the watchers and ops jobs last saw them. */
  chainStates(): Promise<ChainState[]>;
  /** The client address (X-Forwarded-For believed only from server.trusted_proxies): audit entries, login throttling. */
  clientIp(request: Request): string | null;
  /** The client address and whether it is the socket peer itself (sign-in throttling, DESIGN 10). */
  clientAddr(request: Request): ClientAddr;
}

export function backofficeDeps(ctx: BackofficeCtx, kick: () => void, chainStates: () => Promise<ChainState[]> = async () => []): BackofficeDeps {
  const clientAddr = clientAddrResolver(ctx.config.server.trusted_proxies);
  return {
    ctx,
    chainStates,
    users: { db: ctx.db, cipher: ctx.cipher, now: () => ctx.clock.now() },
    policy: { idleMs: parseDuration(ctx.config.backoffice.session_idle), maxMs: parseDuration(ctx.config.backoffice.session_max) },
    secureCookies: ctx.publicUrl.startsWith("https://"),
    kick,
    clientIp: (req) => clientAddr(req).ip,
    clientAddr,
  };
}

/** Who is asking: the scope every query of a page is made with. */
export interface Viewer {
  user: UserRow;
  session: SessionRow;
  role: Role;
  /** null for operators (every merchant), the bound merchant for merchant users. */
  merchantId: number | null;
  ip: string | null;
  csrf: string;
  /** TOTP enrolled (re-authentication asks for the password or the code). */
  totp: boolean;
  /** A first step still owed before anything else (issue 30): a new password, then an operator's 2FA. */
  owes: FirstStep | null;
  /** The gateway clock at the request: the time in the one-time tokens of the forms the page renders. */
  now: number;
}

/**
 * What a signed-in user does before any other page: choose their own password when an operator
 * handed one over (created or reset in the back office), then, where `backoffice.require_2fa` is
 * on, an operator sets up two-factor authentication.
 */
export type FirstStep = "password" | "2fa";
export const FIRST_STEP_PAGE: Record<FirstStep, string> = { password: `${BASE}/password`, "2fa": `${BASE}/security?required=2fa` };

/** The actor of audit entries. */
export const actorOf = (v: Viewer) => ({ actor: v.user.username, role: v.role, ip: v.ip ?? undefined });

export type Body = Record<string, string | string[] | undefined>;

/** What a handler receives (Elysia's context narrowed to what pages use). */
export interface Req {
  request: Request;
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  body: unknown;
}

/** A POST's request with its form fields. */
export interface PostReq extends Req {
  body: Body;
  /** The form's one-time token (its action's idempotency key, src/once/once.ts), or null when the POST had none. */
  once?: string | null;
}

type Out = string | Response | Promise<string | Response>;

// The security headers of the checkout pages, with the stylesheet and script as same-origin files.
export const HTML_HEADERS: Record<string, string> = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-robots-tag": "noindex, nofollow",
};

export function html(body: string, status = 200, extra: Record<string, string> = {}): Response {
  return new Response("<!doctype html>" + body, { status, headers: { ...HTML_HEADERS, ...extra } });
}

export function redirect(to: string, extra: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { location: to, "cache-control": "no-store", ...extra } });
}

export function cookieValue(request: Request, name: string): string | undefined {
  const raw = request.headers.get("cookie");
  if (!raw) return undefined;
  for (const part of raw.split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) return decodeURIComponent(part.slice(i + 1).trim());
  }
  return undefined;
}

export function setCookie(d: BackofficeDeps, name: string, value: string, maxAgeS?: number): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${BASE}`, "HttpOnly", "SameSite=Strict"];
  if (d.secureCookies) parts.push("Secure");
  if (maxAgeS !== undefined) parts.push(`Max-Age=${maxAgeS}`);
  return parts.join("; ");
}

export const clearCookie = (d: BackofficeDeps, name: string) => setCookie(d, name, "", 0);

export function sameToken(a: unknown, b: string | undefined): boolean {
  if (typeof a !== "string" || !b || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

export const str = (v: string | string[] | undefined): string => (Array.isArray(v) ? (v[0] ?? "") : (v ?? ""));
export const list = (v: string | string[] | undefined): string[] => (Array.isArray(v) ? v : v ? [v] : []);

async function viewerOf(d: BackofficeDeps, request: Request): Promise<Viewer | null> {
  const s = await loadSession(d.users, d.policy, cookieValue(request, SESSION_COOKIE));
  if (!s || s.session.stage !== "full") return null;
  const totp = userTotpSecret(d.users, s.user) !== null;
  return {
    user: s.user,
    session: s.session,
    role: s.user.role,
    merchantId: s.user.role === "operator" ? null : s.user.merchantId,
    ip: d.clientIp(request),
    csrf: s.session.csrfToken,
    totp,
    owes: s.user.mustChangePassword ? "password" : s.user.role === "operator" && d.ctx.config.backoffice.require_2fa === true && !totp ? "2fa" : null,
    now: d.users.now(),
  };
}

export interface GuardOpts {
  /** Only this role may use the route (merchant users get the same 404 as for a missing page). */
  role?: Role;
  /** First steps during which this route stays open (every other route sends the user to the step). */
  during?: FirstStep[];
}

/** The step the viewer owes and this route is not part of: where to send them instead. */
function firstStepRedirect(v: Viewer, opts: GuardOpts): Response | null {
  if (!v.owes || opts.during?.includes(v.owes)) return null;
  return redirect(FIRST_STEP_PAGE[v.owes]);
}

function loginRedirect(request: Request): Response {
  const u = new URL(request.url);
  const next = request.method === "GET" ? `?next=${encodeURIComponent(u.pathname + u.search)}` : "";
  return redirect(`${BASE}/login${next}`);
}

async function run(d: BackofficeDeps, v: Viewer | null, fn: () => Out): Promise<Response> {
  try {
    const out = await fn();
    return typeof out === "string" ? html(out) : out;
  } catch (e) {
    if (e instanceof NotFound) return html(ErrorPage({ viewer: v, status: 404, message: e.message || "Not found" }), 404);
    if (e instanceof Forbidden) return html(ErrorPage({ viewer: v, status: 403, message: e.message }), 403);
    // A refused change no page caught: its status and words by code (src/errors.ts DOMAIN_ERRORS), never a 500.
    if (e instanceof DomainError) return html(ErrorPage({ viewer: v, status: e.status, message: errorSentence(locale(), e) }), e.status);
    // Storage faults go to the app's error handler: a plain 503 page with Retry-After, logged once per interval.
    if (isStorageFault(e)) throw e;
    d.ctx.logger.error("backoffice: handler failed", { error: String((e as Error)?.stack ?? e) });
    return html(ErrorPage({ viewer: v, status: 500, message: "Something went wrong. Nothing was changed if the action failed part-way; try again." }), 500);
  }
}

/** A GET page for signed-in users. */
export function page(d: BackofficeDeps, opts: GuardOpts, fn: (v: Viewer, r: Req) => Out) {
  return async (c: Req) => await withLocale(c.request, async () => {
    const v = await viewerOf(d, c.request);
    if (!v) return loginRedirect(c.request);
    const step = firstStepRedirect(v, opts);
    if (step) return step;
    if (opts.role && v.role !== opts.role) return run(d, v, () => { throw new NotFound(); });
    return run(d, v, () => fn(v, c));
  });
}

export interface ActionOpts extends GuardOpts {
  /**
   * `true`: moves money or keys, needs the password or code entered within the last few minutes.
   * `"always"`: changes where money goes or who can act (DESIGN 10 "Hardening"): the form must
   * carry the password or code every time, whatever the session did before.
   */
  reauth?: Reauth | ((body: Body) => Reauth);
}

type Reauth = boolean | "always";

/** A POST for signed-in users: CSRF checked first, then role, then re-authentication. */
export function action(d: BackofficeDeps, opts: ActionOpts, fn: (v: Viewer, r: PostReq) => Out) {
  return (c: Req) => withLocale(c.request, async () => {
    const v = await viewerOf(d, c.request);
    if (!v) {
      return html(ErrorPage({ viewer: null, status: 403, message: "Your session has ended. Sign in again." }), 403);
    }
    const body = (c.body && typeof c.body === "object" ? c.body : {}) as Body;
    if (!sameToken(body._csrf, v.csrf)) return html(ErrorPage({ viewer: v, status: 403, message: "The form expired or did not come from this site. Reload the page and try again." }), 403);
    const step = firstStepRedirect(v, opts);
    if (step) return step;
    if (opts.role && v.role !== opts.role) return run(d, v, () => { throw new NotFound(); });
    // A form may ask for more when it does more (merchant onboarding with a callback URL or a first user).
    const reauth = typeof opts.reauth === "function" ? opts.reauth(body) : opts.reauth;
    if (reauth === "always" || (reauth && needsReauth(d.users, v.session))) {
      const secret = str(body._reauth);
      const r = secret ? await reauthenticate(d.users, v.session, v.user, secret, d.clientAddr(c.request)) : "invalid";
      if (r !== "ok") {
        const fields = Object.entries(body).filter(([k]) => k !== "_csrf" && k !== "_reauth");
        const url = new URL(c.request.url);
        const failed = !secret ? null : r === "invalid" ? "wrong" : "locked";
        return html(ReauthPage({ viewer: v, action: url.pathname + url.search, fields, failed }), failed === "locked" ? 429 : failed ? 401 : 200);
      }
    }
    // The form's one-time token: the first POST of it runs the action, any other gets its answer.
    const scope = `bo:${v.user.id}:${new URL(c.request.url).pathname}`;
    return once(onceDeps(d), body[ONCE_FIELD], scope, (token) => run(d, v, () => fn(v, { ...c, body, once: token })), (why) => onceRefused(v, why));
  });
}

const onceDeps = (d: BackofficeDeps): OnceDeps => ({ db: d.ctx.db, cipher: d.ctx.cipher, now: d.users.now });

/** The page of a POST whose one-time token ran nothing (src/once/once.ts). */
const ONCE_REFUSED: Record<OnceRefusal, [number, string]> = {
  malformed: [400, "This form is damaged. Reload the page and send it again."],
  expired: [400, "This form is more than a day old, so it was not sent. Reload the page and send it again."],
  elsewhere: [409, "This form belongs to another page or another user, so it was not sent. Reload the page."],
  unrecorded: [409, "This form was sent already and its result is not known yet (it may still be under way). Open the page again and check what happened before you send it again."],
};

function onceRefused(v: Viewer, why: OnceRefusal): Response {
  const [status, message] = ONCE_REFUSED[why];
  return html(ErrorPage({ viewer: v, status, message }), status);
}

/** Public pages (login, setup): no session; POSTs carry the double-submit token. */
export function publicAction(d: BackofficeDeps, fn: (r: PostReq) => Out) {
  return (c: Req) => withLocale(c.request, () => {
    const body = (c.body && typeof c.body === "object" ? c.body : {}) as Body;
    if (!sameToken(body._csrf, cookieValue(c.request, PRE_CSRF_COOKIE))) {
      return html(ErrorPage({ viewer: null, status: 403, message: "The form expired or did not come from this site. Reload the page and try again." }), 403);
    }
    return run(d, null, () => fn({ ...c, body }));
  });
}
