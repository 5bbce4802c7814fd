// The hosted invoice page in Chromium (DESIGN 18), phone first, both languages, axe-clean: a CNY
// invoice whose payer picks a network, switches it, and pays on sandbox TRON; an expired invoice.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { analyzeAxe } from "../testing/axe";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, screenshotDir } from "../testing/browser";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { TestClock } from "../lib/clock";

const BROWSER_RETRY = { retry: 2 };
let gw: TestGateway;
let shortGw: TestGateway;
const shortClock = new TestClock(Date.now());
let browser: Browser;

beforeAll(async () => {
  const config = { rates: { fixed: { CNY: "7.10" } }, chains: { TRON: { block_time: "300ms", confirmations: 3 } } };
  gw = await startTestGateway({ config });
  shortGw = await startTestGateway({ clock: shortClock, config });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await gw.stop();
  await shortGw.stop();
});

const phone = (locale = "en-US") => browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, deviceScaleFactor: 2, locale });

async function serious(page: Page): Promise<string[]> {
  const r = await analyzeAxe(page);
  return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

test("a CNY invoice: the payer picks TRON USDT, switches to Solana USDC, then Solana USDT, and back, and pays on sandbox TRON", async () => {
  const inv = await gw.client.createInvoice({ merchantOrderNo: "B-1", priceAmount: "71", priceCurrency: "CNY", description: "Blue mug" });
  const ctx = await phone();
  const page = await ctx.newPage();
  await page.goto(inv.invoiceUrl);
  expect(await page.getByTestId("price").innerText()).toBe("71.00 CNY");
  expect(await page.getByTestId("description").innerText()).toBe("Blue mug");
  const names = await page.getByTestId("networks").getByRole("button").allInnerTexts();
  expect(names.map((n) => n.trim())).toEqual(["TRON USDT", "BNB Smart Chain USDT", "BNB Smart Chain USDC", "Solana USDC", "Solana USDT"]);
  expect(await serious(page)).toEqual([]);
  await page.screenshot({ path: join(screenshotDir(), "invoice-1-choose.png"), fullPage: true });

  await page.getByRole("button", { name: "TRON USDT" }).click();
  await page.waitForURL(/\/checkout\//);
  expect(await page.getByTestId("amount").innerText()).toContain("10.00");
  expect(await page.getByTestId("invoice-price").innerText()).toBe("For an invoice of 71.00 CNY");
  const first = (await gw.client.getInvoice(inv.invoiceNo)).payment!;
  expect([first.chainCode, first.amount, first.rate]).toEqual(["TRON", "10.000000", "7.10"]);

  // Change network: back to the buttons, the current one marked; Solana instead.
  await page.getByRole("link", { name: "Change network" }).click();
  await page.waitForURL(/\/invoice\/.*change=1/);
  expect(await serious(page)).toEqual([]);
  await page.getByRole("button", { name: "Solana USDC" }).click();
  await page.waitForURL(/\/checkout\//);
  expect(await page.getByTestId("network").innerText()).toContain("Solana");
  expect((await gw.client.getPayinOrder(first.orderNo)).status).toBe("cancelled");

  // Solana USDT: a pay-in of USDT on SOL, its QR pinning the USDT mint.
  await page.getByRole("link", { name: "Change network" }).click();
  await page.getByRole("button", { name: "Solana USDT" }).click();
  await page.waitForURL(/\/checkout\//);
  expect(await page.getByTestId("network").innerText()).toContain("Solana");
  const solUsdt = (await gw.client.getInvoice(inv.invoiceNo)).payment!;
  expect([solUsdt.chainCode, solUsdt.tokenSymbol, solUsdt.amount]).toEqual(["SOL", "USDT", "10.000000"]);
  expect((await gw.client.getPayinOrder(solUsdt.orderNo)).paymentUri).toContain("spl-token=Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB");

  await page.getByRole("link", { name: "Change network" }).click();
  await page.getByRole("button", { name: "TRON USDT" }).click();
  await page.waitForURL(/\/checkout\//);
  await page.getByRole("button", { name: "Simulate payment" }).click();
  await page.getByTestId("state-completed").waitFor({ state: "visible", timeout: 15_000 });
  // Paid: no way back to the network choice.
  expect(await page.getByRole("link", { name: "Change network" }).isVisible()).toBe(false);
  await page.screenshot({ path: join(screenshotDir(), "invoice-2-paid.png"), fullPage: true });
  const paid = await gw.client.getInvoice(inv.invoiceNo);
  expect(paid).toMatchObject({ status: "paid", payment: { chainCode: "TRON", tokenSymbol: "USDT", status: "completed", paidAmount: "10.000000" } });
  // The invoice link now leads to the paid checkout.
  await page.goto(inv.invoiceUrl);
  await page.getByTestId("state-completed").waitFor({ state: "visible" });
  await ctx.close();
}, BROWSER_RETRY);

test("in Chinese: the same buttons (brand names), translated text, no axe violation", async () => {
  const inv = await gw.client.createInvoice({ merchantOrderNo: "B-zh", priceAmount: "7.10", priceCurrency: "CNY", payments: ["TRON:USDT", "BSC:USDC"] });
  const ctx = await phone("zh-CN");
  const page = await ctx.newPage();
  await page.goto(inv.invoiceUrl);
  expect(await page.locator("html").getAttribute("lang")).toBe("zh-CN");
  expect(await page.getByRole("heading", { name: "选择付款方式" }).isVisible()).toBe(true);
  expect(await page.getByRole("button", { name: "BNB Smart Chain USDC" }).isVisible()).toBe(true);
  expect(await serious(page)).toEqual([]);
  await page.screenshot({ path: join(screenshotDir(), "invoice-3-zh.png"), fullPage: true });
  await ctx.close();
}, BROWSER_RETRY);

test("an expired invoice says so and offers no network; an unknown link is a friendly 404", async () => {
  const inv = await shortGw.client.createInvoice({ merchantOrderNo: "B-exp", priceAmount: "5", priceCurrency: "USD", expireMinutes: 5 });
  await shortClock.advance(5 * 60_000 + 1500); // the invoice expiry job (every second) runs
  const ctx = await phone();
  const page = await ctx.newPage();
  await page.goto(inv.invoiceUrl);
  expect(await page.getByRole("heading", { name: "This invoice has expired" }).isVisible()).toBe(true);
  expect(await page.getByRole("button").count()).toBe(0);
  expect(await serious(page)).toEqual([]);
  expect((await shortGw.client.getInvoice(inv.invoiceNo)).status).toBe("expired");
  const res = await page.goto(shortGw.url + "/invoice/no-such-invoice");
  expect(res!.status()).toBe(404);
  await ctx.close();
}, BROWSER_RETRY);
