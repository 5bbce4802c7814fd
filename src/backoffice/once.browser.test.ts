// A back-office form sent twice in Chromium on a slow network (issue 36): the Refund confirmed
// with the password, "Confirm" clicked twice 250 ms apart, makes one refund. With the page's
// script the button is disabled (and the form busy) once clicked, so the second click sends
// nothing (the confirmation page is axe-clean); without scripts the browser sends the form twice
// and its one-time token makes the second POST the first one's answer. The slow network: the
// POST reaches the gateway at once and its answer reaches the browser 1.5 s later.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { analyzeAxe } from "../testing/axe";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../testing/browser";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { randomAddress } from "../wallet/hd";
import { addUser, DESKTOP, withSession } from "../testing/backoffice-browser";

let gw: TestGateway;
let browser: Browser;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { chains: { TRON: { confirmations: 2 } } } });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await gw.stop();
});

let n = 0;
async function paidOrder(): Promise<string> {
  const sb = sandboxClient(gw.url);
  const o = await gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `once-br-${++n}`, amount: "10", notifyUrl: "https://shop.example/pi" });
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "10" });
  await sb.mine("TRON", 3);
  expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("completed");
  return o.orderNo;
}

/** A slow network for the refund's POSTs: each reaches the gateway at once, its answer comes 1.5 s later. Counts the POSTs sent. */
async function slowNetwork(page: Page, sent: { posts: number }): Promise<void> {
  await page.route("**/backoffice/orders/*/refund", async (route) => {
    sent.posts++;
    try {
      const answer = await route.fetch({ maxRedirects: 0 });
      await Bun.sleep(1500);
      await route.fulfill({ response: answer });
    } catch {
      // The browser gave this request up (the form was sent again).
    }
  });
}

/** Fills the order page's Refund form, sends it, and on "Confirm it is you" clicks Confirm twice, 250 ms apart. */
async function refundWithDoubleClick(page: Page, orderNo: string, password: string, beforeClick: (page: Page) => Promise<void> = async () => {}): Promise<{ posts: number }> {
  await page.goto(`${gw.url}/backoffice/orders/${orderNo}`);
  const form = page.getByRole("form", { name: "Refund" });
  await form.getByLabel("Amount").fill("1.25");
  await form.getByLabel("Payer's address").fill(randomAddress("TRON"));
  await form.getByRole("button", { name: "Refund", exact: true }).click();
  await page.getByRole("heading", { name: "Confirm it is you" }).waitFor();
  await page.getByLabel(/^Password/).fill(password);
  const sent = { posts: 0 };
  await slowNetwork(page, sent);
  const confirm = page.getByRole("button", { name: "Confirm", exact: true });
  const box = (await confirm.boundingBox())!;
  await beforeClick(page);
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await Bun.sleep(250);
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await page.getByText("Refund created; it is listed below.").waitFor({ timeout: 30_000 });
  return sent;
}

const refundsOf = async (orderNo: string) => (await gw.client.listRefunds(orderNo)).refunds;

test("Confirm clicked twice 250 ms apart on a slow network: the button is disabled at once, one refund", async () => {
  const who = await addUser(gw, "once-br", "operator");
  const ctx = await browser.newContext({ ...DESKTOP, locale: "en-US" });
  const page = await ctx.newPage();
  await withSession(page, gw.url, who);
  const orderNo = await paidOrder();
  // What the confirmation form looks like once clicked, told by the page itself (Playwright cannot
  // read a page whose navigation is pending): busy, its button disabled.
  const states: string[] = [];
  page.on("console", (m) => m.text().startsWith("sg-state") && states.push(m.text()));
  const sent = await refundWithDoubleClick(page, orderNo, who.password, async (p) => {
    const axe = await analyzeAxe(p);
    expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
    await p.evaluate(() => {
      const f = document.querySelector("form.stack")!;
      new MutationObserver(() => console.log(`sg-state busy=${f.getAttribute("aria-busy")} disabled=${f.querySelector("button")!.disabled}`)).observe(f, { attributes: true, subtree: true });
    });
  });
  expect(states).toContain("sg-state busy=true disabled=true");
  // The second click met a disabled button: one POST sent.
  expect(sent.posts).toBe(1);
  expect((await refundsOf(orderNo)).map((r) => r.amount)).toEqual(["1.250000"]);
  await ctx.close();
}, 120_000);

test("without scripts the browser sends the form twice: the one-time token makes it one refund", async () => {
  const who = await addUser(gw, "once-br-nojs", "operator");
  const ctx = await browser.newContext({ ...DESKTOP, locale: "en-US", javaScriptEnabled: false });
  const page = await ctx.newPage();
  await withSession(page, gw.url, who);
  const orderNo = await paidOrder();
  // The browser sends the form again (the first request given up); the gateway ran it once.
  expect((await refundWithDoubleClick(page, orderNo, who.password)).posts).toBe(2);
  expect((await refundsOf(orderNo)).map((r) => r.amount)).toEqual(["1.250000"]);
  await ctx.close();
}, 120_000);
