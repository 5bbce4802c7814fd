// "Payment links" in Chromium (DESIGN 18): a merchant user creates one (amount, currency,
// description, networks) and gets its link and QR code; the payer's page works; the list shows its
// status; another merchant's user does not see it, the operator does; axe finds nothing serious.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { analyzeAxe } from "../testing/axe";
import type { Page } from "playwright-core";
import type { Browser } from "playwright-core";
import { launchBrowser } from "../testing/browser";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { addUser, DESKTOP, PHONE, signedIn } from "../testing/backoffice-browser";
import { auditLog, invoices } from "../db/schema";
import { tableRows } from "../testing/engine-rows";

const BROWSER_RETRY = { retry: 2 };
let gw: TestGateway;
let browser: Browser;
const users = {} as Record<"op" | "mine" | "theirs", { username: string; password: string }>;

beforeAll(async () => {
  gw = await startTestGateway({ config: { rates: { fixed: { CNY: "7.10", EUR: "0.92" } }, chains: { TRON: { confirmations: 2 } } } });
  browser = await launchBrowser();
  const other = await gw.newMerchant("Other Shop");
  users.op = await addUser(gw, "root", "operator");
  users.mine = await addUser(gw, "shop", "merchant", gw.merchant.uid);
  users.theirs = await addUser(gw, "othershop", "merchant", other.uid);
});
afterAll(async () => {
  await browser?.close();
  await gw.stop();
});

async function serious(page: Page): Promise<string[]> {
  const r = await analyzeAxe(page);
  return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

test("a merchant creates a CNY payment link on a phone: link and QR code, the payer's page, the list", async () => {
  const { ctx, page } = await signedIn(browser, gw, users.mine, PHONE);
  await page.goto(gw.url + "/backoffice/payment-links");
  expect(await serious(page)).toEqual([]);
  await page.getByLabel("Amount").fill("88");
  await page.getByLabel("Currency").selectOption("CNY");
  await page.getByLabel("Description").fill("Tea set");
  expect(await page.getByRole("checkbox", { name: "Solana USDT" }).isChecked()).toBe(true);
  await page.getByRole("checkbox", { name: "Solana USDC" }).uncheck();
  await page.getByRole("button", { name: "Create payment link" }).click();
  await page.waitForURL(/\/backoffice\/payment-links\/IV/);
  const link = (await page.getByTestId("payment-link").innerText()).trim();
  expect(link).toStartWith(`${gw.url}/invoice/`);
  expect(await page.getByRole("img", { name: /QR code of the payment link/ }).isVisible()).toBe(true);
  expect(await serious(page)).toEqual([]);
  const invoiceNo = new URL(page.url()).pathname.split("/").at(-1)!;
  // Its timeline and its callback (held: this merchant has no default callback URL yet).
  expect(await page.getByRole("list", { name: "Status timeline" }).innerText()).toContain("payment link created in the back office");
  expect(await page.getByRole("region", { name: /^Callback EV/ }).innerText()).toContain("held until a default callback URL is set");
  // Written with its audit entry; priced as asked, on the networks left checked.
  expect((await tableRows(gw.ctx.db, auditLog, { action: "payment_link.create" })).map((a) => a.target)).toEqual([`invoice:${invoiceNo}`]);
  const inv = await gw.client.getInvoice(invoiceNo);
  expect(inv).toMatchObject({ priceAmount: "88.00", priceCurrency: "CNY", description: "Tea set", status: "open", payments: ["TRON:USDT", "BSC:USDT", "BSC:USDC", "SOL:USDT"] });

  const payer = await browser.newContext(PHONE);
  const pp = await payer.newPage();
  await pp.goto(link);
  expect(await pp.getByTestId("price").innerText()).toBe("88.00 CNY");
  expect(await pp.getByRole("button", { name: "Solana USDC" }).count()).toBe(0);
  expect(await pp.getByRole("button", { name: "Solana USDT" }).count()).toBe(1);
  await payer.close();

  await page.goto(gw.url + "/backoffice/payment-links");
  const row = page.getByRole("row", { name: new RegExp(invoiceNo) });
  expect(await row.innerText()).toContain("open");
  expect(await row.innerText()).toContain("88.00 CNY");
  await ctx.close();
}, BROWSER_RETRY);

test("a bad amount is refused with the reason, and nothing is created", async () => {
  const { ctx, page } = await signedIn(browser, gw, users.mine, DESKTOP);
  const before = (await tableRows(gw.ctx.db, invoices)).length;
  await page.goto(gw.url + "/backoffice/payment-links");
  await page.getByLabel("Amount").fill("10.123");
  await page.getByLabel("Currency").selectOption("CNY");
  await page.getByRole("button", { name: "Create payment link" }).click();
  expect(await page.getByText(/Amount: CNY prices take at most 2 fractional digits/).isVisible()).toBe(true);
  expect(await page.getByLabel("Amount").inputValue()).toBe("10.123");
  expect((await tableRows(gw.ctx.db, invoices)).length).toBe(before);
  await ctx.close();
}, BROWSER_RETRY);

test("another merchant's user sees none of them; the operator sees every merchant's, with no form", async () => {
  const theirs = await signedIn(browser, gw, users.theirs, DESKTOP);
  await theirs.page.goto(gw.url + "/backoffice/payment-links");
  expect(await theirs.page.getByText("No payment links or invoices yet.").isVisible()).toBe(true);
  const own = (await gw.client.createInvoice({ merchantOrderNo: "api-1", priceAmount: "5", priceCurrency: "USD" })).invoiceNo;
  const res = await theirs.page.goto(`${gw.url}/backoffice/payment-links/${own}`);
  expect(res!.status()).toBe(404);
  await theirs.ctx.close();

  const op = await signedIn(browser, gw, users.op, PHONE);
  await op.page.goto(gw.url + "/backoffice/payment-links");
  expect(await op.page.getByRole("button", { name: "Create payment link" }).count()).toBe(0);
  expect(await op.page.getByRole("row", { name: new RegExp(own) }).innerText()).toContain(gw.merchant.uid);
  expect(await serious(op.page)).toEqual([]);
  await op.ctx.close();
}, BROWSER_RETRY);
