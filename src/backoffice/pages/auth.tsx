/** @jsxImportSource @kitajs/html */
// Sign-in (password, then the authentication code when enrolled), sign-out and
// the one-time setup link.
import { Elysia } from "elysia";
import { randomBytes } from "node:crypto";
import { recordAudit } from "../../audit/log";
import {
  action,
  BASE,
  type BackofficeDeps,
  clearCookie,
  cookieValue,
  html,
  PRE_CSRF_COOKIE,
  publicAction,
  redirect,
  sameToken,
  SESSION_COOKIE,
  setCookie,
  str,
} from "../guard";
import { completeSecondFactor, loadSession, revokeSession, signIn } from "../sessions";
import { completeSetup, setupTokenValid } from "../setup";
import { UserError } from "../users";
import { ErrorPage, Notice } from "../views/common";
import { Layout } from "../views/layout";
import { locale, tr, withLocale } from "../i18n";
import { errorSentence } from "../../i18n/catalog";

/** Only our own pages are a place to go back to after sign-in. */
export function safeNext(next: string | undefined): string {
  return next && next.startsWith(BASE) && !next.startsWith("//") && !/[\r\n\\]/.test(next) ? next : BASE;
}

function preToken(d: BackofficeDeps, request: Request): { token: string; cookie?: string } {
  const existing = cookieValue(request, PRE_CSRF_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{32}$/.test(existing)) return { token: existing };
  const token = randomBytes(24).toString("base64url");
  return { token, cookie: setCookie(d, PRE_CSRF_COOKIE, token) };
}

function LoginPage(p: { csrf: string; next: string; error?: string; notice?: string; username?: string }): string {
  return (
    <Layout title="Sign in" viewer={null}>
      <Notice kind="error" text={p.error} />
      <Notice text={p.notice} />
      <form method="post" action="/backoffice/login" class="stack">
        <input type="hidden" name="_csrf" value={p.csrf} />
        <input type="hidden" name="next" value={p.next} />
        <label for="username" safe>{tr("Username")}</label>
        <input id="username" name="username" autocomplete="username" required value={p.username ?? ""} />
        <label for="password" safe>{tr("Password")}</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit" safe>{tr("Sign in")}</button>
      </form>
    </Layout>
  ) as string;
}

function CodePage(p: { csrf: string; next: string; error?: string }): string {
  return (
    <Layout title="Two-factor authentication" viewer={null}>
      <Notice kind="error" text={p.error} />
      <form method="post" action="/backoffice/login/code" class="stack">
        <input type="hidden" name="_csrf" value={p.csrf} />
        <input type="hidden" name="next" value={p.next} />
        <label for="code" safe>{tr("Authentication code")}</label>
        <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required />
        <p class="muted" safe>{tr("The 6-digit code from your authenticator app, or one of your recovery codes.")}</p>
        <button type="submit" safe>{tr("Verify")}</button>
      </form>
    </Layout>
  ) as string;
}

function SetupPage(p: { csrf: string; token: string; error?: string }): string {
  return (
    <Layout title="Create the first operator" viewer={null}>
      <Notice kind="error" text={p.error && tr(p.error)} />
      <form method="post" action={`/backoffice/setup/${p.token}`} class="stack">
        <input type="hidden" name="_csrf" value={p.csrf} />
        <label for="username" safe>{tr("Username")}</label>
        <input id="username" name="username" autocomplete="username" required />
        <label for="password" safe>{tr("Password")}</label>
        <input id="password" name="password" type="password" autocomplete="new-password" minlength="12" required />
        <p class="muted" safe>
          {tr("At least 12 characters.")}
        </p>
        <button type="submit" safe>{tr("Create operator")}</button>
      </form>
    </Layout>
  ) as string;
}

const SETUP_INVALID = "This setup link is not valid: it was used, it expired, or an operator exists already.";

const LOCKED = {
  locked: "Too many failed sign-ins for this username. Try again in 15 minutes.",
  address_locked: "Too many failed sign-ins from your network address. Try again in 15 minutes.",
};

export function authRoutes(d: BackofficeDeps) {
  const withPre = (request: Request, render: (csrf: string) => string, status = 200) => {
    const pre = preToken(d, request);
    return html(render(pre.token), status, pre.cookie ? { "set-cookie": pre.cookie } : {});
  };
  const pending = async (request: Request) => {
    const s = await loadSession(d.users, d.policy, cookieValue(request, SESSION_COOKIE));
    return s && s.session.stage === "totp" ? s : null;
  };

  return new Elysia({ name: "backoffice-auth" })
    .get("/backoffice/login", async ({ request, query }) => await withLocale(request, async () => {
      const s = await loadSession(d.users, d.policy, cookieValue(request, SESSION_COOKIE));
      if (s?.session.stage === "full") return redirect(safeNext(query.next));
      const notice = query.done === "setup" ? tr("Operator created. Sign in.") : query.done === "out" ? tr("Signed out.") : undefined;
      return withPre(request, (csrf) => LoginPage({ csrf, next: safeNext(query.next), notice }));
    }))
    .post(
      "/backoffice/login",
      publicAction(d, async ({ request, body }) => {
        const username = str(body.username);
        const next = safeNext(str(body.next));
        const r = await signIn(d.users, { username, password: str(body.password), ...d.clientAddr(request), userAgent: request.headers.get("user-agent") });
        if (!r.ok) {
          if (r.reason === "invalid") return withPre(request, (csrf) => LoginPage({ csrf, next, error: tr("Wrong username or password."), username }), 401);
          const reason = r.reason;
          const ip = d.clientIp(request);
          const target = reason === "locked" ? `user:${username.slice(0, 64)}` : `ip:${ip}`;
          await recordAudit(d.ctx.db, { actor: username.slice(0, 64), role: "unknown", ip, action: reason === "locked" ? "user.locked_out" : "address.locked_out", target, at: d.users.now() });
          return withPre(request, (csrf) => LoginPage({ csrf, next, error: tr(LOCKED[reason]), username }), 429);
        }
        const cookie = setCookie(d, SESSION_COOKIE, r.token);
        if (r.session.stage === "totp") return redirect(`/backoffice/login/code?next=${encodeURIComponent(next)}`, { "set-cookie": cookie });
        await recordAudit(d.ctx.db, { actor: r.user.username, role: r.user.role, ip: d.clientIp(request), action: "user.sign_in", target: `user:${r.user.username}`, at: d.users.now() });
        return redirect(next, { "set-cookie": cookie });
      }),
    )
    .get("/backoffice/login/code", async ({ request, query }) => await withLocale(request, async () => {
      const s = await pending(request);
      if (!s) return redirect("/backoffice/login");
      return html(CodePage({ csrf: s.session.csrfToken, next: safeNext(query.next) }));
    }))
    .post("/backoffice/login/code", ({ request, body }) => withLocale(request, async () => {
      const s = await pending(request);
      if (!s) return redirect("/backoffice/login");
      const b = (body ?? {}) as Record<string, string>;
      if (!sameToken(b._csrf, s.session.csrfToken)) return html(ErrorPage({ viewer: null, status: 403, message: tr("The form expired. Sign in again.") }), 403);
      const next = safeNext(str(b.next));
      const r = await completeSecondFactor(d.users, s.session, str(b.code), d.clientAddr(request));
      if (r === "locked" || r === "address_locked") return withPre(request, (csrf) => LoginPage({ csrf, next, error: tr(LOCKED[r]) }), 429);
      if (r === "invalid") return html(CodePage({ csrf: s.session.csrfToken, next, error: tr("That code is not valid. Try the current one.") }), 401);
      await recordAudit(d.ctx.db, { actor: s.user.username, role: s.user.role, ip: d.clientIp(request), action: "user.sign_in", target: `user:${s.user.username}`, at: d.users.now() });
      return redirect(next);
    }))
    .post(
      "/backoffice/logout",
      action(d, { during: ["password", "2fa"] }, async (v) => {
        await revokeSession(d.users, v.session.id);
        return redirect("/backoffice/login?done=out", { "set-cookie": clearCookie(d, SESSION_COOKIE) });
      }),
    )
    .get("/backoffice/setup/:token", async ({ request, params }) =>
      await withLocale(request, async () => {
        if (!await setupTokenValid(d.users, params.token)) return html(ErrorPage({ viewer: null, status: 404, message: tr(SETUP_INVALID) }), 404);
        return withPre(request, (csrf) => SetupPage({ csrf, token: params.token }));
      }),
    )
    .post(
      "/backoffice/setup/:token",
      publicAction(d, async ({ request, params, body }) => {
        try {
          const user = await completeSetup(d.users, params.token, str(body.username), str(body.password), { ip: d.clientIp(request) });
          if (!user) return html(ErrorPage({ viewer: null, status: 404, message: tr(SETUP_INVALID) }), 404);
          return redirect("/backoffice/login?done=setup");
        } catch (e) {
          if (e instanceof UserError) return withPre(request, (csrf) => SetupPage({ csrf, token: params.token, error: errorSentence(locale(), e) }), 400);
          throw e;
        }
      }),
    );
}
