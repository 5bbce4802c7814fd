// The merchant's developer settings, balances and collection in real Chromium:
// a test callback that arrives signed, the IP allowlist, a key rotation shown
// once, balances per address, and "Collect now" → "Confirm collection" until
// every leg is confirmed on the sandbox chain.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { analyzeAxe } from "../testing/axe";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../testing/browser";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { startReceiver, type Receiver } from "../testing/receiver";
import { randomAddress } from "../wallet/hd";
import { CLI_ACTOR, listAudit } from "../audit/log";
import { verifyCallback } from "../sdk";
import { ApiError, StablegateClient } from "../sdk/client";
import { createUser } from "./users";
import { confirmIdentity, withSession } from "../testing/backoffice-browser";

type Obj = Record<string, any>;
let gw: TestGateway;
let browser: Browser;
let rx: Receiver;
beforeAll(async () => {
  gw = await startTestGateway({
    config: { chains: { TRON: { block_time: "150ms", confirmations: 2 }, BSC: { enabled: false }, SOL: { enabled: false } } },
  });
  browser = await launchBrowser();
  rx = startReceiver();
});
afterAll(async () => {
  await browser?.close();
  await rx?.stop();
  await gw?.stop();
});

const DESKTOP = { viewport: { width: 1280, height: 800 } };
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, deviceScaleFactor: 2 };
let seq = 0;
const userFor = async (merchantUid: string, role: "merchant" | "operator" = "merchant") => {
  const username = `u${Date.now() % 100000}-${++seq}`;
  const { password } = await createUser({ db: gw.ctx.db, cipher: gw.ctx.cipher, now: () => Date.now() }, { username, role, merchantUid: role === "merchant" ? merchantUid : undefined }, CLI_ACTOR);
  return { username, password };
};

/** Signed in as `who` (a real sign-in over HTTP, its session cookie in the page's context: testing/backoffice-browser.ts `withSession`), on the dashboard. */
async function signIn(page: Page, who: { username: string; password: string }) {
  await withSession(page, gw.url, who);
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
}

/** Reloads the page (as its own refresh would, only sooner) until `text` shows. */
async function reloadUntil(page: Page, text: string, timeoutMs: number) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await page.getByText(text).count()) > 0) return;
    } catch {} // the page's own refresh navigated meanwhile
    if (Date.now() > end) throw new Error(`"${text}" did not appear: ${await page.locator("[role=status]").first().innerText().catch(() => "?")}`);
    await Bun.sleep(250);
    await page.reload().catch(() => {});
  }
}

async function noAxeViolations(page: Page) {
  const r = await analyzeAxe(page);
  expect(r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

test("developer settings: test callback signed and shown, IP allowlist enforced, API key rotated and shown once", async () => {
  const m = await gw.newMerchant("Dev Shop");
  const who = await userFor(m.uid);
  const ctx = await browser.newContext({ ...PHONE, locale: "en-US" });
  const page = await ctx.newPage();
  await signIn(page, who);
  await page.getByRole("link", { name: "Developer" }).click();
  await page.getByLabel("Default callback URL").fill(rx.url + "/dev-hook");
  await page.getByRole("button", { name: "Save callback URL" }).click();
  await confirmIdentity(page, who.password);
  await page.getByText("Default callback URL saved.").waitFor();

  const before = rx.requests.length;
  await page.getByRole("button", { name: "Send test callback" }).click();
  await page.getByText("Test callback queued").waitFor();
  const [req] = (await rx.waitFor((r) => r.length > before, 10_000)).slice(before);
  expect(req!.path).toBe("/dev-hook");
  expect(verifyCallback(req!.raw, req!.headers, m.apiKey)).toBe(true);
  expect(JSON.parse(req!.text)).toMatchObject({ merchantUid: m.uid, businessType: "test" });
  // Its delivery is shown.
  for (let i = 0; i < 20; i++) {
    await page.reload();
    if ((await page.getByTestId("test-callback").first().innerText()).includes("delivered")) break;
    await Bun.sleep(100);
  }
  const row = await page.getByTestId("test-callback").first().innerText();
  expect(row).toContain("delivered");
  expect(row).toContain("200");
  await noAxeViolations(page);

  // The allowlist applies to /openapi at once.
  await page.getByLabel("IP allowlist").fill("203.0.113.0/24");
  await page.getByRole("button", { name: "Save IP allowlist" }).click();
  await confirmIdentity(page, who.password);
  await page.getByText("IP allowlist saved.").waitFor();
  const refused = await m.client.request("GET", "/openapi/payout/orders/PO1").catch((e) => e);
  expect(refused).toBeInstanceOf(ApiError);
  expect((refused as ApiError).code).toBe(20020);
  await page.getByLabel("IP allowlist").fill("127.0.0.1\n2001:db8::/32");
  await page.getByRole("button", { name: "Save IP allowlist" }).click();
  await confirmIdentity(page, who.password);
  await page.getByText("IP allowlist saved.").waitFor();
  expect(await page.getByLabel("IP allowlist").inputValue()).toBe("127.0.0.1/32\n2001:db8::/32");
  expect(((await m.client.request("GET", "/openapi/payout/orders/PO1").catch((e) => e)) as ApiError).code).toBe(54001);

  // An order made before the rotation: its later callbacks stay signed with the key it was made under.
  const preOrder = await m.client.request<Obj>("POST", "/openapi/payin/orders", { body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "PRE-ROTATE", amount: "3.5", notifyUrl: rx.url + "/order" } });

  // Rotation: the new key once, with the password on the same form.
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Rotate API key" }).click();
  const newKey = await page.getByTestId("new-api-key").innerText();
  expect(newKey).toMatch(/^mch_[0-9a-f]{64}$/);
  const fresh = new StablegateClient({ baseUrl: gw.url, merchantUid: m.uid, apiKey: newKey });
  expect(((await fresh.request("GET", "/openapi/payout/orders/PO1").catch((e) => e)) as ApiError).code).toBe(54001);
  await page.goto(gw.url + "/backoffice/developer");
  expect(await page.getByTestId("new-api-key").count()).toBe(0);
  expect(await page.content()).not.toContain(newKey);
  const actions = (await listAudit(gw.ctx.db, { actor: who.username })).entries.map((e) => e.action);
  expect(actions).toContain("key.rotate");

  await sandboxClient(gw.url).transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: preOrder.address, amount: "3.5" });
  const done = (await rx.waitFor((r) => r.some((x) => x.path === "/order" && JSON.parse(x.text).status === "completed"), 15_000)).find((x) => x.path === "/order" && JSON.parse(x.text).status === "completed")!;
  expect(verifyCallback(done.raw, done.headers, m.apiKey)).toBe(true);
  expect(verifyCallback(done.raw, done.headers, newKey)).toBe(false);
  // A new test callback is signed with the new key.
  const n0 = rx.requests.filter((r) => r.path === "/dev-hook").length;
  await page.getByRole("button", { name: "Send test callback" }).click();
  const latest = (await rx.waitFor((r) => r.filter((x) => x.path === "/dev-hook").length > n0, 10_000)).filter((x) => x.path === "/dev-hook").pop()!;
  expect(verifyCallback(latest.raw, latest.headers, newKey)).toBe(true);
  await ctx.close();
}, { timeout: 60_000, retry: 2 });

test("balances per address and a collection run confirmed leg by leg", async () => {
  const m = await gw.newMerchant("Collect Shop");
  const who = await userFor(m.uid);
  const sb = sandboxClient(gw.url);
  const sources: string[] = [];
  for (let i = 0; i < 4; i++) {
    const b = await m.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: `c${i}` } });
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount: i === 3 ? "1" : `${10 + i}` });
    sources.push(b.address);
  }
  const deposits = () => (gw.ctx.db.$client.query("SELECT count(*) AS n FROM ledger_entries l JOIN addresses a ON a.id = l.address_id WHERE a.merchant_id = ?").get(m.id) as { n: number }).n;
  for (let i = 0; i < 100 && deposits() < 4; i++) await Bun.sleep(50);

  const ctx = await browser.newContext({ ...DESKTOP, locale: "en-US" });
  const page = await ctx.newPage();
  await signIn(page, who);
  // The merchant's dashboard shows its balances per chain and token.
  const totals = page.getByRole("region", { name: "Balances per chain and token" });
  expect(await totals.locator("tbody tr").first().innerText()).toMatch(/^TRON\s+USDT\s+34\.00\s+4$/);
  await page.getByRole("link", { name: "Balances", exact: true }).click();
  const table = page.getByRole("region", { name: "Balances per address" });
  for (const a of sources) await table.getByText(a).waitFor();
  await noAxeViolations(page);

  // Exclusive wallets with their stats and recent deposits; another merchant's wallet is a 404.
  await page.getByRole("link", { name: "Wallets" }).click();
  const wallets = page.getByRole("region", { name: "Exclusive wallets" });
  for (const k of ["c0", "c1", "c2", "c3"]) await wallets.getByRole("link", { name: k, exact: true }).waitFor();
  await noAxeViolations(page);
  await wallets.getByRole("link", { name: "c2", exact: true }).click();
  const recent = page.getByRole("region", { name: "Recent deposits" });
  await recent.getByText("12.00").waitFor();
  expect(await recent.locator("tbody tr").count()).toBe(1);
  await noAxeViolations(page);
  const other = await gw.newMerchant("Other");
  const ob = await other.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: "theirs" } });
  expect((await page.goto(`${gw.url}/backoffice/wallets/${ob.bindingId}`))!.status()).toBe(404);

  const cold = randomAddress("TRON");
  await page.getByRole("link", { name: "Collection" }).click();
  await page.getByLabel("Chain and token", { exact: true }).last().selectOption("TRON:USDT");
  await page.getByLabel("Destination address").fill(cold);
  await page.getByLabel("Minimum").fill("5");
  await page.getByRole("button", { name: "Save destination" }).click();
  await confirmIdentity(page, who.password);
  await page.getByText("Destination saved.").waitFor();
  await noAxeViolations(page);
  await page.getByRole("button", { name: "Collect now" }).click();
  expect(await page.getByTestId("leg-count").innerText()).toBe("3");
  expect(await page.getByTestId("collection-total").innerText()).toBe("33.00");
  await noAxeViolations(page);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Confirm collection" }).click();
  await reloadUntil(page, "Finished: 3 confirmed, 0 failed, 0 refused.", 30_000);
  const tron = gw.ctx.chains.get("TRON")!;
  expect(await tron.tokenBalance(cold, "USDT")).toBe(33_000_000n);
  for (const a of sources.slice(0, 3)) expect(await tron.tokenBalance(a, "USDT")).toBe(0n);
  expect(await tron.tokenBalance(sources[3]!, "USDT")).toBe(1_000_000n);
  await page.getByRole("link", { name: "Back to collection" }).click();
  await page.getByRole("region", { name: "Collection runs" }).getByText("done").waitFor();
  expect((await listAudit(gw.ctx.db, { actor: who.username })).entries.map((e) => e.action)).toEqual(expect.arrayContaining(["collection.settings", "collection.confirm"]));

  // The operator sees every merchant's balances and the mismatch list.
  const op = await userFor(m.uid, "operator");
  const opCtx = await browser.newContext({ ...DESKTOP, locale: "en-US" });
  const opPage = await opCtx.newPage();
  await signIn(opPage, op);
  await opPage.goto(gw.url + "/backoffice/balances");
  await opPage.getByRole("region", { name: "Reconciliation mismatches" }).waitFor();
  await opPage.getByRole("region", { name: "Balances per address" }).getByText(sources[3]!).waitFor();
  await noAxeViolations(opPage);
  // Merchant-only pages are a 404 for an operator.
  expect((await opPage.goto(gw.url + "/backoffice/batches"))!.status()).toBe(404);
  await opCtx.close();
  await ctx.close();
}, { timeout: 60_000, retry: 2 });
