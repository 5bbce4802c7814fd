// The paid checkout page: a link to the transaction on the chain's explorer (appears live
// once the payment is seen) and the merchant's return link (once it is paid).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Elysia } from "elysia";
import type { Browser } from "playwright-core";
import { launchBrowser, screenshotDir } from "../testing/browser";
import { MemoryCheckout, sampleOrder } from "../testing/checkout-memory";
import { checkoutRoutes } from "./routes";

const BROWSER_RETRY = { retry: 2 };
const live = new MemoryCheckout();
live.sandboxChains.clear(); // rpc chains: real transactions, explorer links
const sandbox = new MemoryCheckout();
let servers: Array<{ stop(): unknown }> = [];
let liveBase = "";
let sandboxBase = "";
let browser: Browser;

function serve(store: MemoryCheckout): string {
  const app = new Elysia().use(checkoutRoutes(store.deps({ pollIntervalMs: 150 }))).listen({ hostname: "127.0.0.1", port: 0 });
  servers.push(app);
  return `http://127.0.0.1:${app.server!.port}`;
}

beforeAll(async () => {
  liveBase = serve(live);
  sandboxBase = serve(sandbox);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  for (const s of servers) s.stop();
});

const phone = () => browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, locale: "en-US" });

describe("paid page", () => {
  test("explorer link appears with the transaction, the return link once paid; both point where they should", async () => {
    live.addOrder("tok-live-1", sampleOrder({ redirectUrl: "https://shop.example/orders/10042?paid=1&x=<y>" }));
    const ctx = await phone();
    const page = await ctx.newPage();
    await page.goto(`${liveBase}/checkout/tok-live-1`);
    const explorer = page.getByRole("link", { name: "View transaction on Tronscan" });
    const back = page.getByRole("link", { name: "Return to Acme Coffee Roasters" });
    expect(await explorer.isVisible()).toBe(false);
    expect(await back.isVisible()).toBe(false);

    await live.simulatePayment("tok-live-1");
    live.allow(0); // stay at detected for a look
    await explorer.waitFor({ state: "visible", timeout: 10_000 });
    const tx = live.orders.get("tok-live-1")!.txHash!;
    expect(await explorer.getAttribute("href")).toBe(`https://tronscan.org/#/transaction/${tx}`);
    expect(await explorer.getAttribute("rel")).toContain("noopener");
    expect(await back.isVisible()).toBe(false); // not paid yet

    live.allow(Number.POSITIVE_INFINITY);
    await page.getByTestId("state-completed").waitFor({ state: "visible", timeout: 15_000 });
    await back.waitFor({ state: "visible", timeout: 5_000 });
    expect(await back.getAttribute("href")).toBe("https://shop.example/orders/10042?paid=1&x=<y>");
    expect(await explorer.isVisible()).toBe(true);
    await page.screenshot({ path: join(screenshotDir(), "paid-page.png"), fullPage: true });
    await ctx.close();
  }, BROWSER_RETRY);

  test("a page opened after payment shows both links from the server's HTML; zh texts", async () => {
    live.addOrder(
      "tok-live-2",
      sampleOrder({ chainCode: "BSC", tokenSymbol: "USDC", status: "completed", txHash: "0x" + "cd".repeat(32), paidAmount: "12.345600", completedAt: new Date().toISOString(), redirectUrl: "https://shop.example/back" }),
    );
    const ctx = await browser.newContext({ locale: "zh-CN", javaScriptEnabled: false });
    const page = await ctx.newPage();
    await page.goto(`${liveBase}/checkout/tok-live-2`);
    expect(await page.getByRole("link", { name: "在 BscScan 查看交易" }).getAttribute("href")).toBe(`https://bscscan.com/tx/0x${"cd".repeat(32)}`);
    expect(await page.getByRole("link", { name: "返回 Acme Coffee Roasters" }).getAttribute("href")).toBe("https://shop.example/back");
    await ctx.close();
  }, BROWSER_RETRY);

  test("no redirectUrl: no return link; sandbox: no explorer link (the transaction is on no public chain)", async () => {
    sandbox.addOrder("tok-sb", sampleOrder({ chainCode: "SOL", tokenSymbol: "USDC", status: "completed", txHash: "5".repeat(87), completedAt: new Date().toISOString() }));
    live.addOrder("tok-live-3", sampleOrder({ chainCode: "SOL", tokenSymbol: "USDC", status: "completed", txHash: "5".repeat(87), completedAt: new Date().toISOString() }));
    const ctx = await phone();
    const page = await ctx.newPage();
    await page.goto(`${sandboxBase}/checkout/tok-sb`);
    await page.getByTestId("state-completed").waitFor({ state: "visible" });
    expect(await page.getByRole("link", { name: /View transaction/ }).count()).toBe(0);
    expect(await page.getByRole("link", { name: /Return to/ }).count()).toBe(0);
    await page.goto(`${liveBase}/checkout/tok-live-3`);
    expect(await page.getByRole("link", { name: "View transaction on Solscan" }).getAttribute("href")).toBe(`https://solscan.io/tx/${"5".repeat(87)}`);
    expect(await page.getByRole("link", { name: /Return to/ }).count()).toBe(0);
    await ctx.close();
  }, BROWSER_RETRY);
});
