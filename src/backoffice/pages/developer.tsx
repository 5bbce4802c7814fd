/** @jsxImportSource @kitajs/html */
// Developer settings of a merchant user (DESIGN 12): rotate the API key (shown
// once), the default callback URL with "Send test callback" and its
// deliveries, and the /openapi IP allowlist.
import { Elysia } from "elysia";
import { currentKey, findMerchantById } from "../../merchants/service";
import { rotateKeyAudited } from "../../merchants/admin";
import { ipAllowlistOf, SettingsError, updateMerchantSettings } from "../../merchants/settings";
import { action, actorOf, type BackofficeDeps, html, page, redirect, str, type Viewer } from "../guard";
import { NotFound } from "../errors";
import { Csrf, Notice, Time } from "../views/common";
import { Layout } from "../views/layout";
import { locale, tr, trf, trm } from "../i18n";
import { errorText } from "../../i18n/catalog";
import { queueTestCallback, TestCallbacks } from "../views/test-callbacks";
import { recentTestCallbacks } from "../../callbacks/test-event";
import { ReauthField } from "./reauth";
import { CompatKeyError, compatKeyState, setCompatKeys } from "../../merchants/compat-keys";
import { releaseHeldCallbacks } from "../../callbacks/store";

const PATH = "/backoffice/developer";
const NOTICES: Record<string, string> = {
  callback: "Default callback URL saved.",
  allowlist: "IP allowlist saved.",
  test: "Test callback queued: its delivery shows below.",
  epusdt: "epusdt token saved.",
  epay: "EPay key saved.",
};

async function merchantOf(d: BackofficeDeps, v: Viewer) {
  const m = v.merchantId === null ? undefined : await findMerchantById(d.ctx.db, v.merchantId);
  if (!m) throw new NotFound();
  return m;
}

/** What the developer settings page shows, read by its route handlers (the page runs no query). */
async function loadDeveloper(d: BackofficeDeps, v: Viewer) {
  const m = await merchantOf(d, v);
  return {
    m,
    key: await currentKey(d.ctx.db, m.id),
    tests: await recentTestCallbacks(d.ctx.db, m.id),
    keys: compatKeyState(d.ctx, m),
    publicUrl: d.ctx.publicUrl,
    compat: d.ctx.config.compat,
    rotationGrace: d.ctx.config.auth.rotation_grace,
  };
}
type DeveloperData = Awaited<ReturnType<typeof loadDeveloper>>;

function DeveloperPage(p: { data: DeveloperData; v: Viewer; notice?: string; error?: string; newKey?: string }): string {
  const { data, v } = p;
  const { m, key } = data;
  return (
    <Layout title="Developer settings" viewer={v} path={PATH}>
      <Notice text={p.notice && tr(p.notice)} />
      <Notice kind="error" text={p.error && tr(p.error)} />
      <h2 safe>{tr("API key")}</h2>
      <dl class="kv">
        <dt safe>{tr("Merchant UID")}</dt>
        <dd class="mono" safe>
          {m.uid}
        </dd>
        <dt safe>{tr("Current key")}</dt>
        <dd class="mono" safe>
          {key?.hint ?? "—"}
        </dd>
        <dt safe>{tr("Issued")}</dt>
        <dd>
          <Time ms={key?.validFrom} />
        </dd>
      </dl>
      {p.newKey ? (
        <>
          <p role="status" safe>
            {tr("Your new API key. Copy it now: it is not shown again.")}
          </p>
          <p class="secret" data-testid="new-api-key" safe>
            {p.newKey}
          </p>
          <p class="muted" safe>
            {trf("The previous key still signs requests for {grace} and keeps verifying the callbacks of orders created under it.", { grace: data.rotationGrace })}
          </p>
        </>
      ) : null}
      <form method="post" action={`${PATH}/rotate-key`} class="stack">
        <Csrf viewer={v} />
        <ReauthField viewer={v} />
        <button type="submit" safe>{tr("Rotate API key")}</button>
      </form>

      <h2 safe>{tr("Callbacks")}</h2>
      <form method="post" action={`${PATH}/callback-url`} class="stack">
        <Csrf viewer={v} />
        <label for="url" safe>{tr("Default callback URL")}</label>
        <input id="url" name="url" type="url" value={m.defaultCallbackUrl ?? ""} placeholder="https://shop.example/stablegate/callback" />
        <button type="submit" safe>{tr("Save callback URL")}</button>
      </form>
      <form method="post" action={`${PATH}/test-callback`} class="actions">
        <Csrf viewer={v} />
        <button type="submit" class="secondary" safe>
          {tr("Send test callback")}
        </button>
      </form>
      <TestCallbacks rows={data.tests} />

      <h2 safe>{tr("IP allowlist")}</h2>
      <form method="post" action={`${PATH}/ip-allowlist`} class="stack">
        <Csrf viewer={v} />
        <label for="allow" safe>{tr("IP allowlist")}</label>
        <textarea id="allow" name="allowlist" rows="4" aria-describedby="allow-help" safe>
          {ipAllowlistOf(m).join("\n")}
        </textarea>
        <p id="allow-help" class="muted" safe>
          {tr("One address or CIDR per line. Empty: any address may call /openapi. A request from elsewhere is refused with code 20020.")}
        </p>
        <button type="submit" safe>{tr("Save IP allowlist")}</button>
      </form>

      <ShopPlugins data={data} v={v} />
    </Layout>
  ) as string;
}

function CompatKeyForm({ v, protocol, label }: { v: Viewer; protocol: "epusdt" | "epay"; label: string }): JSX.Element {
  return (
    <form method="post" action={`${PATH}/compat-keys`} class="stack">
      <Csrf viewer={v} />
      <input type="hidden" name="protocol" value={protocol} />
      <label for={`${protocol}-key`} safe>
        {tr(label)}
      </label>
      <input id={`${protocol}-key`} name="key" type="password" autocomplete="off" aria-describedby="compat-help" />
      <button type="submit" safe>
        {tr(`Save ${label}`)}
      </button>
    </form>
  );
}

/** DESIGN 19: the keys shop plugins sign with, and what to enter in them (docs/plugins.md). */
function ShopPlugins({ data, v }: { data: DeveloperData; v: Viewer }): JSX.Element {
  const { m, keys } = data;
  const base = data.publicUrl;
  return (
    <>
      <h2 safe>{tr("Shop plugins")}</h2>
      <p class="muted" safe>
        {trf("Plugins that speak epusdt (dujiaoka, WHMCS, WooCommerce…) or EPay (易支付) work unchanged: set a key here, then enter the values below in the plugin. Amounts are in {currency}, paid in {payment}.", {
          currency: data.compat.currency,
          payment: data.compat.payment,
        })}
      </p>
      <dl class="kv">
        <dt safe>{tr("epusdt API address")}</dt>
        <dd class="mono wrap" safe>
          {`${base}/compat/epusdt/${m.uid}`}
        </dd>
        <dt safe>{tr("epusdt create-transaction URL")}</dt>
        <dd class="mono wrap" safe>
          {`${base}/compat/epusdt/${m.uid}/api/v1/order/create-transaction`}
        </dd>
        <dt safe>{tr("GMPay-style plugins: PID")}</dt>
        <dd safe>{tr("Any value: it is signed and echoed in the callback; the merchant is the one in the address.")}</dd>
        <dt safe>{tr("epusdt token")}</dt>
        <dd class="mono" safe>
          {keys.epusdt ?? tr("not set (epusdt off)")}
        </dd>
        <dt safe>{tr("EPay address")}</dt>
        <dd class="mono wrap" safe>
          {`${base}/compat/epay/`}
        </dd>
        <dt safe>{tr("EPay merchant ID (pid)")}</dt>
        <dd class="mono" safe>
          {m.uid.replace(/\D/g, "")}
        </dd>
        <dt safe>{tr("EPay key")}</dt>
        <dd class="mono" safe>
          {keys.epay ?? tr("not set (EPay off)")}
        </dd>
      </dl>
      <CompatKeyForm v={v} protocol="epusdt" label="epusdt token" />
      <CompatKeyForm v={v} protocol="epay" label="EPay key" />
      <p id="compat-help" class="muted">
        {trm("8-128 printable characters, the same as in the plugin's settings. Saving an empty value turns that protocol off.")}
      </p>
    </>
  );
}

export function developerRoutes(d: BackofficeDeps) {
  const settingsDeps = () => ({ db: d.ctx.db, now: () => d.ctx.clock.now(), allowPrivateTargets: d.ctx.config.callbacks.allow_private_targets, releaseHeldCallbacks });
  return new Elysia({ name: "backoffice-developer" })
    .get(PATH, page(d, { role: "merchant" }, async (v, { query }) => DeveloperPage({ data: await loadDeveloper(d, v), v, notice: NOTICES[query.done ?? ""] })))
    .post(
      `${PATH}/rotate-key`,
      action(d, { role: "merchant", reauth: "always" }, async (v) => {
        const m = await merchantOf(d, v);
        const r = await rotateKeyAudited({ db: d.ctx.db, cipher: d.ctx.cipher, now: () => d.ctx.clock.now() }, m.uid, d.ctx.ms.rotationGrace, actorOf(v));
        return DeveloperPage({ data: await loadDeveloper(d, v), v, newKey: r.apiKey });
      }),
    )
    .post(
      `${PATH}/callback-url`,
      action(d, { role: "merchant", reauth: "always" }, async (v, { body }) => {
        const m = await merchantOf(d, v);
        try {
          const r = await updateMerchantSettings(settingsDeps(), m.uid, { defaultNotifyUrl: str(body.url) }, actorOf(v));
          if (r.released > 0) d.kick();
        } catch (e) {
          if (e instanceof SettingsError) return DeveloperPage({ data: await loadDeveloper(d, v), v, error: errorText(locale(), e) });
          throw e;
        }
        return redirect(`${PATH}?done=callback`);
      }),
    )
    .post(
      `${PATH}/test-callback`,
      action(d, { role: "merchant" }, async (v) => {
        const m = await merchantOf(d, v);
        const refused = await queueTestCallback({ db: d.ctx.db, now: () => d.ctx.clock.now(), kick: d.kick }, m.id);
        if (refused) return html(DeveloperPage({ data: await loadDeveloper(d, v), v, error: refused.error }), refused.status);
        return redirect(`${PATH}?done=test`);
      }),
    )
    .post(
      `${PATH}/compat-keys`,
      action(d, { role: "merchant", reauth: "always" }, async (v, { body }) => {
        const m = await merchantOf(d, v);
        const protocol = str(body.protocol);
        if (protocol !== "epusdt" && protocol !== "epay") return html(DeveloperPage({ data: await loadDeveloper(d, v), v, error: "Choose epusdt or EPay." }), 400);
        try {
          await setCompatKeys({ db: d.ctx.db, cipher: d.ctx.cipher, now: () => d.ctx.clock.now() }, m.uid, { [protocol]: str(body.key) }, actorOf(v));
        } catch (e) {
          if (e instanceof CompatKeyError) return DeveloperPage({ data: await loadDeveloper(d, v), v, error: errorText(locale(), e) });
          throw e;
        }
        return redirect(`${PATH}?done=${protocol}`);
      }),
    )
    .post(
      `${PATH}/ip-allowlist`,
      action(d, { role: "merchant", reauth: "always" }, async (v, { body }) => {
        const m = await merchantOf(d, v);
        try {
          await updateMerchantSettings(settingsDeps(), m.uid, { ipAllowlist: str(body.allowlist).split(/[\s,]+/) }, actorOf(v));
        } catch (e) {
          if (e instanceof SettingsError) return DeveloperPage({ data: await loadDeveloper(d, v), v, error: errorText(locale(), e) });
          throw e;
        }
        return redirect(`${PATH}?done=allowlist`);
      }),
    );
}
