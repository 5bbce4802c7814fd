// The callbacks page (issue 30) in Chromium at phone and desktop size: every event with its
// state in words (delivered, retrying at T, waiting behind an earlier event, gave up, held), its
// target (a delivery to the merchant's default URL is never "no target"), attempts and the last
// error in plain words; filters; bulk resend of what gave up; a merchant user sees only its own
// merchant's callbacks; axe finds no serious or critical violation at 390 and 1280 wide.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { createPayout } from "../payout/service";
import { launchBrowser } from "../testing/browser";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { startReceiver } from "../testing/receiver";
import { sandboxClient } from "../testing/sandbox";
import { eventually } from "../testing/wait";
import { addUser, axeAtBothSizes, DESKTOP, httpSession, PHONE, signedIn } from "../testing/backoffice-browser";

const BROWSER_RETRY = { retry: 2 };
let gw: TestGateway;
let browser: Browser;
let other: Awaited<ReturnType<TestGateway["newMerchant"]>>;
let heldShop: Awaited<ReturnType<TestGateway["newMerchant"]>>;
// /down answers 500 until `down` is false; everything else 200.
let down = true;
const rx = startReceiver((req) => (req.path === "/down" && down ? { status: 500, body: "merchant down" } : { status: 200, body: "ok" }));
const users = {} as Record<"op" | "mine" | "theirs", { username: string; password: string }>;
const data = {} as { viaDefault: { orderNo: string }; payout: { orderNo: string }; failing: Record<string, string>; held: { orderNo: string }; theirs: Record<string, string> };
const q = (sql: string, ...p: (string | number)[]) => gw.ctx.db.$client.query<Record<string, unknown>, (string | number)[]>(sql).all(...p);
const until = (what: string, fn: () => boolean | Promise<boolean>, ms = 15_000) => eventually(fn, ms, what);

beforeAll(async () => {
  // Three deliveries at most: the second 50 ms after the first, the third an hour later.
  gw = await startTestGateway({ config: { chains: { TRON: { confirmations: 3 } }, payin: { shared_pool_size: 1 }, callbacks: { retry_delays: ["50ms", "1h"] } } });
  browser = await launchBrowser();
  other = await gw.newMerchant("Other Shop");
  heldShop = await gw.newMerchant("No URL Shop");
  users.op = await addUser(gw, "cbop", "operator");
  users.mine = await addUser(gw, "cbshop", "merchant", gw.merchant.uid);
  users.theirs = await addUser(gw, "cbother", "merchant", other.uid);
  // The first merchant's default callback URL: orders without a notifyUrl go there.
  gw.ctx.db.$client.run("UPDATE merchants SET default_callback_url = ? WHERE id = ?", [rx.url + "/default", gw.merchant.id]);
  const sb = sandboxClient(gw.url);
  const pay = async (address: string, amount: string) => {
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: address, amount });
    await sb.mine("TRON", 3);
  };
  const create = (client: typeof gw.client, merchantOrderNo: string, notifyUrl: string) =>
    client.request<Record<string, string>>("POST", "/openapi/payin/orders", { body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo, amount: "3", notifyUrl } });
  // An exclusive wallet's deposit order and a payout have no notifyUrl: they go to the default URL.
  const bind = (client: typeof gw.client, bindKey: string) =>
    client.request<Record<string, string>>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey } });
  const depositOrder = (address: string) => String(q("SELECT order_no FROM payin_orders WHERE address = ? ORDER BY id DESC LIMIT 1", address)[0]!.order_no);
  const wallet = await bind(gw.client, "cb-wallet");
  await pay(wallet.address, "20");
  data.viaDefault = { orderNo: depositOrder(wallet.address) };
  data.theirs = await create(other.client, "CB-THEIRS", rx.url + "/theirs");
  const to = data.theirs.address!;
  // A payout without notifyUrl, as a batch payout makes one (the API asks for one).
  const keyId = String(q("SELECT id FROM api_keys WHERE merchant_id = ? LIMIT 1", gw.merchant.id)[0]!.id);
  const po = (await createPayout(gw.ctx, gw.merchant.id, keyId, { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "CB-PO-1", fromAddress: wallet.address, toAddress: to, amount: "1" })).order;
  data.payout = { orderNo: po.orderNo };
  data.failing = await create(gw.client, "CB-DOWN", rx.url + "/down");
  await pay(data.failing.address!, "3");
  // Held: a wallet bound while its merchant had a default URL, which was cleared before the deposit.
  gw.ctx.db.$client.run("UPDATE merchants SET default_callback_url = ? WHERE id = ?", [rx.url + "/gone", heldShop.id]);
  const heldWallet = await bind(heldShop.client, "cb-held");
  gw.ctx.db.$client.run("UPDATE merchants SET default_callback_url = NULL WHERE id = ?", [heldShop.id]);
  await pay(heldWallet.address, "2");
  data.held = { orderNo: depositOrder(heldWallet.address) };
  await pay(data.theirs.address!, "3");
  await until("the payout's callback delivered through the default URL", () => q("SELECT 1 FROM callbacks WHERE order_no = ? AND state = 'delivered'", po.orderNo).length > 0, 30_000);
  await until("delivered through the default URL", () => q("SELECT 1 FROM callbacks WHERE order_no = ? AND state = 'delivered'", data.viaDefault.orderNo).length > 0);
  await until("the failing event's second attempt", () => q("SELECT 1 FROM callbacks WHERE order_no = ? AND state = 'pending' AND attempts = 2", data.failing.orderNo).length > 0);
  await until("held", () => q("SELECT 1 FROM callbacks WHERE order_no = ? AND state = 'held'", data.held.orderNo).length > 0);
});
afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  await rx.stop();
});

const rowOf = (page: Page, orderNo: string) => page.locator("tr[data-event]", { hasText: orderNo });

test("every event with its state, target, attempts and last error in plain words; filters", async () => {
  const { ctx, page } = await signedIn(browser, gw, users.op, DESKTOP);
  await page.goto(gw.url + "/backoffice/callbacks");
  await page.getByRole("heading", { name: "Callbacks" }).waitFor();
  // Delivered to the merchant's default URL (its order had no notifyUrl): the URL, never "no target".
  const delivered = (await rowOf(page, data.viaDefault.orderNo).first().innerText()).replace(/\s+/g, " ");
  expect(delivered).toContain("delivered");
  expect(delivered).toContain(`${rx.url}/default`);
  expect(delivered).toContain("(the merchant's default callback URL)");
  expect(delivered).not.toContain("no target");
  // The payout delivered with 200 to the default URL (the mislabel of issue 30).
  const payout = (await rowOf(page, data.payout.orderNo!).first().innerText()).replace(/\s+/g, " ");
  expect(payout).toContain("Delivered (HTTP 200)");
  expect(payout).toContain(`${rx.url}/default`);
  expect(payout).not.toContain("no target");
  // Failing: retrying at a time an hour out, the error in plain words, the raw runtime text nowhere.
  const failing = rowOf(page, data.failing.orderNo);
  const first = (await failing.last().innerText()).replace(/\s+/g, " ");
  expect(first).toContain("retrying");
  expect(first).toMatch(/Retrying at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(attempt 3 of 3\)/);
  expect(first).toContain("The server answered HTTP 500 (internal server error)");
  expect(first).toContain(`${rx.url}/down`);
  // The order's later events wait behind it.
  const eventIds = q("SELECT id FROM callbacks WHERE order_no = ? ORDER BY rowid", data.failing.orderNo).map((r) => String(r.id));
  expect(eventIds.length).toBeGreaterThan(1);
  const later = (await page.locator(`tr[data-event="${eventIds[1]}"]`).innerText()).replace(/\s+/g, " ");
  expect(later).toContain(`Waiting behind an earlier event of this order (${eventIds[0]})`);
  // Held: no URL anywhere.
  const held = (await rowOf(page, data.held.orderNo).first().innerText()).replace(/\s+/g, " ");
  expect(held).toContain("held");
  expect(held).toContain("no target: held until a default callback URL is set");
  // Filters: state, merchant, business type, order.
  await page.getByLabel("State").selectOption("held");
  await page.getByRole("button", { name: "Filter" }).click();
  await page.waitForURL(/state=held/);
  expect(await page.locator("tr[data-event]").count()).toBe(q("SELECT 1 FROM callbacks WHERE state = 'held'").length);
  await page.goto(`${gw.url}/backoffice/callbacks?merchant=${other.uid}`);
  expect(await rowOf(page, data.theirs.orderNo).count()).toBeGreaterThan(0);
  expect(await rowOf(page, data.viaDefault.orderNo).count()).toBe(0);
  await page.goto(`${gw.url}/backoffice/callbacks?type=payout`);
  expect(await rowOf(page, data.payout.orderNo!).count()).toBeGreaterThan(0);
  expect(await rowOf(page, data.failing.orderNo!).count()).toBe(0);
  await page.goto(`${gw.url}/backoffice/callbacks?type=invoice`);
  expect(await page.getByText("No callback matches.").isVisible()).toBe(true);
  // Per order: the order page links its events in the list.
  await page.goto(`${gw.url}/backoffice/orders/${data.failing.orderNo}`);
  await page.getByRole("link", { name: "This order's callbacks in the callbacks list" }).click();
  await page.waitForURL(/order=/);
  expect(await page.locator("tr[data-event]").count()).toBe(eventIds.length);
  expect(await page.getByText(`${eventIds.length} found`).isVisible()).toBe(true);
  // The order page says the same in its cards.
  await page.goto(`${gw.url}/backoffice/orders/${data.payout.orderNo}`);
  const card = (await page.getByRole("region", { name: /^Callback EV/ }).first().innerText()).replace(/\s+/g, " ");
  expect(card).toContain(`${rx.url}/default`);
  expect(card).not.toContain("no target");
  await ctx.close();
}, { ...BROWSER_RETRY, timeout: 120_000 });

test("what gave up is resent in bulk; a merchant user sees and resends only its own", async () => {
  const [firstId] = q("SELECT id FROM callbacks WHERE order_no = ? ORDER BY rowid", data.failing.orderNo).map((r) => String(r.id));
  // The hour passes for the failing event: its third and last delivery fails too.
  gw.ctx.db.$client.run("UPDATE callbacks SET next_attempt_at = 0 WHERE id = ?", [firstId!]);
  gw.gateway.runtime.kick();
  await until("gave up", () => q("SELECT 1 FROM callbacks WHERE id = ? AND state = 'failed'", firstId!).length > 0);

  // Another merchant's user: none of this merchant's events, and its resend of one changes nothing.
  const theirs = await signedIn(browser, gw, users.theirs, DESKTOP);
  await theirs.page.goto(`${gw.url}/backoffice/callbacks?merchant=${gw.merchant.uid}`);
  expect(await rowOf(theirs.page, data.failing.orderNo).count()).toBe(0);
  expect(await rowOf(theirs.page, data.theirs.orderNo).count()).toBeGreaterThan(0);
  await theirs.ctx.close();
  const cookie = await httpSession(gw.url, users.theirs);
  const form = await (await fetch(`${gw.url}/backoffice/callbacks`, { headers: { cookie } })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form)![1]!;
  const res = await fetch(`${gw.url}/backoffice/callbacks/resend`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ _csrf: csrf, id: firstId! }),
  });
  expect(res.status).toBe(303);
  expect(res.headers.get("location")).toContain("done=0");
  expect(q("SELECT state FROM callbacks WHERE id = ?", firstId!)[0]!.state).toBe("failed");

  // The merchant's own user: "gave up", then "Resend selected" with the endpoint back up.
  const { ctx, page } = await signedIn(browser, gw, users.mine, PHONE);
  await page.goto(`${gw.url}/backoffice/callbacks?state=failed`);
  const row = page.locator(`tr[data-event="${firstId}"]`);
  const text = (await row.innerText()).replace(/\s+/g, " ");
  expect(text).toContain("gave up");
  expect(text).toContain("Gave up after 3 attempts");
  down = false;
  await page.getByRole("checkbox", { name: `Select callback ${firstId} of ${data.failing.orderNo}` }).check();
  await page.getByRole("button", { name: "Resend selected" }).click();
  await page.getByText("1 callback(s) queued again.").waitFor();
  await until("delivered after the resend", () => q("SELECT 1 FROM callbacks WHERE id = ? AND state = 'delivered'", firstId!).length > 0);
  await ctx.close();
}, { ...BROWSER_RETRY, timeout: 120_000 });


test("axe: the callbacks page at 390 and 1280 wide, as operator and merchant", async () => {
  const found: string[] = [];
  // Each page loaded once per role, axe at 1280 and then at 390 (axeAtBothSizes).
  for (const who of [users.op, users.mine]) {
    const { ctx, page } = await signedIn(browser, gw, who, DESKTOP);
    for (const path of ["/backoffice/callbacks", "/backoffice/callbacks?state=failed", `/backoffice/orders/${data.failing.orderNo}`]) found.push(...(await axeAtBothSizes(page, gw.url, path)));
    await ctx.close();
  }
  expect(found).toEqual([]);
}, { ...BROWSER_RETRY, timeout: 240_000 });
