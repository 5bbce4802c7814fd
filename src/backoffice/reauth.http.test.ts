// DESIGN 10 "Hardening": changing where money goes or who can act asks for re-authentication
// every time, even right after signing in (a stolen session cannot do it within the sign-in
// window). Each row: without the password the guard answers "Confirm it is you" and nothing
// changes; a wrong password is 401 and changes nothing; the right one does it.
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
  op = addUser(gw, "reauth-operator", "operator");
  mu = addUser(gw, "reauth-merchant", "merchant", gw.merchant.uid);
  opBo = await backofficeSignIn(gw.url, op);
  muBo = await backofficeSignIn(gw.url, mu);
});
afterAll(() => gw.stop());

const merchant = () => findMerchantByUid(gw.ctx.db, gw.merchant.uid)!;
const keyCount = () => (gw.ctx.db.$client.query("SELECT count(*) AS n FROM api_keys WHERE merchant_id = ?").get(gw.merchant.id) as { n: number }).n;
const victim = (name: string) => addUser(gw, name, "operator").username;

interface Row {
  name: string;
  as: "operator" | "merchant";
  path: () => string;
  fields: () => Record<string, string>;
  /** Reads the state the action changes (compared before and after). */
  state: () => unknown;
}

const tron = randomAddress("TRON");
let n = 0;
const rows: Row[] = [
  { name: "collection destination and schedule", as: "merchant", path: () => "/backoffice/collection/settings", fields: () => ({ pair: "TRON:USDT", destination: tron, minimum: "5", schedule: "* * * * *" }), state: () => collectionSetting(gw.ctx.db, gw.merchant.id, "TRON", "USDT")?.destination ?? null },
  { name: "default callback URL (merchant)", as: "merchant", path: () => "/backoffice/developer/callback-url", fields: () => ({ url: `https://shop.example/cb-${++n}` }), state: () => merchant().defaultCallbackUrl },
  { name: "IP allowlist (merchant)", as: "merchant", path: () => "/backoffice/developer/ip-allowlist", fields: () => ({ allowlist: `203.0.113.${++n}` }), state: () => merchant().ipAllowlist },
  { name: "epusdt token (merchant)", as: "merchant", path: () => "/backoffice/developer/compat-keys", fields: () => ({ protocol: "epusdt", key: `epusdt-token-${++n}` }), state: () => merchant().epusdtTokenEnc },
  { name: "EPay key (merchant)", as: "merchant", path: () => "/backoffice/developer/compat-keys", fields: () => ({ protocol: "epay", key: `epay-key-${++n}` }), state: () => merchant().epayKeyEnc },
  { name: "key rotation (merchant)", as: "merchant", path: () => "/backoffice/developer/rotate-key", fields: () => ({}), state: keyCount },
  { name: "enrolling 2FA", as: "merchant", path: () => "/backoffice/security/totp", fields: () => ({}), state: () => findUser(gw.ctx.db, mu.username)!.totpSecretEnc },
  {
    name: "merchant settings: callback URL, IP allowlist, payout controls",
    as: "operator",
    path: () => `/backoffice/merchants/${gw.merchant.uid}/settings`,
    fields: () => ({ name: "Shop", defaultNotifyUrl: `https://shop.example/op-${++n}`, ipAllowlist: "", payoutsEnabled: "1", payoutFeeFixed: "0", payoutFeeRate: "0", payoutLimitPerTx: String(100 + n), payoutLimitDaily: "" }),
    state: () => [merchant().defaultCallbackUrl, getPayoutControls(gw.ctx.db, gw.merchant.id).payoutLimitPerTx],
  },
  { name: "key rotation (operator)", as: "operator", path: () => `/backoffice/merchants/${gw.merchant.uid}/rotate`, fields: () => ({}), state: keyCount },
  { name: "disabling a merchant", as: "operator", path: () => `/backoffice/merchants/${gw.merchant.uid}/status`, fields: () => ({ status: merchant().status === "active" ? "disabled" : "active" }), state: () => merchant().status },
];

test.each(rows)("$name asks for the password every time, even just after sign-in", async (row) => {
  const bo = row.as === "operator" ? opBo : muBo;
  const who = row.as === "operator" ? op : mu;
  const before = row.state();
  const ask = await bo.post(row.path(), row.fields());
  expect(ask.status).toBe(200);
  expect(await ask.text()).toContain("Confirm it is you");
  expect(row.state()).toEqual(before);
  const wrong = await bo.post(row.path(), { ...row.fields(), _reauth: "not-the-password" });
  expect(wrong.status).toBe(401);
  expect(row.state()).toEqual(before);
  const ok = await bo.post(row.path(), { ...row.fields(), _reauth: who.password });
  expect(ok.status).toBeLessThan(400);
  expect(row.state()).not.toEqual(before);
});

test.each([
  ["disabling a user", "/backoffice/users/status", (u: string) => ({ username: u, status: "disabled" }), (u: string) => findUser(gw.ctx.db, u)!.status],
  ["resetting a password", "/backoffice/users/reset-password", (u: string) => ({ username: u }), (u: string) => findUser(gw.ctx.db, u)!.passwordHash],
  ["removing 2FA", "/backoffice/users/reset-2fa", (u: string) => ({ username: u }), (u: string) => findUser(gw.ctx.db, u)!.totpEnabledAt],
  ["creating a user", "/backoffice/users", (u: string) => ({ username: `${u}-new`, role: "operator" }), (u: string) => findUser(gw.ctx.db, `${u}-new`)?.id ?? null],
] as const)("%s asks for the password every time", async (_name, path, fields, state) => {
  const u = victim(`victim-${++n}`);
  enableTotp({ db: gw.ctx.db, cipher: gw.ctx.cipher, now: () => clock.now() }, findUser(gw.ctx.db, u)!.id, newTotpSecret(), [], 0);
  const before = state(u);
  expect(await (await opBo.post(path, fields(u))).text()).toContain("Confirm it is you");
  expect(state(u)).toEqual(before);
  expect((await opBo.post(path, { ...fields(u), _reauth: "not-the-password" })).status).toBe(401);
  expect(state(u)).toEqual(before);
  expect((await opBo.post(path, { ...fields(u), _reauth: op.password })).status).toBe(200);
  expect(state(u)).not.toEqual(before);
});

test("disabling a merchant signs its users out, and they cannot sign in until it is enabled", async () => {
  const m = gw.newMerchant("to-disable");
  const who = addUser(gw, "disabled-shop-user", "merchant", m.uid);
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
