#!/usr/bin/env bun
// Builds the upgrade fixture (DESIGN 16): a small database made by THIS release, with rows in
// every state, that later releases must keep upgrading and serving (src/db/upgrade.e2e.test.ts).
//
//   bun scripts/make-upgrade-fixture.ts [NAME]     (default NAME: baseline-0000)
//
// Writes src/db/fixtures/NAME.db (VACUUMed, no WAL), NAME.json (what the test checks: order
// numbers per status, users, the merchant's key, row counts) and shares fixtures/master.key,
// a TEST-ONLY master key (its wallet seed is the fixed TEST-ONLY mnemonic below). The
// committed baseline-0000 was made at the commit that shipped migrations/0000_init.sql;
// a release that changes the schema may run this again under a new NAME to add its own
// fixture (keep the old ones: each must still upgrade).
//
// Everything is driven through the real services: the merchant API over HTTP (signed), the
// sandbox chain endpoints, the callback worker against a local receiver, the operator
// functions the CLI calls (actor cli, audited), the back-office sign-in form. Only a payout's
// `failed` status is set through the payout funnel directly (applyPayoutEvent): the sandbox
// chain's broadcast faults are transient, so no driven path ends there quickly.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { TestClock } from "../src/lib/clock";
import { startTestGateway } from "../src/testing/harness";
import { sandboxClient } from "../src/testing/sandbox";
import { startReceiver } from "../src/testing/receiver";
import { eventually } from "../src/testing/wait";
import { backofficeSignIn, postLogin } from "../src/testing/backoffice-client";
import { CLI_ACTOR } from "../src/audit/log";
import { createMerchant, rotateKey, setMerchantStatus } from "../src/merchants/service";
import { updateMerchantSettings } from "../src/merchants/settings";
import { cancelOrder, denySender, freezeOrder } from "../src/payin/operator";
import { createUser, setUserStatus } from "../src/backoffice/users";
import { enableTotp, newRecoveryCodes, newTotpSecret } from "../src/backoffice/totp";
import { adjustFeeBalance, setPayoutControls } from "../src/payout/controls";
import { applyPayoutEvent, payoutById } from "../src/payout/service";
import { writeTx } from "../src/db/client";
import { confirmBatch, discardBatch, runBatch, uploadBatch } from "../src/treasury/batch";
import { confirmCollection, previewCollection, runCollection, setCollectionSetting } from "../src/treasury/collection";
import { randomAddress } from "../src/wallet/hd";
import { PAYIN_STATUSES } from "../src/payin/state";
import { PAYOUT_STATUSES } from "../src/payout/state";
import { releaseHeldCallbacks } from "../src/callbacks/store";

type Obj = Record<string, any>;

const NAME = process.argv[2] ?? "baseline-0000";
const OUT = join(import.meta.dir, "..", "src", "db", "fixtures");
/** TEST-ONLY secrets: published in the repository, never for real money. */
const FIXTURE_MASTER_KEY = readFileSync(join(OUT, "master.key"), "utf8").trim();
const FIXTURE_MNEMONIC = "test test test test test test test test test test test junk";
const T0 = Date.parse("2026-11-20T08:00:00.000Z");

const clock = new TestClock(T0);
// Callback targets: /ok answers 200, /fail 500 (every attempt).
const rx = startReceiver((req) => ({ status: req.path.startsWith("/fail") ? 500 : 200 }));
const gw = await startTestGateway({
  clock,
  env: { STABLEGATE_MASTER_KEY: FIXTURE_MASTER_KEY, STABLEGATE_WALLET_MNEMONIC: FIXTURE_MNEMONIC },
  config: {
    payin: { expire_after: "30m", late_window: "24h" },
    chains: { TRON: { confirmations: 3 }, BSC: { confirmations: 3 } },
    callbacks: { retry_delays: ["1s", "2s"] },
  },
});
const { ctx } = gw;
const sb = sandboxClient(gw.url);
const ok = rx.url + "/ok";
const fail = rx.url + "/fail";
const deps = { db: ctx.db, cipher: ctx.cipher, now: () => clock.now() };
const log = (...a: unknown[]) => console.error("fixture:", ...a);

// Merchants: the harness's "Test Shop" (no audit entry, as the demo merchant), one made as the
// CLI does (audited) whose key is then rotated, and one disabled.
const shop = await createMerchant(deps, { name: "Fixture Shop" }, CLI_ACTOR);
const rotated = await rotateKey(deps, shop.merchant.uid, 24 * 3600_000, CLI_ACTOR);
const disabled = await createMerchant(deps, { name: "Closed Shop" }, CLI_ACTOR);
await setMerchantStatus(deps, disabled.merchant.uid, "disabled", CLI_ACTOR);
const m = { uid: shop.merchant.uid, id: shop.merchant.id, apiKey: rotated.apiKey };
const { StablegateClient } = await import("../src/sdk/client");
const client = new StablegateClient({ baseUrl: gw.url, merchantUid: m.uid, apiKey: m.apiKey, now: () => clock.now() });
// The first key still signs during its grace: one request with it (a nonce row under the old key).
await new StablegateClient({ baseUrl: gw.url, merchantUid: m.uid, apiKey: shop.apiKey, now: () => clock.now() })
  .request("GET", "/openapi/payin/orders/PI0")
  .catch(() => undefined);

let seq = 0;
const payin = (amount: string, notifyUrl = ok, chainCode = "TRON") =>
  client.request<Obj>("POST", "/openapi/payin/orders", { body: { chainCode, tokenSymbol: "USDT", merchantOrderNo: `FX-PI-${++seq}`, amount, notifyUrl } });
const pay = (o: Obj, amount = o.amount as string) => sb.transfer({ chainCode: o.chainCode, tokenSymbol: o.tokenSymbol, toAddress: o.address, amount });
const payins: Record<string, string> = {};

// expired and risk_settled first: they need the clock moved past expiry.
const toExpire = await payin("3.10");
const late = await payin("3.20");
await clock.advance(31 * 60_000);
await eventually(async () => (await client.request<Obj>("GET", `/openapi/payin/orders/${late.orderNo}`)).status === "expired", 5000, "expiry");
payins.expired = toExpire.orderNo;
await pay(late);
await sb.mine("TRON", 3);
payins.risk_settled = late.orderNo;

payins.waiting_payment = (await payin("1.10")).orderNo;
const completed = await payin("1.40");
await pay(completed);
await sb.mine("TRON", 3);
payins.completed = completed.orderNo;
const completedBsc = await payin("2.50", ok, "BSC");
await pay(completedBsc);
await sb.mine("BSC", 3);
payins.frozen_abnormal = (await freezeOrder(ctx, (await payin("1.50")).orderNo, "fixture: suspicious payer", CLI_ACTOR)).orderNo;
payins.cancelled = (await cancelOrder(ctx, (await payin("1.60")).orderNo, CLI_ACTOR)).orderNo;
// Money that matches nothing: a payment to an address with no open order (an unmatched deposit),
// and one of another amount to an address with an open order (which freezes it: wrong_amount).
await sb.transfer({ chainCode: "BSC", tokenSymbol: "USDT", toAddress: completedBsc.address, amount: "7.77" });
await sb.mine("BSC", 3);
await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: completed.address, amount: "7.77" });
await sb.mine("TRON", 3);
// A pay-in whose callbacks all fail (3 attempts), for a `failed` callback.
const failing = await payin("1.70", fail);
payins.callbacks_failed = failing.orderNo;

// Deny list: one entry kept, one removed (both audited).
const denied = randomAddress("TRON");
await denySender(ctx, "TRON", denied, "fixture: stolen funds", CLI_ACTOR);

// Exclusive bindings: one with a notifyUrl and a deposit; one without (the merchant has no
// default URL yet) whose deposit callback is held.
const bindingOk = await client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: "user-1", label: "Alice", notifyUrl: ok } });
const bindingHeld = await client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: "user-2" } });
await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: bindingOk.address, amount: "500" });
await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: bindingHeld.address, amount: "20" });
await sb.mine("TRON", 3);

// Payouts from the funded binding address; the merchant pays a fee from its fee balance.
await setPayoutControls(ctx.db, m.id, { payoutFeeFixed: "0.5" }, clock.now());
await adjustFeeBalance(ctx.db, m.id, "25", { ref: "fixture-topup", now: clock.now() });
const payout = (amount: string, merchantOrderNo: string, fromAddress = bindingOk.address as string) =>
  client.request<Obj>("POST", "/openapi/payout/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", fromAddress, toAddress: randomAddress("TRON"), amount, merchantOrderNo, notifyUrl: ok },
  });
const payouts: Record<string, string> = {};
const confirmed = await payout("10.5", "FX-PO-1");
await sb.mine("TRON", 3);
payouts.confirmed = confirmed.orderNo;
await sb.faults("TRON", 1);
const toFail = await payout("13", "FX-PO-4");
await writeTx(ctx.db, async (tx) => await applyPayoutEvent(tx, await payoutById(tx, payoutIdOf(toFail.orderNo)), { type: "fail", stage: "broadcast" }, { lastError: "fixture: node rejected the transaction" }, clock.now()));
payouts.failed = toFail.orderNo;

function payoutIdOf(orderNo: string): number {
  return (ctx.db.$client.query("SELECT id FROM payout_orders WHERE order_no = ?").get(orderNo) as { id: number }).id;
}

// Batches: one confirmed and run (its rows became payouts), one left in preview, one discarded.
const OPERATOR_UI = { actor: "fixture-ops", role: "operator", ip: "127.0.0.1" };
const csv = (rows: string[]) => new TextEncoder().encode(`chainCode,tokenSymbol,toAddress,amount,merchantOrderNo,fromAddress\n${rows.join("\n")}\n`);
const run = await uploadBatch(ctx, m.id, { name: "run.csv", bytes: csv([`TRON,USDT,${randomAddress("TRON")},2,FX-B-1,${bindingOk.address}`, `TRON,USDT,not-an-address,1,FX-B-2,`]) }, OPERATOR_UI);
await confirmBatch(deps, m.id, run.id, OPERATOR_UI);
await runBatch(ctx, run.id, gw.gateway.runtime.treasury);
await sb.mine("TRON", 3);
await uploadBatch(ctx, m.id, { name: "preview.csv", bytes: csv([`TRON,USDT,${randomAddress("TRON")},3,FX-B-3,`]) }, OPERATOR_UI);
const dropped = await uploadBatch(ctx, m.id, { name: "dropped.csv", bytes: csv([`TRON,USDT,${randomAddress("TRON")},4,FX-B-4,`]) }, OPERATOR_UI);
await discardBatch(deps, m.id, dropped.id, OPERATOR_UI);

// A collection run: the binding addresses swept to one destination.
await setCollectionSetting(ctx, m.id, { chainCode: "TRON", tokenSymbol: "USDT", destination: randomAddress("TRON"), minimum: "5" }, OPERATOR_UI);
const coll = await previewCollection(ctx, m.id, "TRON", "USDT", OPERATOR_UI);
await confirmCollection(deps, m.id, coll.id, OPERATOR_UI);
await runCollection(ctx, coll.id, gw.gateway.runtime.treasury);
await sb.mine("TRON", 3);

// Last, what more blocks would move on: a pay-in confirming (2 of 3), one detected (1 of 3), a
// payout broadcast and not final, and one the node keeps refusing (the fault stays set, so it
// stays submitted with its lastError, also after the upgrade).
// (A source funded after the collection swept the others.)
const source = await client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: "treasury", notifyUrl: ok } });
await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: source.address, amount: "100" });
await sb.mine("TRON", 3);
// (Every sandbox transfer and broadcast is a new block: the payout's block is the pay-in's second
// confirmation; the detected one is on BSC, whose blocks move nothing on TRON.)
const confirming = await payin("1.30");
await pay(confirming);
payouts.broadcasted = (await payout("11", "FX-PO-2", source.address)).orderNo;
payins.confirming = confirming.orderNo;
const detected = await payin("1.20", ok, "BSC");
await pay(detected);
payins.detected = detected.orderNo;
await sb.faults("TRON", 1000);
payouts.submitted = (await payout("12", "FX-PO-3", source.address)).orderNo;
for (const s of PAYIN_STATUSES) if (!payins[s]) throw new Error(`no pay-in in ${s}`);
for (const s of PAYOUT_STATUSES) if (!payouts[s]) throw new Error(`no payout in ${s}`);

// Callbacks: let the worker deliver and retry (/fail gives up after 3 attempts).
// (A script, not a test: it may wait on real deliveries between clock steps.)
for (let i = 0; i < 20 && count("SELECT count(*) AS n FROM callbacks WHERE state IN ('pending','delivering')") > 0; i++) {
  await clock.advance(1000);
  await Bun.sleep(100);
}
await eventually(() => count("SELECT count(*) AS n FROM callbacks WHERE state IN ('pending','delivering')") === 0, 10_000, "deliveries");
// Then the default URL for later callbacks; the held one stays held until released by hand.
await updateMerchantSettings({ db: ctx.db, now: () => clock.now(), allowPrivateTargets: true, releaseHeldCallbacks }, gw.merchant.uid, { defaultNotifyUrl: "https://shop.example/cb" }, CLI_ACTOR);

// Back-office users: an operator (signs in, has sessions), one with 2FA, a merchant user,
// a disabled one, and a failed sign-in.
const users: Record<string, { username: string; password: string; totpSecret?: string }> = {};
for (const [key, input] of [
  ["operator", { username: "fx-operator", role: "operator" }],
  ["operator2fa", { username: "fx-operator-2fa", role: "operator" }],
  ["merchant", { username: "fx-merchant", role: "merchant", merchantUid: m.uid }],
  ["disabled", { username: "fx-disabled", role: "operator" }],
] as const) {
  const { user, password } = await createUser(deps, input, CLI_ACTOR);
  users[key] = { username: user.username, password };
  if (key === "operator2fa") {
    const secret = newTotpSecret();
    await enableTotp(deps, user.id, secret, newRecoveryCodes(), Math.floor(clock.now() / 30_000));
    users[key].totpSecret = secret;
  }
}
await setUserStatus(deps, users.disabled.username, "disabled", CLI_ACTOR);
await backofficeSignIn(gw.url, users.operator);
await backofficeSignIn(gw.url, users.merchant);
await postLogin(gw.url, { username: users.operator.username, password: "not-the-password-1" });

// Pending callbacks last: made while the worker is stopped, never attempted.
await gw.gateway.stop();
const pendingOrder = await createPendingPayin();
payins.callbacks_pending = pendingOrder;

async function createPendingPayin(): Promise<string> {
  // The HTTP server is stopped: the service directly, as the route would.
  const { createPayinOrder } = await import("../src/payin/service");
  const key = ctx.db.$client.query("SELECT id FROM api_keys WHERE merchant_id = ? AND valid_until IS NULL").get(m.id) as { id: string };
  return (await createPayinOrder(ctx, m.id, key.id, { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "FX-PI-PENDING", amount: "1.80", notifyUrl: ok })).orderNo;
}

function count(sql: string): number {
  return (ctx.db.$client.query(sql).get() as { n: number }).n;
}

const TABLES = ctx.db.$client
  .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
  .all()
  .map((r) => r.name);
const counts = Object.fromEntries(TABLES.map((t) => [t, count(`SELECT count(*) AS n FROM "${t}"`)]));
const states = (sql: string) => Object.fromEntries((ctx.db.$client.query(sql).all() as { s: string; n: number }[]).map((r) => [r.s, r.n]));
const manifest = {
  note: "TEST-ONLY fixture made by scripts/make-upgrade-fixture.ts; its master key and wallet mnemonic are public",
  madeAt: new Date().toISOString(),
  migrations: (ctx.db.$client.query("SELECT name FROM schema_migrations ORDER BY name").all() as { name: string }[]).map((r) => r.name),
  merchant: { uid: m.uid, apiKey: m.apiKey, previousApiKey: shop.apiKey },
  disabledMerchantUid: disabled.merchant.uid,
  payins,
  payouts,
  bindings: { withUrl: bindingOk.bindKey, held: bindingHeld.bindKey },
  users,
  counts,
  callbackStates: states("SELECT state AS s, count(*) AS n FROM callbacks GROUP BY state"),
  payinStatuses: states("SELECT status AS s, count(*) AS n FROM payin_orders GROUP BY status"),
  payoutStatuses: states("SELECT status AS s, count(*) AS n FROM payout_orders GROUP BY status"),
};
for (const s of ["pending", "delivered", "failed", "held"]) if (!manifest.callbackStates[s]) throw new Error(`no callback in state ${s}: ${JSON.stringify(manifest.callbackStates)}`);

mkdirSync(OUT, { recursive: true });
const dbOut = join(OUT, `${NAME}.db`);
if (existsSync(dbOut)) rmSync(dbOut);
ctx.db.$client.run("VACUUM INTO ?", [dbOut]);
ctx.db.$client.close();
await rx.stop();
rmSync(gw.dir, { recursive: true, force: true });
writeFileSync(join(OUT, `${NAME}.json`), JSON.stringify(manifest, null, 2) + "\n");
const check = new Database(dbOut, { readonly: true });
const integrity = (check.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check;
check.close();
log(`${dbOut}: ${statSync(dbOut).size} bytes, integrity ${integrity}`);
log(JSON.stringify({ payins: manifest.payinStatuses, payouts: manifest.payoutStatuses, callbacks: manifest.callbackStates }));
process.exit(0);
