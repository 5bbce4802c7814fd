// DESIGN 19 in the back office, in real Chromium at phone size: a merchant user sets the epusdt
// token and the EPay key in Developer settings (re-authenticating each time), sees only masked
// hints and the addresses to enter in the plugin, and a plugin signing with the token is served.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { analyzeAxe } from "../testing/axe";
import { createHash } from "node:crypto";
import type { Browser } from "playwright-core";
import { launchBrowser } from "../testing/browser";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { addUser, confirmIdentity, PHONE, signedIn } from "../testing/backoffice-browser";
import { CLI_ACTOR, listAudit } from "../audit/log";
import { setCompatKeys } from "../merchants/compat-keys";
import { payinOrders } from "../db/schema";
import { tableRow } from "../testing/engine-rows";

let gw: TestGateway;
let browser: Browser;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { rates: { fixed: { CNY: "7.10" } }, chains: { SOL: { enabled: false } } } });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

test("Shop plugins: save the epusdt token and EPay key behind re-authentication; masked afterwards; the endpoint answers", async () => {
  const who = await addUser(gw, "plugin-merchant", "merchant", gw.merchant.uid);
  const { ctx, page } = await signedIn(browser, gw, who, PHONE);
  await page.goto(gw.url + "/backoffice/developer");
  await page.getByRole("heading", { name: "Shop plugins" }).waitFor();
  expect(await page.getByText(`${gw.url}/compat/epusdt/${gw.merchant.uid}/api/v1/order/create-transaction`).count()).toBe(1);
  expect(await page.getByText("not set (epusdt off)").count()).toBe(1);

  const token = "browser-epusdt-token-1";
  await page.getByLabel("epusdt token").fill(token);
  await page.getByRole("button", { name: "Save epusdt token" }).click();
  await confirmIdentity(page, who.password);
  await page.getByText("epusdt token saved.").waitFor();
  expect(await page.getByText("brow…en-1").count()).toBe(1);
  expect(await page.content()).not.toContain(token);

  await page.getByLabel("EPay key").fill("short");
  await page.getByRole("button", { name: "Save EPay key" }).click();
  await confirmIdentity(page, who.password);
  await page.getByText("EPay key must be 8-128 characters").waitFor();
  const r = await analyzeAxe(page);
  expect(r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
  await ctx.close();

  const p = { order_id: "bo-1", amount: "7.10", notify_url: "http://127.0.0.1:9/n" };
  const text = Object.keys(p).sort().map((k) => `${k}=${p[k as keyof typeof p]}`).join("&") + token;
  const res = await fetch(`${gw.url}/compat/epusdt/${gw.merchant.uid}/api/v1/order/create-transaction`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...p, signature: createHash("md5").update(text).digest("hex") }),
  });
  expect(await res.json()).toMatchObject({ status_code: 200, data: { order_id: "bo-1", amount: 7.1, actual_amount: 1 } });
  expect((await listAudit(gw.ctx.db, { actor: who.username })).entries.map((e) => e.action)).toContain("merchant.compat_keys");
}, 120_000);

test("EPay without type (DESIGN 24): the payer picks the network on a phone, the page passes axe, and lands on that network's checkout", async () => {
  const key = "browser-epay-key-1";
  await setCompatKeys({ db: gw.ctx.db, cipher: gw.ctx.cipher, now: () => Date.now() }, gw.merchant.uid, { epay: key }, CLI_ACTOR);
  const p = { pid: gw.merchant.uid.slice(1), out_trade_no: "pick-1", notify_url: "http://127.0.0.1:9/n", return_url: "http://127.0.0.1:9/r", name: "VIP 月卡", money: "71" };
  const text = Object.keys(p).sort().map((k) => `${k}=${p[k as keyof typeof p]}`).join("&") + key;
  const link = `${gw.url}/compat/epay/submit.php?${new URLSearchParams({ ...p, sign: createHash("md5").update(text).digest("hex"), sign_type: "MD5" })}`;
  const ctx = await browser.newContext(PHONE);
  const page = await ctx.newPage();
  await page.goto(link);
  await page.getByRole("heading", { name: /Choose a network/ }).waitFor();
  expect(await page.getByText("VIP 月卡: 71").count()).toBe(1);
  const r = await analyzeAxe(page);
  expect(r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
  const buttons = await page.getByRole("button").allTextContents();
  expect(buttons).toContain("TRON USDT");
  const bsc = buttons.find((b) => b.endsWith(" USDT") && b !== "TRON USDT")!;
  await page.getByRole("button", { name: bsc }).click();
  await page.waitForURL(/\/checkout\//);
  const order = (await tableRow(gw.ctx.db, payinOrders, { merchantOrderNo: "pick-1" }))!;
  expect([order.chain, order.token, order.amount]).toEqual(["BSC", "USDT", "10000000000000000000"]);
  await ctx.close();
}, 120_000);
