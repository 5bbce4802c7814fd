// The guided resolution of a frozen order and "Refund" in Chromium (issue 28), at phone size, as a
// merchant user: from Exceptions to the order, the reason and the choices read as written, the
// password asked for, the order and the refund as promised; axe-clean on each page. And a
// "Refund all" whose payout failed: the order page shows the failed refund with why, offers
// "Refund" again with what is left, and the retry sends it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { analyzeAxe } from "../testing/axe";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../testing/browser";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { randomAddress } from "../wallet/hd";
import { addUser, confirmIdentity, PHONE, signedIn } from "../testing/backoffice-browser";
import type { SandboxChain } from "../chains/sandbox/chain";
import { fromBaseUnits, toBaseUnits } from "../lib/money";

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

async function serious(page: Page): Promise<string[]> {
  const r = await analyzeAxe(page);
  return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

test("a merchant user resolves its overpaid order from Exceptions: refund the difference, confirmed with the password", async () => {
  const sb = sandboxClient(gw.url);
  const o = await gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "BR-1", amount: "10", notifyUrl: "https://shop.example/pi" });
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "11.5" });
  for (let i = 0; i < 100 && (await gw.client.getPayinOrder(o.orderNo)).paidAmount === null; i++) await Bun.sleep(100);
  await sb.mine("TRON", 3);
  const who = await addUser(gw, "br-shop", "merchant", gw.merchant.uid);
  const { ctx, page } = await signedIn(browser, gw, who, PHONE);
  await page.goto(`${gw.url}/backoffice/exceptions`);
  expect(await serious(page)).toEqual([]);
  await page.getByRole("button", { name: `Resolve ${o.orderNo}` }).click();
  await page.getByRole("heading", { name: "Resolve this payment" }).waitFor();
  expect(await page.getByText("On hold because it was paid more than the order amount.").isVisible()).toBe(true);
  expect(await serious(page)).toEqual([]);
  await page.getByLabel("Refund the difference").check();
  const to = randomAddress("TRON");
  await page.getByLabel("Payer's address").first().fill(to);
  await page.getByLabel("Note").fill("paid 1.5 too much");
  await page.getByRole("button", { name: "Resolve" }).click();
  await confirmIdentity(page, who.password);
  await page.getByText("Payment resolved").waitFor();
  expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("completed");
  const [rf] = (await gw.client.listRefunds(o.orderNo)).refunds;
  expect(rf).toMatchObject({ amount: "1.500000", toAddress: to });
  expect(await page.getByRole("region", { name: "Refunds" }).innerText()).toContain("1.500000 USDT");
  expect(await serious(page)).toEqual([]);
  await ctx.close();
}, 120_000);

test('a failed "Refund all" is shown failed with why, and "Refund" is offered again with what is left: the retry sends it once', async () => {
  const sb = sandboxClient(gw.url);
  const tron = gw.ctx.chains.get("TRON") as SandboxChain;
  const o = await gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "BR-2", amount: "10", notifyUrl: "https://shop.example/pi" });
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "9.5" });
  for (let i = 0; i < 100 && (await gw.client.getPayinOrder(o.orderNo)).paidAmount === null; i++) await Bun.sleep(100);
  await sb.mine("TRON", 3);
  expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("frozen_abnormal");
  // The money left the receiving address on chain (its ledger still holds it): the node refuses the refund for good.
  const held = await tron.tokenBalance(o.address, "USDT");
  const away = await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", fromAddress: o.address, toAddress: randomAddress("TRON"), amount: fromBaseUnits(held, 6, 0) });
  const who = await addUser(gw, "br-retry", "merchant", gw.merchant.uid);
  const { ctx, page } = await signedIn(browser, gw, who, PHONE);
  await page.goto(`${gw.url}/backoffice/orders/${o.orderNo}`);
  await page.getByLabel("Refund all").check();
  const payer = randomAddress("TRON");
  await page.getByLabel("Payer's address").fill(payer);
  await page.getByLabel("Note").fill("paid short: the customer wants it back");
  await page.getByRole("button", { name: "Resolve" }).click();
  await confirmIdentity(page, who.password);
  await page.getByText("Payment resolved").waitFor();
  const refunds = async () => (await gw.client.listRefunds(o.orderNo)).refunds;
  for (let i = 0; i < 200 && (await refunds())[0]?.status !== "failed"; i++) await Bun.sleep(100);
  expect(await refunds()).toMatchObject([{ amount: "9.500000", toAddress: payer, status: "failed" }]);
  expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("cancelled");

  await page.reload();
  const table = page.getByRole("region", { name: "Refunds" });
  expect(await table.innerText()).toContain("Not sent: insufficient token balance. Its amount can be refunded again.");
  const form = page.getByRole("form", { name: "Refund" });
  expect(await form.getByLabel("Amount").inputValue()).toBe("9.5");
  expect(await serious(page)).toEqual([]);
  // The money is back on the receiving address: the blocks from the one that took it are dropped
  // (in process: no block is mined between reading the height and the cut).
  await tron.reorg(await tron.height() - away.blockNumber + 1);
  expect(await tron.tokenBalance(o.address, "USDT")).toBe(held);
  await form.getByLabel("Payer's address").fill(payer);
  await form.getByRole("button", { name: "Refund", exact: true }).click();
  await confirmIdentity(page, who.password);
  await page.getByText("Refund created; it is listed below.").waitFor();
  for (let i = 0; i < 200 && (await refunds())[1]?.status !== "confirmed"; i++) await Bun.sleep(100);
  expect((await refunds()).map((r) => [r.amount, r.status])).toEqual([["9.500000", "failed"], ["9.500000", "confirmed"]]);
  expect(await tron.tokenBalance(payer, "USDT")).toBe(toBaseUnits("9.5", 6));
  expect(await tron.tokenBalance(o.address, "USDT")).toBe(held - toBaseUnits("9.5", 6));
  // Nothing is left to refund: the form is gone, both refunds are listed.
  await page.reload();
  expect(await page.getByRole("form", { name: "Refund" }).count()).toBe(0);
  expect(await page.getByRole("region", { name: "Refunds" }).innerText()).toContain("confirmed");
  await ctx.close();
}, 120_000);
