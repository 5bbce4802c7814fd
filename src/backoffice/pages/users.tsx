/** @jsxImportSource @kitajs/html */
// Operator: back-office users — create (password shown once), disable/enable,
// reset password, reset 2FA. Same services and audit entries as `stablegate user`.
import { Elysia } from "elysia";
import { listMerchants } from "../../merchants/service";
import { action, actorOf, type BackofficeDeps, html, page, str, type Viewer } from "../guard";
import { createUser, describeUser, listUsers, resetPassword, resetTotp, setUserStatus, UserError } from "../users";
import { ActionButton, CopyButton, Csrf, DataTable, Notice, StatusBadge } from "../views/common";
import { Layout } from "../views/layout";
import { locale, tr, trf, trm } from "../i18n";
import { errorSentence } from "../../i18n/catalog";

/** What the "Add a user" form was given (kept when it is shown again with an error). */
interface UserForm {
  username: string;
  role: string;
  merchant: string;
}

/** The users and merchants the users page shows, read by its route handlers (the page runs no query). */
async function loadUsers(d: BackofficeDeps) {
  const merchants = await listMerchants(d.ctx.db);
  const uids = new Map(merchants.map((m) => [m.id, m.uid]));
  return { merchants, users: (await listUsers(d.ctx.db)).map((u) => describeUser(u, u.merchantId ? (uids.get(u.merchantId) ?? null) : null)) };
}

function UsersPage(p: { data: Awaited<ReturnType<typeof loadUsers>>; v: Viewer; secret?: { username: string; password: string }; notice?: string; error?: string; form?: UserForm }): string {
  const f = p.form ?? { username: "", role: "merchant", merchant: "" };
  const { merchants, users } = p.data;
  return (
    <Layout title="Users" viewer={p.v} path="/backoffice/users">
      <Notice text={p.notice && tr(p.notice)} />
      <Notice kind="error" text={p.error && tr(p.error)} />
      {p.secret ? (
        <section class="card" aria-label={tr("New password")}>
          <p>{trm("Password of {username}. Hand it over now: it is not shown again.", { username: <strong safe>{p.secret.username}</strong> })}</p>
          <p class="secret" id="new-password" data-password safe>
            {p.secret.password}
          </p>
          <CopyButton target="new-password" label={tr("Copy password")} />
          <p class="muted" safe>
            {tr("They choose their own password at the first sign-in.")}
          </p>
        </section>
      ) : (
        <></>
      )}
      <h2 safe>{tr("Add a user")}</h2>
      <form method="post" action="/backoffice/users" class="filters">
        <Csrf viewer={p.v} />
        <label for="u-name">
          {trm("New username")}
          <input id="u-name" name="username" required maxlength="64" autocomplete="off" value={f.username} />
        </label>
        <label for="u-role">
          {trm("Role")}
          <select id="u-role" name="role">
            <option value="merchant" selected={f.role !== "operator"} safe>
              {tr("merchant")}
            </option>
            <option value="operator" selected={f.role === "operator"} safe>
              {tr("operator")}
            </option>
          </select>
        </label>
        <label for="u-merchant">
          {trm("Merchant (merchant users)")}
          <select id="u-merchant" name="merchant">
            <option value="">—</option>
            {merchants.map((m) => (
              <option value={m.uid} selected={m.uid === f.merchant} safe>
                {`${m.uid} ${m.name}`}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" safe>{tr("Create user")}</button>
      </form>
      <DataTable
        label={tr("Users")}
        head={[tr("Username"), tr("Role"), tr("Merchant"), tr("Status"), tr("2FA"), tr("Actions")]}
        rows={users}
        row={(u) => (
          <tr>
            <td safe>{u.username}</td>
            <td safe>{tr(u.role)}</td>
            <td safe>{u.merchantUid ?? "—"}</td>
            <td>
              <StatusBadge status={u.status} />
            </td>
            <td safe>{tr(u.totp ? "on" : "off")}</td>
            <td>
              {u.username === p.v.user.username ? (
                <span safe>{tr("you")}</span>
              ) : (
                <div class="inline">
                  <form method="post" action="/backoffice/users/status" class="inline">
                    <Csrf viewer={p.v} />
                    <input type="hidden" name="username" value={u.username} />
                    <input type="hidden" name="status" value={u.status === "active" ? "disabled" : "active"} />
                    <button type="submit" class="secondary" aria-label={trf(u.status === "active" ? "Disable {username}" : "Enable {username}", { username: u.username })} safe>
                      {tr(u.status === "active" ? "Disable" : "Enable")}
                    </button>
                  </form>
                  <ActionButton viewer={p.v} action="/backoffice/users/reset-password" fields={{ username: u.username }} label={tr("Reset password")} ariaLabel={trf("Reset password of {username}", { username: u.username })} kind="secondary" />
                  {u.totp ? (
                    <ActionButton viewer={p.v} action="/backoffice/users/reset-2fa" fields={{ username: u.username }} label={tr("Reset 2FA")} ariaLabel={trf("Reset 2FA of {username}", { username: u.username })} kind="secondary" />
                  ) : (
                    <></>
                  )}
                </div>
              )}
            </td>
          </tr>
        )}
      />
    </Layout>
  ) as string;
}

export function usersRoutes(d: BackofficeDeps) {
  const op = { role: "operator" as const };
  const handle = async (v: Viewer, fn: () => Promise<{ secret?: { username: string; password: string }; notice?: string }>, form?: UserForm) => {
    try {
      return UsersPage({ data: await loadUsers(d), v, ...await fn() });
    } catch (e) {
      if (e instanceof UserError) return html(UsersPage({ data: await loadUsers(d), v, error: errorSentence(locale(), e), form }), 400);
      throw e;
    }
  };
  return new Elysia({ name: "backoffice-users" })
    .get("/backoffice/users", page(d, op, async (v) => UsersPage({ data: await loadUsers(d), v })))
    .post(
      "/backoffice/users",
      // A new user (an operator even) is who can act: the password every time.
      action(d, { ...op, reauth: "always" }, async (v, { body }) => {
        const form: UserForm = { username: str(body.username).trim(), role: str(body.role) === "operator" ? "operator" : "merchant", merchant: str(body.merchant) };
        return await handle(
          v,
          async () => {
            const role = form.role === "operator" ? "operator" : "merchant";
            // The service's wording names the CLI flag; here it is the form's field.
            if (role === "merchant" && !form.merchant) throw new UserError("user.merchant_unchosen");
            const merchantUid = role === "merchant" ? form.merchant : undefined;
            const r = await createUser(d.users, { username: form.username, role, merchantUid, mustChangePassword: true }, actorOf(v));
            return { secret: { username: r.user.username, password: r.password }, notice: trf("User {username} created.", { username: r.user.username }) };
          },
          form,
        );
      }),
    )
    .post(
      "/backoffice/users/status",
      action(d, { ...op, reauth: "always" }, async (v, { body }) =>
        await handle(v, async () => {
          const u = await setUserStatus(d.users, str(body.username), str(body.status) === "active" ? "active" : "disabled", actorOf(v));
          return { notice: trf(u.status === "active" ? "{username} is active." : "{username} is disabled.", { username: u.username }) };
        }),
      ),
    )
    .post(
      "/backoffice/users/reset-password",
      action(d, { ...op, reauth: "always" }, async (v, { body }) =>
        await handle(v, async () => {
          const r = await resetPassword(d.users, str(body.username), actorOf(v), { mustChangePassword: true });
          return { secret: { username: r.user.username, password: r.password }, notice: tr("Password reset; their sessions ended.") };
        }),
      ),
    )
    .post(
      "/backoffice/users/reset-2fa",
      action(d, { ...op, reauth: "always" }, async (v, { body }) =>
        await handle(v, async () => {
          const u = await resetTotp(d.users, str(body.username), actorOf(v));
          return { notice: trf("Two-factor authentication of {username} removed.", { username: u.username }) };
        }),
      ),
    );
}
