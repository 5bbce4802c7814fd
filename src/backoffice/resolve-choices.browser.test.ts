// The guided resolution in Chromium after refunds made by API (issue 36), at phone and desktop
// size: nothing is pre-selected, each label sits beside its radio button with what it produces,
// the refunds already made are stated, "Accept as paid" is shown refused with why once the refunds
// leave less than the amount, and beside "Resolve" the consequence of the choice made appears
// (CSS, no script); "Refund the difference" sends only what is still over the amount. In Chinese
// the same texts are in Chinese. axe-clean.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { analyzeAxe } from "../testing/axe";
import type { Browser, Locator, Page } from "playwright-core";
import { launchBrowser } from "../testing/browser";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { randomAddress } from "../wallet/hd";
import { addUser, confirmIdentity, DESKTOP, PHONE, signedIn } from "../testing/backoffice-browser";

let gw: TestGateway;
let browser: Browser;
let who: { username: string; password: string };
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { chains: { BSC: { confirmations: 2 } } } });
  browser = await launchBrowser();
  who = await addUser(gw, "rc-shop", "merchant", gw.merchant.uid);
});
afterAll(async () => {
  await browser?.close();
  await gw.stop();
});

let n = 0;
/** BSC USDC 10.37 paid 12.41 (held), then `refunded` refunded by API. */
async function heldAfterRefund(refunded: string) {
  const sb = sandboxClient(gw.url);
  const o = await gw.client.createPayinOrder({ chainCode: "BSC", tokenSymbol: "USDC", merchantOrderNo: `rc-${++n}`, amount: "10.37", notifyUrl: "https://shop.example/pi" });
  await sb.transfer({ chainCode: "BSC", tokenSymbol: "USDC", toAddress: o.address, amount: "12.41" });
  await sb.mine("BSC", 3);
  expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("frozen_abnormal");
  await gw.client.createRefund(o.orderNo, { refundNo: "by-api", amount: refunded, toAddress: randomAddress("BSC") });
  return o;
}

async function serious(page: Page): Promise<string[]> {
  const r = await analyzeAxe(page);
  return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((x) => x.target.join(" ")).join(", ")}`);
}

/** The label's box is on the radio's row, to its right and close to it. */
async function beside(radio: Locator, label: Locator): Promise<boolean> {
  const r = (await radio.boundingBox())!;
  const l = (await label.boundingBox())!;
  const rowOverlap = l.y < r.y + r.height && r.y < l.y + l.height;
  return rowOverlap && l.x >= r.x + r.width && l.x - (r.x + r.width) < 40;
}

for (const [size, viewport] of [["phone", PHONE], ["desktop", DESKTOP]] as const) {
  test(`${size}: nothing pre-selected, labels beside their radios, refunds made stated, the consequence beside Resolve; the difference sent is what is still over`, async () => {
    const o = await heldAfterRefund("0.5");
    const { ctx, page } = await signedIn(browser, gw, who, viewport);
    await page.goto(`${gw.url}/backoffice/orders/${o.orderNo}`);
    await page.getByRole("heading", { name: "Resolve this payment" }).waitFor();
    expect(await page.getByText("Refunds already made: 0.500000 USDC of the 12.410000 USDC received; 11.910000 USDC is kept.").isVisible()).toBe(true);
    const radios = page.getByRole("radio");
    expect(await radios.count()).toBe(3);
    for (let i = 0; i < 3; i++) expect(await radios.nth(i).isChecked()).toBe(false);
    for (const name of ["Accept as paid", "Refund all", "Refund the difference"]) {
      const radio = page.getByRole("radio", { name });
      const id = await radio.getAttribute("id");
      expect(await beside(radio, page.locator(`label[for="${id}"]`)), `${name} label beside its radio`).toBe(true);
    }
    expect(await page.getByText("the 11.910000 USDC left of the 12.410000 USDC received goes back to the payer as a refund (0.500000 USDC was already refunded)", { exact: false }).first().isVisible()).toBe(true);

    const button = page.getByRole("button", { name: "Resolve" });
    const consequence = page.locator("#resolve-consequence");
    expect(await consequence.innerText()).toBe("Nothing is chosen yet: choose what should happen above.");
    await page.getByLabel("Refund the difference").check();
    const said = await consequence.innerText();
    expect(said).toStartWith("Refund the difference: The order becomes completed (pay-in callback with status completed) and the 1.540000 USDC still paid over the amount goes back to the payer (0.500000 USDC was already refunded)");
    await page.getByLabel("Accept as paid").check();
    expect(await consequence.innerText()).toStartWith("Accept as paid: The order becomes completed; the merchant gets a pay-in callback with status completed. Nothing more is sent back: the 0.500000 USDC already refunded stays refunded and 11.910000 USDC is kept.");
    // Beside the button: on its row on a wide screen, right under it on a phone.
    const b = (await button.boundingBox())!;
    const c = (await consequence.boundingBox())!;
    if (size === "desktop") expect(c.y < b.y + b.height && b.y < c.y + c.height && c.x > b.x).toBe(true);
    else expect(c.y - (b.y + b.height)).toBeLessThan(24);
    expect(await serious(page)).toEqual([]);

    await page.getByLabel("Refund the difference").check();
    await page.getByLabel("Payer's address").first().fill(randomAddress("BSC"));
    await page.getByLabel("Note").fill("the rest of the overpayment");
    await button.click();
    await confirmIdentity(page, who.password);
    await page.getByText("Payment resolved").waitFor();
    expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("completed");
    expect((await gw.client.listRefunds(o.orderNo)).refunds.map((r) => r.amount)).toEqual(["0.500000", "1.540000"]);
    await ctx.close();
  }, 120_000);
}

test('all refunded by API: "Accept as paid" is disabled with why; "Refund all" says nothing more is sent; in Chinese too', async () => {
  const o = await heldAfterRefund("12.41");
  const { ctx, page } = await signedIn(browser, gw, who, PHONE);
  await page.goto(`${gw.url}/backoffice/orders/${o.orderNo}`);
  const accept = page.getByRole("radio", { name: "Accept as paid" });
  expect(await accept.isDisabled()).toBe(true);
  expect(await page.locator("#resolve-accept-outcome").innerText()).toBe("12.410000 USDC was already refunded, so 0.000000 USDC is kept, less than the order amount of 10.370000 USDC: it cannot be accepted as paid.");
  expect(await page.locator("#resolve-refund_all-outcome").innerText()).toBe("The order becomes cancelled (pay-in callback with status cancelled). Nothing more is sent: the 12.410000 USDC received was all refunded already.");
  expect(await page.getByRole("radio", { name: "Refund the difference" }).count()).toBe(0);
  expect(await serious(page)).toEqual([]);
  await ctx.close();

  const zh = await browser.newContext({ ...PHONE, locale: "zh-CN" });
  const zpage = await zh.newPage();
  await zpage.goto(gw.url + "/backoffice/login");
  await zpage.getByLabel("用户名").fill(who.username);
  await zpage.getByLabel("密码").fill(who.password);
  await zpage.getByRole("button", { name: "登录" }).click();
  await zpage.getByRole("heading", { name: "仪表盘" }).waitFor();
  await zpage.goto(`${gw.url}/backoffice/orders/${o.orderNo}`);
  expect(await zpage.locator("#resolve-refunds").innerText()).toBe("已退款：已收到的 12.410000 USDC 中已退 12.410000 USDC；保留 0.000000 USDC。");
  expect(await zpage.locator("#resolve-accept-outcome").innerText()).toBe("已退款 12.410000 USDC，仅保留 0.000000 USDC，少于订单金额 10.370000 USDC：不能按已付款接受。");
  expect(await zpage.locator("#resolve-consequence").innerText()).toBe("尚未选择：请在上方选择处理方式。");
  await zh.close();
}, 120_000);
