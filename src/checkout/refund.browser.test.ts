// The payer's refund page in Chromium (DESIGN 20), phone first, both languages, axe-clean: a refund
// made without toAddress; the payer mistypes, tries the merchant's own address, then gives theirs
// in "Your address" and "Repeat your address" and presses "Send refund"; it is sent on sandbox TRON.
// A refund whose payout fails says so in the payer's language, without the internal reason or a form.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { analyzeAxe } from "../testing/axe";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, screenshotDir } from "../testing/browser";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { randomAddress } from "../wallet/hd";
import type { SandboxChain } from "../chains/sandbox/chain";
import { fromBaseUnits, toBaseUnits } from "../lib/money";
import { eq } from "drizzle-orm";
import { refunds } from "../db/schema";

let gw: TestGateway;
let browser: Browser;

beforeAll(async () => {
  gw = await startTestGateway({ config: { chains: { TRON: { block_time: "300ms", confirmations: 2 } } } });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await gw.stop();
});

const phone = (locale = "en-US") => browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, deviceScaleFactor: 2, locale });

async function serious(page: Page): Promise<string[]> {
  const r = await analyzeAxe(page);
  return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** The refund's state text stays inside the card on a phone (a wallet address is one long word). */
async function fits(page: Page, testId: string): Promise<boolean> {
  return page.getByTestId(testId).evaluate((el) => {
    const card = el.closest("[data-testid=refund]")!.getBoundingClientRect();
    return el.scrollWidth <= el.clientWidth && Array.from(el.querySelectorAll("h2, p")).every((x) => x.getBoundingClientRect().right <= card.right);
  });
}

async function paidOrder(merchantOrderNo: string) {
  const sb = sandboxClient(gw.url);
  const o = await gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo, amount: "15", notifyUrl: "https://shop.example/pi" });
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "15" });
  for (let i = 0; i < 100 && (await gw.client.getPayinOrder(o.orderNo)).status !== "completed"; i++) await Bun.sleep(100);
  return o;
}

test("a link refund: the payer gives the address on the refund page and the refund is sent", async () => {
  const o = await paidOrder("refund-link-1");
  const r = await gw.client.createRefund(o.orderNo, { refundNo: "link-1", amount: "6.5" });
  expect(r.status).toBe("awaiting_address");
  const ctx = await phone();
  const page = await ctx.newPage();
  await page.goto(r.refundUrl!);
  expect(await page.getByTestId("refund-amount").innerText()).toBe("6.500000 USDT");
  expect(await serious(page)).toEqual([]);
  await page.screenshot({ path: join(screenshotDir(), "refund-1-form.png"), fullPage: true });

  const to = randomAddress("TRON");
  // Two different addresses.
  await page.getByLabel("Your address", { exact: true }).fill(to);
  await page.getByLabel("Repeat your address").fill(to.slice(0, -1) + (to.endsWith("A") ? "B" : "A"));
  await page.getByRole("button", { name: "Send refund" }).click();
  await expect(page.getByTestId("problem")).toBeDefined();
  expect(await page.getByTestId("problem").innerText()).toContain("The two addresses differ");
  expect(await serious(page)).toEqual([]);
  // The merchant's own receiving address.
  await page.getByLabel("Your address", { exact: true }).fill(o.address);
  await page.getByLabel("Repeat your address").fill(o.address);
  await page.getByRole("button", { name: "Send refund" }).click();
  expect(await page.getByTestId("problem").innerText()).toContain("belongs to");
  // Not an address on this chain.
  const bsc = randomAddress("BSC");
  await page.getByLabel("Your address", { exact: true }).fill(bsc);
  await page.getByLabel("Repeat your address").fill(bsc);
  await page.getByRole("button", { name: "Send refund" }).click();
  expect(await page.getByTestId("problem").innerText()).toContain("not a valid address");
  expect((await gw.client.listRefunds(o.orderNo)).refunds[0]!.status).toBe("awaiting_address");

  await page.getByLabel("Your address", { exact: true }).fill(to);
  await page.getByLabel("Repeat your address").fill(to);
  await page.getByRole("button", { name: "Send refund" }).click();
  await page.getByTestId("refund-sending").or(page.getByTestId("refund-confirmed")).waitFor();
  expect(await serious(page)).toEqual([]);
  expect(await fits(page, (await page.getByTestId("refund-sending").count()) ? "refund-sending" : "refund-confirmed")).toBe(true);
  await page.screenshot({ path: join(screenshotDir(), "refund-2-sending.png"), fullPage: true });

  let done = (await gw.client.listRefunds(o.orderNo)).refunds[0]!;
  for (let i = 0; i < 100 && done.status !== "confirmed"; i++) {
    await Bun.sleep(100);
    done = (await gw.client.listRefunds(o.orderNo)).refunds[0]!;
  }
  expect(done).toMatchObject({ status: "confirmed", toAddress: to });
  expect(await (gw.ctx.chains.get("TRON") as SandboxChain).tokenBalance(to, "USDT")).toBe(toBaseUnits("6.5", 6));
  await page.reload();
  expect(await page.getByTestId("refund-confirmed").innerText()).toContain("Refund sent");
  // Posting again sends nothing more.
  const again = await page.request.post(r.refundUrl!, { form: { address: to, repeat: to }, maxRedirects: 0 });
  expect(again.status()).toBe(303);
  expect(await (gw.ctx.chains.get("TRON") as SandboxChain).outgoingCount(o.address)).toBe(1);
  await ctx.close();
}, 60_000);

test("in Chinese: the same form with the labels in Chinese, axe-clean", async () => {
  const o = await paidOrder("refund-link-zh");
  const r = await gw.client.createRefund(o.orderNo, { refundNo: "link-zh", amount: "1" });
  const ctx = await phone("zh-CN");
  const page = await ctx.newPage();
  await page.goto(r.refundUrl!);
  expect(await page.getAttribute("html", "lang")).toBe("zh-CN");
  await page.getByLabel("您的地址", { exact: true }).waitFor();
  await page.getByLabel("再次输入您的地址").waitFor();
  await page.getByRole("button", { name: "发送退款" }).waitFor();
  expect(await serious(page)).toEqual([]);
  await page.screenshot({ path: join(screenshotDir(), "refund-3-zh.png"), fullPage: true });
  // The language switch keeps the page.
  await page.getByTestId("lang-switch").click();
  await page.getByRole("button", { name: "Send refund" }).waitFor();
  await ctx.close();
}, 60_000);

test("a failed refund: the page says nothing was sent and the shop was told, in English and Chinese, without the reason or a form", async () => {
  const o = await paidOrder("refund-link-failed");
  const r = await gw.client.createRefund(o.orderNo, { refundNo: "link-failed", amount: "4" });
  expect(r.status).toBe("awaiting_address");
  // The money left the receiving address on chain (its ledger still holds it): the node refuses the refund's broadcast.
  // All of it: the address may have served the earlier orders too.
  const held = await (gw.ctx.chains.get("TRON") as SandboxChain).tokenBalance(o.address, "USDT");
  await sandboxClient(gw.url).transfer({ chainCode: "TRON", tokenSymbol: "USDT", fromAddress: o.address, toAddress: randomAddress("TRON"), amount: fromBaseUnits(held, 6) });
  const ctx = await phone();
  const page = await ctx.newPage();
  await page.goto(r.refundUrl!);
  const to = randomAddress("TRON");
  await page.getByLabel("Your address", { exact: true }).fill(to);
  await page.getByLabel("Repeat your address").fill(to);
  await page.getByRole("button", { name: "Send refund" }).click();
  let done = (await gw.client.listRefunds(o.orderNo)).refunds[0]!;
  for (let i = 0; i < 100 && done.status !== "failed"; i++) {
    await Bun.sleep(100);
    done = (await gw.client.listRefunds(o.orderNo)).refunds[0]!;
  }
  expect(done).toMatchObject({ refundNo: "link-failed", status: "failed", toAddress: to, txHash: null });
  const lastError = gw.ctx.db.select().from(refunds).where(eq(refunds.refundNo, "link-failed")).get()!.lastError;
  expect(lastError).toBe("insufficient token balance");

  await page.goto(r.refundUrl!);
  expect(await page.getAttribute("[data-testid=refund]", "data-status")).toBe("failed");
  const failed = await page.getByTestId("refund-failed").innerText();
  expect(failed).toContain("The refund could not be sent");
  expect(failed).toContain(`Nothing was sent to ${to}.`);
  expect(failed).toContain("has been told and can send the refund again");
  expect(await page.getByTestId("order-no").innerText()).toBe(o.orderNo);
  // No form, and never the internal reason.
  expect(await page.getByTestId("refund-form").count()).toBe(0);
  expect(await page.getByRole("button", { name: "Send refund" }).count()).toBe(0);
  expect(await page.content()).not.toContain(lastError!);
  expect(await serious(page)).toEqual([]);
  expect(await fits(page, "refund-failed")).toBe(true);
  await page.screenshot({ path: join(screenshotDir(), "refund-4-failed.png"), fullPage: true });
  // Posting an address again sends nothing.
  const again = await page.request.post(r.refundUrl!, { form: { address: to, repeat: to }, maxRedirects: 0 });
  expect(again.status()).toBe(303);
  expect((await gw.client.listRefunds(o.orderNo)).refunds.map((x) => x.status)).toEqual(["failed"]);
  await ctx.close();

  const zh = await phone("zh-CN");
  const zhPage = await zh.newPage();
  await zhPage.goto(r.refundUrl!);
  expect(await zhPage.getAttribute("html", "lang")).toBe("zh-CN");
  const zhFailed = await zhPage.getByTestId("refund-failed").innerText();
  expect(zhFailed).toContain("退款未能发送");
  expect(zhFailed).toContain(`没有任何款项发送到 ${to}。`);
  expect(zhFailed).toContain("已收到通知，可以重新发送这笔退款");
  expect(await zhPage.getByTestId("refund-form").count()).toBe(0);
  expect(await zhPage.content()).not.toContain(lastError!);
  expect(await serious(zhPage)).toEqual([]);
  expect(await fits(zhPage, "refund-failed")).toBe(true);
  await zhPage.screenshot({ path: join(screenshotDir(), "refund-5-failed-zh.png"), fullPage: true });
  await zh.close();
}, 60_000);
