// "I have paid" on the hosted checkout page (DESIGN 25) in Chromium, on anvil behind a proxy
// that empties every block-range eth_getLogs answer, so the block scan never sees the payment:
// the payer pastes the transaction hash and the order is credited; a hash that paid another
// address credits nothing and the page says why (English and Chinese), in a labelled field
// whose answer is a status message.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { launchBrowser, screenshotDir } from "../testing/browser";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { startBscChain, type BscChainFixture } from "../testing/chain-fixture";
import { emptyRangeLogs } from "../testing/rpc-proxy";
import { toBaseUnits } from "../lib/money";

const BROWSER_RETRY = { retry: 2 };

let fx: BscChainFixture;
let gw: TestGateway;
let browser: Browser;

beforeAll(async () => {
  fx = await startBscChain();
  fx.raw.proxy.setFaults({ answer: emptyRangeLogs });
  gw = await startTestGateway({ jobs: false, config: { sandbox: { allow_mixed: true }, chains: { BSC: fx.gatewayConfig(3) } } });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  await fx?.stop();
});

const tick = () => gw.gateway.runtime.watchers.get("BSC")!.tick();
const phone = (locale = "en-US") => browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, deviceScaleFactor: 2, locale });
let n = 0;
const create = (amount: string) =>
  gw.client.createPayinOrder({ chainCode: "BSC", tokenSymbol: "USDT", merchantOrderNo: `i-paid-${++n}`, amount, notifyUrl: "https://shop.example/cb" });

test("the scan misses the payment; the payer's hash on the page credits it, and a hash to another address says why", async () => {
  const o = await create("21.5");
  await tick();
  const paid = await fx.pay(o.address, toBaseUnits("21.5", 18));
  const elsewhere = await fx.pay(fx.receivers(1, "page-elsewhere")[0]!, toBaseUnits("21.5", 18));
  await fx.advance(3);
  await tick();
  expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("waiting_payment");

  const ctx = await phone();
  const page = await ctx.newPage();
  await page.goto(o.cashierUrl);
  await page.getByText("I have paid").click();
  const field = page.getByRole("textbox", { name: "Transaction hash" });
  await field.fill(elsewhere);
  await page.getByRole("button", { name: "Check my payment" }).click();
  const answer = page.getByRole("status").filter({ hasText: "another address" });
  await answer.waitFor({ state: "visible" });
  expect(await page.getByTestId("tx-hash-answer").getAttribute("data-answer")).toBe("wrong_address");
  expect(await field.getAttribute("aria-invalid")).toBe("true");
  expect(await field.inputValue()).toBe(elsewhere);
  expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("waiting_payment");
  await page.screenshot({ path: join(screenshotDir(), "i-paid-1-wrong-address.png"), fullPage: true });

  await field.fill(paid);
  await page.getByRole("button", { name: "Check my payment" }).click();
  await page.getByTestId("tx-hash-answer").filter({ hasText: "pays this order" }).waitFor({ state: "visible" });
  expect(await page.getByTestId("tx-hash-answer").getAttribute("data-answer")).toBe("credited");
  // The watcher's next tick completes it (final already); the open page follows without a reload.
  await tick();
  await page.getByTestId("state-completed").waitFor({ state: "visible", timeout: 15_000 });
  expect(await page.locator('[data-bind="tx-hash"]').innerText()).toBe(paid);
  await page.screenshot({ path: join(screenshotDir(), "i-paid-2-credited.png"), fullPage: true });
  expect(await gw.client.getPayinOrder(o.orderNo)).toMatchObject({ status: "completed", txHash: paid });
  await ctx.close();
}, BROWSER_RETRY);

test("in Chinese: the button, the label and the answer", async () => {
  const o = await create("22.5");
  const ctx = await phone("zh-CN");
  const page = await ctx.newPage();
  await page.goto(o.cashierUrl);
  await page.getByText("我已付款").click();
  await page.getByRole("textbox", { name: "交易哈希" }).fill("0x" + "12".repeat(32));
  await page.getByRole("button", { name: "核对我的付款" }).click();
  await page.getByTestId("tx-hash-answer").filter({ hasText: "网络上暂时查不到这笔交易" }).waitFor({ state: "visible" });
  await page.getByRole("textbox", { name: "交易哈希" }).fill("nonsense");
  await page.getByRole("button", { name: "核对我的付款" }).click();
  await page.getByTestId("tx-hash-answer").filter({ hasText: "这不是" }).waitFor({ state: "visible" });
  await ctx.close();
}, BROWSER_RETRY);
