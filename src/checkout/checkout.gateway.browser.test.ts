// End to end on a real gateway: a merchant creates an order through the API,
// the payer opens cashierUrl in Chromium, simulates the payment on the sandbox
// chain and watches it complete without a reload.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { launchBrowser, screenshotDir } from "../testing/browser";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { TestClock } from "../lib/clock";

// playwright-core under Bun now and then loses a protocol object ("Cannot find parent object
// request@…"); a retry of the whole test is the workaround until that is fixed upstream.
const BROWSER_RETRY = { retry: 2 };

let gw: TestGateway;
/** Orders on this one expire after 2 s of its clock, which the expired-state test moves (its
 * jobs, the expiry job among them, run as the clock moves); the pay-through test gets a real-time
 * gateway of its own with a normal expiry. */
let shortGw: TestGateway;
const shortClock = new TestClock(Date.now());
let browser: Browser;

beforeAll(async () => {
  gw = await startTestGateway({ config: { chains: { TRON: { block_time: "300ms", confirmations: 3 } } } });
  shortGw = await startTestGateway({ clock: shortClock, config: { chains: { TRON: { block_time: "300ms", confirmations: 3 } }, payin: { expire_after: "2s" } } });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await gw.stop();
  await shortGw.stop();
});

const phone = () => browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, deviceScaleFactor: 2, locale: "en-US" });

test("cashierUrl of a new order: shown, simulated, completed without a reload", async () => {
  const order = await gw.client.request<Record<string, string>>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "E2E-1", amount: "25.5", notifyUrl: "https://shop.example/cb" },
  });
  const ctx = await phone();
  const page = await ctx.newPage();
  const hosts = new Set<string>();
  let navigations = 0;
  page.on("request", (r) => hosts.add(new URL(r.url()).origin));
  page.on("framenavigated", (f) => f === page.mainFrame() && navigations++);
  await page.goto(order.cashierUrl);
  expect(await page.getByTestId("amount").innerText()).toBe("25.50 USDT");
  expect(await page.getByTestId("network").innerText()).toContain("USDT on TRON (TRC20)");
  expect(await page.getByTestId("address").innerText()).toBe(order.address);
  expect(await page.getByRole("img", { name: "QR code of the payment request" }).isVisible()).toBe(true);
  await page.screenshot({ path: join(screenshotDir(), "gateway-1-waiting.png"), fullPage: true });
  await page.getByRole("button", { name: "Simulate payment" }).click();
  await page.getByTestId("state-completed").waitFor({ state: "visible", timeout: 15_000 });
  await page.screenshot({ path: join(screenshotDir(), "gateway-2-completed.png"), fullPage: true });
  expect(navigations).toBe(1);
  expect([...hosts].filter((h) => h !== "null" && !h.startsWith("data:"))).toEqual([new URL(gw.url).origin]);
  const q = await gw.client.request<Record<string, string>>("GET", `/openapi/payin/orders/${order.orderNo}`);
  expect(q.status).toBe("completed");
  await ctx.close();
}, BROWSER_RETRY);

test("an expired order shows the expired state; an unknown link a friendly not-found page", async () => {
  const gw = shortGw;
  const order = await gw.client.request<Record<string, string>>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "E2E-2", amount: "1", notifyUrl: "https://shop.example/cb" },
  });
  await shortClock.advance(3200); // past expireAt: the expiry job (every second) runs
  const ctx = await phone();
  const page = await ctx.newPage();
  await page.goto(order.cashierUrl);
  await page.getByTestId("state-expired").waitFor({ state: "visible", timeout: 5000 });
  const res = await page.goto(gw.url + "/checkout/no-such-order-link");
  expect(res!.status()).toBe(404);
  const text = await page.locator("body").innerText();
  expect(text).not.toMatch(/at .*\.ts|Error:/);
  await page.screenshot({ path: join(screenshotDir(), "gateway-3-not-found.png"), fullPage: true });
  await ctx.close();
}, BROWSER_RETRY);
