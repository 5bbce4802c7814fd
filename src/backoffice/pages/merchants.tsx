/** @jsxImportSource @kitajs/html */
// Operator: merchants — create (API key shown once), disable/enable, rotate
// key, settings (name, default callback URL, IP allowlist, payout switch,
// fees, limits, fee balance). Key actions ask for re-authentication.
import { Elysia } from "elysia";
import { parseDuration } from "../../lib/duration";
import { writeTx } from "../../db/client";
import { createMerchantAudited, renameMerchant, rotateKeyAudited, setMerchantStatusAudited } from "../../merchants/admin";
import { adjustFeeBalanceAudited, setPayoutControlsAudited } from "../../payout/controls-audited";
import { findMerchantByUid, listMerchants, type Merchant } from "../../merchants/service";
import { ipAllowlistOf, SettingsError, updateMerchantSettings } from "../../merchants/settings";
import { ControlsError, getPayoutControls } from "../../payout/controls";
import { NotFound } from "../errors";
import { action, actorOf, type BackofficeDeps, html, page, redirect, str, type Viewer } from "../guard";
import { createUser, UserError } from "../users";
import { ActionButton, CopyButton, Csrf, DataTable, Notice, StatusBadge, Time } from "../views/common";
import { Layout } from "../views/layout";
import { locale, tr, trf, trm } from "../i18n";
import { errorSentence } from "../../i18n/catalog";
import { queueTestCallback, TestCallbacks } from "../views/test-callbacks";
import { recentTestCallbacks } from "../../callbacks/test-event";
import { releaseHeldCallbacks } from "../../callbacks/store";

const NOTICES: Record<string, string> = {
  saved: "Settings saved.",
  status: "Status changed.",
  fee: "Fee balance changed.",
  test: "Test callback queued: its delivery shows under Test callbacks.",
};

const mdeps = (d: BackofficeDeps) => ({ db: d.ctx.db, cipher: d.ctx.cipher, now: d.users.now });

function KeyOnce(p: { uid: string; apiKey: string }): JSX.Element {
  return (
    <section aria-label={tr("New API key")} class="card">
      <p>{trm("API key of {uid}. Store it now: it is not shown again.", { uid: <strong safe>{p.uid}</strong> })}</p>
      <p class="secret" id="new-api-key" data-api-key safe>
        {p.apiKey}
      </p>
      <CopyButton target="new-api-key" label={tr("Copy API key")} />
    </section>
  );
}

/** What the onboarding form was given (kept when it is shown again with an error). */
interface Onboarding {
  name: string;
  url: string;
  username: string;
}

interface Created {
  merchant: Merchant;
  apiKey: string;
  user?: { username: string; password: string };
}

/** The result of onboarding: the key once (with Copy), the first user's password once, and what to do next. */
function Onboarded(p: { publicUrl: string; v: Viewer; c: Created }): JSX.Element {
  const { merchant: m, user } = p.c;
  const settings = `/backoffice/merchants/${m.uid}`;
  return (
    <>
      <Notice text={trf("Merchant {uid} created.", { uid: m.uid })} />
      <KeyOnce uid={m.uid} apiKey={p.c.apiKey} />
      {user ? (
        <section aria-label={tr("First user")} class="card">
          <p>
            {trm("First user {username}, password (shown once; they choose their own at the first sign-in at {url}):", {
              username: <strong safe>{user.username}</strong>,
              url: <span class="mono" safe>{`${p.publicUrl}/backoffice/login`}</span>,
            })}
          </p>
          <p class="secret" id="new-password" data-password safe>
            {user.password}
          </p>
          <CopyButton target="new-password" label={tr("Copy password")} />
        </section>
      ) : (
        <></>
      )}
      <section aria-label={tr("Next steps")} class="card">
        <h2 safe>{tr("Next steps")}</h2>
        <ol>
          <li>
            {trm("Give the merchant UID {uid} and the API key to the shop's developer (docs/integration.md: signing requests and verifying callbacks).", {
              uid: <span class="mono" safe>{m.uid}</span>,
            })}
          </li>
          {m.defaultCallbackUrl ? (
            <li>
              {trm("Check that the shop receives callbacks at {url}:", { url: <span class="mono" safe>{m.defaultCallbackUrl}</span> })}
              <ActionButton viewer={p.v} action={`${settings}/test-callback`} label={tr("Send a test callback")} kind="secondary" />
            </li>
          ) : (
            <li>
              {trm("Set a default callback URL in the {settings}, then send a test callback from there.", { settings: <a href={settings}>{trm("merchant's settings")}</a> })}
            </li>
          )}
          <li>{trm("Review payouts, fees and the IP allowlist in the {settings}.", { settings: <a href={settings}>{trm("merchant's settings")}</a> })}</li>
        </ol>
      </section>
    </>
  );
}

/** What the merchant list shows, read by its route handlers (the page runs no query). */
const loadMerchants = async (d: BackofficeDeps) => ({ rows: await listMerchants(d.ctx.db), publicUrl: d.ctx.publicUrl });

function MerchantsPage(p: { data: Awaited<ReturnType<typeof loadMerchants>>; v: Viewer; created?: Created; error?: string; form?: Onboarding }): string {
  const { rows } = p.data;
  const f = p.form ?? { name: "", url: "", username: "" };
  return (
    <Layout title="Merchants" viewer={p.v} path="/backoffice/merchants">
      <Notice kind="error" text={p.error && tr(p.error)} />
      {p.created ? <Onboarded publicUrl={p.data.publicUrl} v={p.v} c={p.created} /> : <></>}
      <h2 safe>{tr("Add a merchant")}</h2>
      <form method="post" action="/backoffice/merchants" class="stack">
        <Csrf viewer={p.v} />
        <label for="m-name" safe>{tr("Name")}</label>
        <input id="m-name" name="name" required maxlength="100" value={f.name} />
        <label for="m-url" safe>{tr("Default callback URL (optional)")}</label>
        <input id="m-url" name="defaultNotifyUrl" type="url" maxlength="2048" value={f.url} placeholder="https://shop.example/stablegate/callback" aria-describedby="m-url-help" />
        <p id="m-url-help" class="muted" safe>
          {tr("Where callbacks go when an order names no notifyUrl; a test callback can be sent there next.")}
        </p>
        <label for="m-user">{trm("First user's username (optional)")}</label>
        <input id="m-user" name="username" maxlength="64" autocomplete="off" value={f.username} aria-describedby="m-user-help" />
        <p id="m-user-help" class="muted" safe>
          {tr("A merchant user with a generated password, shown once; they choose their own at the first sign-in.")}
        </p>
        <button type="submit" safe>{tr("Create merchant")}</button>
      </form>
      <h2 safe>{tr("Merchant list")}</h2>
      <DataTable
        label={tr("Merchants")}
        head={[tr("UID"), tr("Name"), tr("Status"), tr("Created")]}
        rows={rows}
        row={(m) => (
          <tr>
            <td>
              <a href={`/backoffice/merchants/${m.uid}`} safe>
                {m.uid}
              </a>
            </td>
            <td safe>{m.name}</td>
            <td>
              <StatusBadge status={m.status} />
            </td>
            <td>
              <Time ms={m.createdAt} />
            </td>
          </tr>
        )}
      />
    </Layout>
  ) as string;
}

/** What a merchant's page shows, read by its route handlers (the page runs no query). */
const loadMerchant = async (d: BackofficeDeps, m: Merchant) => ({ m, controls: await getPayoutControls(d.ctx.db, m.id), tests: await recentTestCallbacks(d.ctx.db, m.id) });

function MerchantPage(p: { data: Awaited<ReturnType<typeof loadMerchant>>; v: Viewer; notice?: string; error?: string; newKey?: string }): string {
  const { v } = p;
  const { m, controls: c } = p.data;
  return (
    <Layout title={trf("Merchant {uid}", { uid: m.uid })} viewer={v} path="/backoffice/merchants">
      <Notice text={p.notice && tr(p.notice)} />
      <Notice kind="error" text={p.error && tr(p.error)} />
      {p.newKey ? <KeyOnce uid={m.uid} apiKey={p.newKey} /> : <></>}
      <dl class="kv">
        <dt safe>{tr("Name")}</dt>
        <dd safe>{m.name}</dd>
        <dt safe>{tr("Status")}</dt>
        <dd>
          <StatusBadge status={m.status} />
        </dd>
        <dt safe>{tr("Fee balance")}</dt>
        <dd safe>{c.feeBalance}</dd>
        <dt safe>{tr("Callbacks")}</dt>
        <dd>
          <a href={`/backoffice/callbacks?merchant=${m.uid}`}>{trm("All of this merchant's callbacks")}</a>
          {" · "}
          <a href={`/backoffice/callbacks?merchant=${m.uid}&state=failed`} safe>
            {tr("those that gave up")}
          </a>
        </dd>
      </dl>
      <div class="actions">
        <form method="post" action={`/backoffice/merchants/${m.uid}/status`} class="inline">
          <Csrf viewer={v} />
          <input type="hidden" name="status" value={m.status === "active" ? "disabled" : "active"} />
          <button type="submit" class={m.status === "active" ? "danger" : ""} safe>
            {tr(m.status === "active" ? "Disable" : "Enable")}
          </button>
        </form>
        <ActionButton viewer={v} action={`/backoffice/merchants/${m.uid}/rotate`} label={tr("Rotate key")} kind="secondary" />
      </div>
      <h2 safe>{tr("Settings")}</h2>
      <form method="post" action={`/backoffice/merchants/${m.uid}/settings`} class="stack">
        <Csrf viewer={v} />
        <label for="s-name" safe>{tr("Merchant name")}</label>
        <input id="s-name" name="name" value={m.name} required maxlength="100" />
        <label for="s-url" safe>{tr("Default callback URL")}</label>
        <input id="s-url" name="defaultNotifyUrl" type="url" value={m.defaultCallbackUrl ?? ""} />
        <label for="s-ips" safe>{tr("IP allowlist")}</label>
        <textarea id="s-ips" name="ipAllowlist" rows="3" aria-describedby="s-ips-help" safe>
          {ipAllowlistOf(m).join("\n")}
        </textarea>
        <p id="s-ips-help" class="muted" safe>
          {tr("One address or CIDR per line (or comma-separated); empty allows every address.")}
        </p>
        <label class="inline" for="s-payouts">
          <input id="s-payouts" name="payoutsEnabled" type="checkbox" value="1" checked={c.payoutsEnabled} /> {trm("Payouts enabled")}
        </label>
        <label for="s-fixed" safe>{tr("Payout fee, fixed")}</label>
        <input id="s-fixed" name="payoutFeeFixed" value={c.payoutFeeFixed} inputmode="decimal" />
        <label for="s-rate" safe>{tr("Payout fee rate (fraction, e.g. 0.001)")}</label>
        <input id="s-rate" name="payoutFeeRate" value={c.payoutFeeRate} inputmode="decimal" />
        <label for="s-limit" safe>{tr("Payout limit per transaction")}</label>
        <input id="s-limit" name="payoutLimitPerTx" value={c.payoutLimitPerTx ?? ""} inputmode="decimal" placeholder={tr("no limit")} />
        <label for="s-daily" safe>{tr("Payout limit per day")}</label>
        <input id="s-daily" name="payoutLimitDaily" value={c.payoutLimitDaily ?? ""} inputmode="decimal" placeholder={tr("no limit")} />
        <button type="submit" safe>{tr("Save settings")}</button>
      </form>
      <h2 safe>{tr("Test callbacks")}</h2>
      <p class="muted">{trm("A signed test event to the default callback URL, delivered and retried like an order's callback.")}</p>
      <ActionButton viewer={v} action={`/backoffice/merchants/${m.uid}/test-callback`} label={tr("Send a test callback")} kind="secondary" />
      <TestCallbacks rows={p.data.tests} />
      <h2 safe>{tr("Fee balance")}</h2>
      <form method="post" action={`/backoffice/merchants/${m.uid}/fee`} class="inline">
        <Csrf viewer={v} />
        <label for="f-delta" safe>{tr("Credit amount")}</label>
        <input id="f-delta" name="delta" required inputmode="decimal" placeholder={tr("10 or -2.5")} />
        <label for="f-note" safe>{tr("Fee note")}</label>
        <input id="f-note" name="note" maxlength="200" />
        <button type="submit" safe>{tr("Apply")}</button>
      </form>
    </Layout>
  ) as string;
}

export function merchantsRoutes(d: BackofficeDeps) {
  const load = async (uid: string) => {
    const m = /^[A-Za-z0-9]{1,32}$/.test(uid) ? await findMerchantByUid(d.ctx.db, uid) : undefined;
    if (!m) throw new NotFound(tr("No such merchant."));
    return m;
  };
  const op = { role: "operator" as const };
  return new Elysia({ name: "backoffice-merchants" })
    .get("/backoffice/merchants", page(d, op, async (v) => MerchantsPage({ data: await loadMerchants(d), v })))
    .post(
      "/backoffice/merchants",
      // A callback URL or a first user changes where money goes or who can act: the password every time.
      action(d, { ...op, reauth: (b) => (str(b.defaultNotifyUrl).trim() || str(b.username).trim() ? "always" : true) }, async (v, { body }) => {
        const form: Onboarding = { name: str(body.name).trim(), url: str(body.defaultNotifyUrl).trim(), username: str(body.username).trim() };
        const again = async (error: string) => html(MerchantsPage({ data: await loadMerchants(d), v, form, error }), 400);
        if (!form.name || [...form.name].length > 100) return await again("A merchant name is 1-100 characters.");
        try {
          // One transaction: a refused callback URL or username leaves no merchant behind.
          const created = await writeTx(d.ctx.db, async (): Promise<Created> => {
            const { merchant, apiKey } = await createMerchantAudited(mdeps(d), form.name, actorOf(v));
            if (form.url) await updateMerchantSettings({ db: d.ctx.db, now: d.users.now, allowPrivateTargets: d.ctx.config.callbacks.allow_private_targets, releaseHeldCallbacks }, merchant.uid, { defaultNotifyUrl: form.url }, actorOf(v));
            const user = form.username ? await createUser(d.users, { username: form.username, role: "merchant", merchantUid: merchant.uid, mustChangePassword: true }, actorOf(v)) : undefined;
            return { merchant: await load(merchant.uid), apiKey, user: user && { username: user.user.username, password: user.password } };
          });
          return MerchantsPage({ data: await loadMerchants(d), v, created });
        } catch (e) {
          if (e instanceof SettingsError) return await again(errorSentence(locale(), e));
          if (e instanceof UserError) return await again(errorSentence(locale(), e));
          throw e;
        }
      }),
    )
    .post(
      "/backoffice/merchants/:uid/test-callback",
      action(d, op, async (v, { params }) => {
        const m = await load(params.uid);
        const refused = await queueTestCallback({ db: d.ctx.db, now: d.users.now, kick: d.kick }, m.id);
        if (refused) return html(MerchantPage({ data: await loadMerchant(d, m), v, error: refused.error }), refused.status);
        return redirect(`/backoffice/merchants/${m.uid}?done=test`);
      }),
    )
    .get("/backoffice/merchants/:uid", page(d, op, async (v, { params, query }) => MerchantPage({ data: await loadMerchant(d, await load(params.uid)), v, notice: NOTICES[query.done ?? ""] })))
    .post(
      "/backoffice/merchants/:uid/status",
      action(d, { ...op, reauth: "always" }, async (v, { params, body }) => {
        const m = await load(params.uid);
        await setMerchantStatusAudited(mdeps(d), m.uid, str(body.status) === "active" ? "active" : "disabled", actorOf(v));
        return redirect(`/backoffice/merchants/${m.uid}?done=status`);
      }),
    )
    .post(
      "/backoffice/merchants/:uid/rotate",
      action(d, { ...op, reauth: "always" }, async (v, { params }) => {
        const m = await load(params.uid);
        const r = await rotateKeyAudited(mdeps(d), m.uid, parseDuration(d.ctx.config.auth.rotation_grace), actorOf(v));
        return MerchantPage({ data: await loadMerchant(d, await load(m.uid)), v, newKey: r.apiKey, notice: trf("New key issued; the previous one still signs requests for {grace}.", { grace: d.ctx.config.auth.rotation_grace }) });
      }),
    )
    .post(
      "/backoffice/merchants/:uid/settings",
      action(d, { ...op, reauth: "always" }, async (v, { params, body }) => {
        const m = await load(params.uid);
        const opt = (k: string) => {
          const s = str(body[k]).trim();
          return s === "" ? null : s;
        };
        try {
          // One transaction: a refused value leaves every setting as it was.
          await writeTx(d.ctx.db, async () => {
          await renameMerchant(mdeps(d), m.uid, str(body.name), actorOf(v));
          await updateMerchantSettings(
            { db: d.ctx.db, now: d.users.now, allowPrivateTargets: d.ctx.config.callbacks.allow_private_targets, releaseHeldCallbacks },
            m.uid,
            { defaultNotifyUrl: opt("defaultNotifyUrl"), ipAllowlist: str(body.ipAllowlist).split(/[\s,]+/).filter(Boolean) },
            actorOf(v),
          );
          await setPayoutControlsAudited(
            mdeps(d),
            m.uid,
            {
              payoutsEnabled: str(body.payoutsEnabled) === "1",
              payoutFeeFixed: opt("payoutFeeFixed") ?? "0",
              payoutFeeRate: opt("payoutFeeRate") ?? "0",
              payoutLimitPerTx: opt("payoutLimitPerTx"),
              payoutLimitDaily: opt("payoutLimitDaily"),
            },
            actorOf(v),
          );
          });
        } catch (e) {
          if (e instanceof SettingsError) return MerchantPage({ data: await loadMerchant(d, await load(m.uid)), v, error: errorSentence(locale(), e) });
          if (e instanceof ControlsError) return MerchantPage({ data: await loadMerchant(d, await load(m.uid)), v, error: errorSentence(locale(), e) });
          throw e;
        }
        d.kick();
        return redirect(`/backoffice/merchants/${m.uid}?done=saved`);
      }),
    )
    .post(
      "/backoffice/merchants/:uid/fee",
      action(d, { ...op, reauth: true }, async (v, { params, body }) => {
        const m = await load(params.uid);
        const delta = str(body.delta).trim();
        if (!/^-?\d{1,12}(\.\d{1,6})?$/.test(delta) || /^-?0+(\.0+)?$/.test(delta)) return MerchantPage({ data: await loadMerchant(d, m), v, error: "Give a non-zero amount with at most 6 decimals (negative to debit)." });
        try {
          await adjustFeeBalanceAudited(mdeps(d), m.uid, delta, str(body.note), actorOf(v));
        } catch (e) {
          if (e instanceof ControlsError) return MerchantPage({ data: await loadMerchant(d, m), v, error: errorSentence(locale(), e) });
          throw e;
        }
        return redirect(`/backoffice/merchants/${m.uid}?done=fee`);
      }),
    );
}
