/** @jsxImportSource @kitajs/html */
// The signed-in user's own security: password, TOTP enrollment with a QR code
// and recovery codes, and the list of live sessions (each can be ended).
import { Elysia } from "elysia";
import { recordAudit } from "../../audit/log";
import { qrSvg } from "../../checkout/qr";
import { action, actorOf, type BackofficeDeps, html, page, redirect, str, type Viewer } from "../guard";
import { activeSessions, reauthenticate, revokeSession, type SessionRow } from "../sessions";
import { enableTotp, newRecoveryCodes, newTotpSecret, storePendingTotpSecret, totpStep, totpUri } from "../totp";
import { changePassword, UserError, userById } from "../users";
import { ActionButton, Csrf, DataTable, Notice, Time } from "../views/common";
import { Layout } from "../views/layout";
import { locale, tr, trf, trm } from "../i18n";
import { errorSentence } from "../../i18n/catalog";

const NOTICES: Record<string, string> = {
  password: "Password changed. Your other sessions were signed out.",
  session: "Session ended.",
};

function SecurityPage(p: { sessions: SessionRow[]; v: Viewer; notice?: string; error?: string }): string {
  const { v, sessions } = p;
  return (
    <Layout title="Security" viewer={v} path="/backoffice/security">
      {v.owes === "2fa" ? (
        <p class="notice error" role="alert" safe>
          {tr("This gateway asks operators to use two-factor authentication. Set it up to continue.")}
        </p>
      ) : (
        <></>
      )}
      <Notice text={p.notice && tr(p.notice)} />
      <Notice kind="error" text={p.error && tr(p.error)} />
      <h2 safe>{tr("Two-factor authentication")}</h2>
      {v.totp ? (
        <p>
          {trm("On. Ask an operator to run {command} if you lose your authenticator.", { command: <code safe>{`stablegate user reset-2fa ${v.user.username}`}</code> })}
        </p>
      ) : (
        <form method="post" action="/backoffice/security/totp" class="actions">
          <Csrf viewer={v} />
          <span safe>{tr("Off.")}</span>
          <button type="submit" safe>{tr("Set up two-factor authentication")}</button>
        </form>
      )}
      <h2 safe>{tr("Password")}</h2>
      <form method="post" action="/backoffice/security/password" class="stack">
        <Csrf viewer={v} />
        <label for="current" safe>{tr("Current password")}</label>
        <input id="current" name="current" type="password" autocomplete="current-password" required />
        <label for="new" safe>{tr("New password")}</label>
        <input id="new" name="new" type="password" autocomplete="new-password" minlength="12" required />
        <button type="submit" safe>{tr("Change password")}</button>
      </form>
      <h2 safe>{tr("Sessions")}</h2>
      <DataTable
        label={tr("Sessions")}
        head={[tr("Signed in"), tr("Last seen"), tr("IP"), tr("Browser"), { hidden: tr("Action") }]}
        rows={sessions}
        row={(s) => (
          <tr>
            <td>
              <Time ms={s.createdAt} />
            </td>
            <td>
              <Time ms={s.lastSeenAt} />
            </td>
            <td safe>{s.ip ?? "—"}</td>
            <td safe>{s.userAgent ?? "—"}</td>
            <td>
              {s.id === v.session.id ? (
                <span safe>{tr("this session")}</span>
              ) : (
                <ActionButton viewer={v} action="/backoffice/security/sessions/end" fields={{ id: s.id }} label={tr("End")} ariaLabel={trf("End the session from {ip}", { ip: s.ip ?? tr("unknown address") })} kind="secondary" />
              )}
            </td>
          </tr>
        )}
      />
    </Layout>
  ) as string;
}

/** The first sign-in with a password an operator handed over: the user chooses their own (issue 30). */
function NewPasswordPage(p: { v: Viewer; error?: string }): string {
  return (
    <Layout title="Choose a new password" viewer={p.v}>
      <Notice kind="error" text={p.error && tr(p.error)} />
      <p safe>{tr("Your password was set by an operator. Choose your own to continue; only you will know it.")}</p>
      <form method="post" action="/backoffice/password" class="stack">
        <Csrf viewer={p.v} />
        <label for="new" safe>{tr("New password")}</label>
        <input id="new" name="new" type="password" autocomplete="new-password" minlength="12" required aria-describedby="new-help" />
        <p id="new-help" class="muted" safe>
          {tr("At least 12 characters.")}
        </p>
        <label for="repeat" safe>{tr("Repeat new password")}</label>
        <input id="repeat" name="repeat" type="password" autocomplete="new-password" minlength="12" required />
        <button type="submit" safe>{tr("Set password")}</button>
      </form>
    </Layout>
  ) as string;
}

function EnrollPage(p: { v: Viewer; secret: string; error?: string }): string {
  // qrSvg escapes its label itself and the rest is generated path data.
  const safeQr = qrSvg(totpUri(p.v.user.username, p.secret), tr("QR code for your authenticator app"));
  return (
    <Layout title="Set up two-factor authentication" viewer={p.v} path="/backoffice/security">
      <Notice kind="error" text={p.error && tr(p.error)} />
      <p safe>{tr("Scan the code with an authenticator app (or enter the key by hand), then type the 6-digit code it shows.")}</p>
      {safeQr}
      <p>{trm("Key: {key}", { key: <span class="mono" data-totp-secret safe>{p.secret}</span> })}</p>
      <form method="post" action="/backoffice/security/totp/confirm" class="stack">
        <Csrf viewer={p.v} />
        <label for="code" safe>{tr("Authentication code")}</label>
        <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required />
        <button type="submit" safe>{tr("Turn on")}</button>
      </form>
    </Layout>
  ) as string;
}

function RecoveryPage(p: { v: Viewer; codes: string[] }): string {
  return (
    <Layout title="Recovery codes" viewer={p.v} path="/backoffice/security">
      <Notice text={tr("Two-factor authentication is on.")} />
      <p safe>{tr("Store these recovery codes now; they are not shown again. Each signs you in once without your authenticator.")}</p>
      <ul class="secret">
        {p.codes.map((c) => (
          <li safe>{c}</li>
        ))}
      </ul>
      <p>
        <a href="/backoffice/security" safe>
          {tr("Done")}
        </a>
      </p>
    </Layout>
  ) as string;
}

export function securityRoutes(d: BackofficeDeps) {
  const pendingSecret = async (v: Viewer): Promise<string | null> => {
    const u = await userById(d.ctx.db, v.user.id);
    return u && u.totpEnabledAt === null && u.totpSecretEnc ? d.ctx.cipher.decrypt(u.totpSecretEnc) : null;
  };
  const enrolling = { during: ["2fa" as const] };
  const choosing = { during: ["password" as const] };
  return new Elysia({ name: "backoffice-security" })
    .get(
      "/backoffice/password",
      page(d, choosing, (v) => (v.owes === "password" ? NewPasswordPage({ v }) : redirect("/backoffice/security"))),
    )
    .post(
      "/backoffice/password",
      action(d, choosing, async (v, { body }) => {
        if (v.owes !== "password") return redirect("/backoffice/security");
        const next = str(body.new);
        if (next !== str(body.repeat)) return html(NewPasswordPage({ v, error: "The two passwords are not the same. Type the new password twice." }), 400);
        try {
          await changePassword(d.users, v.user.id, next, v.session.id);
        } catch (e) {
          if (e instanceof UserError) return html(NewPasswordPage({ v, error: errorSentence(locale(), e) }), 400);
          throw e;
        }
        await recordAudit(d.ctx.db, { ...actorOf(v), action: "user.password_change", target: `user:${v.user.username}`, at: d.users.now() });
        return redirect("/backoffice");
      }),
    )
    .get(
      "/backoffice/security",
      page(d, enrolling, async (v, { query }) => SecurityPage({ sessions: await activeSessions(d.users, d.policy, v.user.id), v, notice: NOTICES[query.done ?? ""] })),
    )
    .post(
      "/backoffice/security/totp",
      // A stolen session must not enrol its own second factor (locking the owner out): password first.
      action(d, { ...enrolling, reauth: "always" }, async (v) => {
        if (v.totp) return redirect("/backoffice/security");
        // The secret waits, encrypted, until a code from the app proves it was stored.
        const secret = newTotpSecret();
        await storePendingTotpSecret(d.users, v.user.id, secret);
        return EnrollPage({ v, secret });
      }),
    )
    .post(
      "/backoffice/security/totp/confirm",
      action(d, enrolling, async (v, { body }) => {
        const secret = await pendingSecret(v);
        if (v.totp || !secret) return redirect("/backoffice/security");
        const step = totpStep(v.user.username, secret, str(body.code), d.users.now());
        if (step === null) return EnrollPage({ v, secret, error: "That code is not valid. Check the app and try the current code." });
        const codes = newRecoveryCodes();
        await enableTotp(d.users, v.user.id, secret, codes, step);
        await recordAudit(d.ctx.db, { ...actorOf(v), action: "user.totp_enable", target: `user:${v.user.username}`, at: d.users.now() });
        return RecoveryPage({ v, codes });
      }),
    )
    .post(
      "/backoffice/security/password",
      action(d, {}, async (v, { request, body }) => {
        // The current password is an attempt like a sign-in: counted, refused while locked.
        const r = await reauthenticate(d.users, v.session, v.user, str(body.current), d.clientAddr(request), { passwordOnly: true });
        if (r !== "ok") return SecurityPage({ sessions: await activeSessions(d.users, d.policy, v.user.id), v, error: r === "invalid" ? "The current password is not right." : "Too many failed attempts for this username. Try again in 15 minutes." });
        try {
          await changePassword(d.users, v.user.id, str(body.new), v.session.id);
        } catch (e) {
          if (e instanceof UserError) return SecurityPage({ sessions: await activeSessions(d.users, d.policy, v.user.id), v, error: errorSentence(locale(), e) });
          throw e;
        }
        await recordAudit(d.ctx.db, { ...actorOf(v), action: "user.password_change", target: `user:${v.user.username}`, at: d.users.now() });
        return redirect("/backoffice/security?done=password");
      }),
    )
    .post(
      "/backoffice/security/sessions/end",
      action(d, {}, async (v, { body }) => {
        await revokeSession(d.users, str(body.id), { userId: v.user.id });
        return redirect("/backoffice/security?done=session");
      }),
    );
}
