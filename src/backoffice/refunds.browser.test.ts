// The guided resolution of a frozen order and "Refund" in Chromium (issue 28), at phone size, as a
// merchant user: from Exceptions to the order, the reason and the choices read as written, the
// password asked for, the order and the refund as promised; axe-clean on each page.
import { afterAll, beforeAll, expect, test } from "bun:test";
import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../testing/browser";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { randomAddress } from "../wallet/hd";
import { addUser, confirmIdentity, PHONE, signedIn } from "../testing/backoffice-browser";

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
  const r = await new AxeBuilder({ page }).analyze();
  return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

test("a merchant user resolves its overpaid order from Exceptions: refund the difference, confirmed with the password", async () => {
  const sb = sandboxClient(gw.url);
  const o = await gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "BR-1", amount: "10", notifyUrl: "https://shop.example/pi" });
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "11.5" });
  for (let i = 0; i < 100 && (await gw.client.getPayinOrder(o.orderNo)).paidAmount === null; i++) await Bun.sleep(100);
  await sb.mine("TRON", 3);
  const who = addUser(gw, "br-shop", "merchant", gw.merchant.uid);
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
