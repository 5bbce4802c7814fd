// DESIGN 10 "Hardening": changing where money goes or who can act asks for re-authentication
// every time, even right after signing in (a stolen session cannot do it within the sign-in
// window). Each row: without the password the guard answers "Confirm it is you" and nothing
// changes; a wrong password is 401 and changes nothing; the right one does it.
import { rawGet } from "../db/raw";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { backofficeSignIn, postLogin, type BackofficeClient } from "../testing/backoffice-client";
import { randomAddress } from "../wallet/hd";
import { TestClock } from "../lib/clock";
import { findMerchantByUid } from "../merchants/service";
import { getPayoutControls } from "../payout/controls";
import { collectionSetting } from "../treasury/collection";
import { findUser } from "./users";
import { enableTotp, newTotpSecret } from "./totp";
import { addUser } from "../testing/backoffice-browser";

const clock = new TestClock(Date.parse("2026-11-24T08:00:00Z"));
let gw: TestGateway;
let op: { username: string; password: string };
let mu: { username: string; password: string };
let opBo: BackofficeClient;
let muBo: BackofficeClient;
beforeAll(async () => {
  gw = await startTestGateway({ clock, jobs: false });
  op = await addUser(gw, "reauth-operator", "operator");
  mu = await addUser(gw, "reauth-merchant", "merchant", gw.merchant.uid);
  opBo = await backofficeSignIn(gw.url, op);
  muBo = await backofficeSignIn(gw.url, mu);
});
afterAll(() => gw.stop());

const merchant = async () => (await findMerchantByUid(gw.ctx.db, gw.merchant.uid))!;
const keyCount = async () => Number((await rawGet<{ n: number | string }>(gw.ctx.db, "SELECT count(*) AS n FROM api_keys WHERE merchant_id = ?", [gw.merchant.id]))!.n);
const victim = async (name: string) => (await addUser(gw, name, "operator")).username;

interface Row {
  name: string;
  as: "operator" | "merchant";
  path: () => string;
  fields: () => Promise<Record<string, string>>;
  /** Reads the state the action changes (compared before and after). */
  state: () => Promise<unknown>;
}

const tron = randomAddress("TRON");
let n = 0;
const rows: Row[] = [
  { name: "collection destination and schedule", as: "merchant", path: () => "/backoffice/collection/settings", fields: async () => ({ pair: "TRON:USDT", destination: tron, minimum: "5", schedule: "* * * * *" }), state: async () => (await collectionSetting(gw.ctx.db, gw.merchant.id, "TRON", "USDT"))?.destination ?? null },
  { name: "default callback URL (merchant)", as: "merchant", path: () => "/backoffice/developer/callback-url", fields: async () => ({ url: `https://shop.example/cb-${++n}` }), state: async () => (await merchant()).defaultCallbackUrl },
  { name: "IP allowlist (merchant)", as: "merchant", path: () => "/backoffice/developer/ip-allowlist", fields: async () => ({ allowlist: `203.0.113.${++n}` }), state: async () => (await merchant()).ipAllowlist },
  { name: "epusdt token (merchant)", as: "merchant", path: () => "/backoffice/developer/compat-keys", fields: async () => ({ protocol: "epusdt", key: `epusdt-token-${++n}` }), state: async () => (await merchant()).epusdtTokenEnc },
  { name: "EPay key (merchant)", as: "merchant", path: () => "/backoffice/developer/compat-keys", fields: async () => ({ protocol: "epay", key: `epay-key-${++n}` }), state: async () => (await merchant()).epayKeyEnc },
  { name: "key rotation (merchant)", as: "merchant", path: () => "/backoffice/developer/rotate-key", fields: async () => ({}), state: keyCount },
  { name: "enrolling 2FA", as: "merchant", path: () => "/backoffice/security/totp", fields: async () => ({}), state: async () => (await findUser(gw.ctx.db, mu.username))!.totpSecretEnc },
  {
    name: "merchant settings: callback URL, IP allowlist, payout controls",
    as: "operator",
    path: () => `/backoffice/merchants/${gw.merchant.uid}/settings`,
    fields: async () => ({ name: "Shop", defaultNotifyUrl: `https://shop.example/op-${++n}`, ipAllowlist: "", payoutsEnabled: "1", payoutFeeFixed: "0", payoutFeeRate: "0", payoutLimitPerTx: String(100 + n), payoutLimitDaily: "" }),
    state: async () => [(await merchant()).defaultCallbackUrl, (await getPayoutControls(gw.ctx.db, gw.merchant.id)).payoutLimitPerTx],
  },
  { name: "key rotation (operator)", as: "operator", path: () => `/backoffice/merchants/${gw.merchant.uid}/rotate`, fields: async () => ({}), state: keyCount },
  { name: "disabling a merchant", as: "operator", path: () => `/backoffice/merchants/${gw.merchant.uid}/status`, fields: async () => ({ status: (await merchant()).status === "active" ? "disabled" : "active" }), state: async () => (await merchant()).status },
];

test.each(rows)("$name asks for the password every time, even just after sign-in", async (row) => {
  const bo = row.as === "operator" ? opBo : muBo;
  const who = row.as === "operator" ? op : mu;
  const before = await row.state();
  const ask = await bo.post(row.path(), await row.fields());
  expect(ask.status).toBe(200);
  expect(await ask.text()).toContain("Confirm it is you");
  expect(await row.state()).toEqual(before);
  const wrong = await bo.post(row.path(), { ...await row.fields(), _reauth: "not-the-password" });
  expect(wrong.status).toBe(401);
  expect(await row.state()).toEqual(before);
  const ok = await bo.post(row.path(), { ...await row.fields(), _reauth: who.password });
  expect(ok.status).toBeLessThan(400);
  expect(await row.state()).not.toEqual(before);
});

test.each([
  ["disabling a user", "/backoffice/users/status", (u: string) => ({ username: u, status: "disabled" }), async (u: string) => (await findUser(gw.ctx.db, u))!.status],
  ["resetting a password", "/backoffice/users/reset-password", (u: string) => ({ username: u }), async (u: string) => (await findUser(gw.ctx.db, u))!.passwordHash],
  ["removing 2FA", "/backoffice/users/reset-2fa", (u: string) => ({ username: u }), async (u: string) => (await findUser(gw.ctx.db, u))!.totpEnabledAt],
  ["creating a user", "/backoffice/users", (u: string) => ({ username: `${u}-new`, role: "operator" }), async (u: string) => (await findUser(gw.ctx.db, `${u}-new`))?.id ?? null],
] as const)("%s asks for the password every time", async (_name, path, fields, state) => {
  const u = await victim(`victim-${++n}`);
  await enableTotp({ db: gw.ctx.db, cipher: gw.ctx.cipher, now: () => clock.now() }, (await findUser(gw.ctx.db, u))!.id, newTotpSecret(), [], 0);
  const before = await state(u);
  expect(await (await opBo.post(path, fields(u))).text()).toContain("Confirm it is you");
  expect(await state(u)).toEqual(before);
  expect((await opBo.post(path, { ...fields(u), _reauth: "not-the-password" })).status).toBe(401);
  expect(await state(u)).toEqual(before);
  expect((await opBo.post(path, { ...fields(u), _reauth: op.password })).status).toBe(200);
  expect(await state(u)).not.toEqual(before);
});

test("disabling a merchant signs its users out, and they cannot sign in until it is enabled", async () => {
  const m = await gw.newMerchant("to-disable");
  const who = await addUser(gw, "disabled-shop-user", "merchant", m.uid);
  const bo = await backofficeSignIn(gw.url, who);
  expect((await bo.get("/backoffice")).status).toBe(200);
  const r = await opBo.post(`/backoffice/merchants/${m.uid}/status`, { status: "disabled", _reauth: op.password });
  expect(r.status).toBe(303);
  const after = await bo.get("/backoffice");
  expect(after.status).toBe(303);
  expect(after.headers.get("location")).toStartWith("/backoffice/login");
  expect((await postLogin(gw.url, who)).status).toBe(401);
  await opBo.post(`/backoffice/merchants/${m.uid}/status`, { status: "active", _reauth: op.password });
  expect((await postLogin(gw.url, who)).status).toBe(303);
});
