// The operator's walk-through of DESIGN 12 at phone and desktop size, on one
// real gateway with sandbox chains: find a paid order by its txHash, read its
// timeline and callback attempts, resend a failed callback; attach an
// unmatched deposit; freeze and release. Each action leaves an audit entry.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { listAudit } from "../audit/log";
import { launchBrowser } from "../testing/browser";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { startReceiver } from "../testing/receiver";
import { sandboxClient } from "../testing/sandbox";
import { eventually } from "../testing/wait";
import { addUser, DESKTOP, PHONE, signedIn } from "../testing/backoffice-browser";

const BROWSER_RETRY = { retry: 2 };
let gw: TestGateway;
let browser: Browser;
// Callbacks fail while `failing` is true.
let failing = true;
const rx = startReceiver(() => (failing ? { status: 500, body: "merchant down" } : { status: 200, body: "ok" }));
let admin: { username: string; password: string };

beforeAll(async () => {
  gw = await startTestGateway({
    config: {
      chains: { TRON: { confirmations: 3 } },
      payin: { shared_pool_size: 1 },
      callbacks: { retry_delays: ["50ms", "50ms"] },
    },
  });
  browser = await launchBrowser();
  admin = await addUser(gw, "admin", "operator");
});
afterAll(async () => {
  await browser?.close();
  await gw.stop();
  await rx.stop();
});

const sb = () => sandboxClient(gw.url);
let seq = 0;
const createOrder = (amount: string) =>
  gw.client.request<Record<string, string>>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `WALK-${++seq}`, amount, notifyUrl: rx.url + "/cb" },
  });
const statusOf = async (orderNo: string) => (await gw.client.request<Record<string, string>>("GET", `/openapi/payin/orders/${orderNo}`)).status;
const until = (what: string, fn: () => Promise<boolean> | boolean, ms = 10_000) => eventually(fn, ms, what);
const audited = async (action: string, target: string) => (await listAudit(gw.ctx.db, { action, target })).entries;

/** Searches from the box; the results page, or (one record found) that record's page with `opens` as its heading. */
async function search(page: Page, q: string, opens: string | RegExp = "Search") {
  await page.getByLabel("Search").fill(q);
  await page.getByLabel("Search").press("Enter");
  await page.getByRole("heading", { name: opens }).waitFor();
}

for (const [name, size] of [
  ["phone", PHONE],
  ["desktop", DESKTOP],
] as const) {
  test(`${name}: find a paid order by txHash, see its timeline and attempts, resend a failed callback`, async () => {
    failing = true;
    const o = await createOrder("12.5");
    const { txHash } = await sb().transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "12.5" });
    await sb().mine("TRON", 3);
    await until("completed", async () => (await statusOf(o.orderNo)) === "completed");
    // Three deliveries of the completed callback, all refused.
    await until("callbacks given up", () => rx.requests.filter((r) => r.text.includes(o.orderNo) && r.text.includes('"completed"')).length >= 3);
    // The third attempt's outcome is written just after the answer.
    await until("the failure recorded", () => !!gw.ctx.db.$client.query("SELECT 1 FROM callbacks WHERE order_no = ? AND order_status = 'completed' AND state = 'failed'").get(o.orderNo));

    const { ctx, page } = await signedIn(browser, gw, admin, size);
    await search(page, txHash);
    await page.getByRole("link", { name: o.orderNo }).click();
    await page.getByRole("heading", { name: `Pay-in ${o.orderNo}` }).waitFor();
    const timeline = await page.getByRole("list", { name: "Status timeline" }).innerText();
    expect(timeline).toContain("waiting_payment → detected");
    expect(timeline).toContain("payment seen in a block");
    expect(timeline).toMatch(/detected → completed — \d+\/3 confirmations/);
    const attempts = page.getByRole("region", { name: /Delivery attempts of/ }).last();
    expect(await attempts.locator("tr[data-attempt]").count()).toBe(3);
    expect(await attempts.innerText()).toContain("500");
    expect(await attempts.innerText()).toContain("merchant down");

    failing = false;
    await page.getByRole("button", { name: "Resend completed callback" }).click();
    await page.getByText("Callback queued again").waitFor();
    const after = page.getByRole("region", { name: /Delivery attempts of/ }).last();
    await until("the new attempt on the page", async () => {
      if ((await after.locator("tr[data-attempt]").count()) === 4) return true;
      await page.reload();
      return false;
    });
    expect(await after.locator("tr[data-attempt]").last().innerText()).toContain("200");
    expect((await audited("callback.resend", `payin:${o.orderNo}`))[0]).toMatchObject({ actor: "admin", role: "operator" });
    await ctx.close();
  }, BROWSER_RETRY);

  test(`${name}: attach an unmatched deposit; the order completes and its callback is delivered`, async () => {
    failing = false;
    // Nothing is open on the address when the deposit arrives: it is unmatched.
    const first = await createOrder("1");
    await sb().transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: first.address, amount: "1" });
    await sb().mine("TRON", 3);
    await until("first completed", async () => (await statusOf(first.orderNo)) === "completed");
    const stray = await sb().transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: first.address, amount: "7.25" });
    await sb().mine("TRON", 3);
    const o = await createOrder("7.25");

    const { ctx, page } = await signedIn(browser, gw, admin, size);
    await page.getByRole("link", { name: "Exceptions" }).click();
    // The stray transfer is the only record with its txHash: the search opens its page.
    await search(page, stray.txHash, /^Deposit #/);
    const depositNo = (await page.getByRole("heading", { level: 1 }).innerText()).replace(/^Deposit /, "");
    // From the exceptions queue's "Attach" on that deposit.
    await page.getByRole("link", { name: "Exceptions" }).click();
    await page.getByRole("button", { name: `Attach deposit ${depositNo}` }).click();
    await page.getByRole("heading", { name: /^Deposit #/ }).waitFor();
    await page.getByLabel("Order", { exact: true }).fill(o.orderNo);
    await page.getByRole("button", { name: "Find order" }).click();
    await page.getByRole("button", { name: `Attach to ${o.orderNo}` }).click();
    await page.getByText("Deposit attached to this order.").waitFor();
    expect(await statusOf(o.orderNo)).toBe("completed");
    await until("completed callback delivered", () => rx.requests.some((r) => r.text.includes(o.orderNo) && r.text.includes('"completed"')));
    await until("the delivered attempt on the page", async () => {
      await page.reload();
      return (await page.getByRole("region", { name: /Delivery attempts of/ }).last().innerText()).includes("200");
    });
    const attachEntry = (await listAudit(gw.ctx.db, { action: "deposit.attach" })).entries.find((e) => JSON.stringify(e.after).includes(o.orderNo));
    expect(attachEntry).toMatchObject({ actor: "admin", role: "operator" });
    expect(await page.getByRole("list", { name: "Status timeline" }).innerText()).toContain("deposit.attach — by admin (operator");
    await ctx.close();
  }, BROWSER_RETRY);

  test(`${name}: freeze an open order, then release it`, async () => {
    failing = false;
    const o = await createOrder("3.3");
    await sb().transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "3.3" });
    await until("detected", async () => (await statusOf(o.orderNo)) === "detected");

    const { ctx, page } = await signedIn(browser, gw, admin, size);
    await page.goto(`${gw.url}/backoffice/orders/${o.orderNo}`);
    // The reason is optional (phone: left empty, the entry still names who froze it).
    const reason = name === "desktop" ? "sender asked to verify" : "frozen in the back office by admin";
    if (name === "desktop") await page.getByLabel("Reason").fill(reason);
    await page.getByRole("button", { name: "Freeze" }).click();
    await page.getByText("Order frozen.").waitFor();
    expect(await statusOf(o.orderNo)).toBe("frozen_abnormal");
    await sb().mine("TRON", 3);
    await gw.gateway.runtime.watchers.get("TRON")!.tick(); // the watcher has seen those blocks (not a sleep)
    expect(await statusOf(o.orderNo)).toBe("frozen_abnormal");
    await page.getByRole("button", { name: "Release" }).click();
    await page.getByText("Order released.").waitFor();
    expect(await statusOf(o.orderNo)).toBe("completed");
    const timeline = await page.getByRole("list", { name: "Status timeline" }).innerText();
    expect(timeline).toContain("payin.freeze — by admin (operator");
    expect(timeline).toContain(reason);
    expect((await audited("payin.freeze", `payin:${o.orderNo}`))[0]).toMatchObject({ actor: "admin", role: "operator" });
    expect((await audited("payin.release", `payin:${o.orderNo}`))[0]).toMatchObject({ actor: "admin", role: "operator" });
    await ctx.close();
  }, BROWSER_RETRY);
}

test("exceptions queue: dismiss an unmatched deposit with a note; add and remove a deny-list sender", async () => {
  const first = await createOrder("2");
  await sb().transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: first.address, amount: "2" });
  await sb().mine("TRON", 3);
  await until("completed", async () => (await statusOf(first.orderNo)) === "completed");
  const stray = await sb().transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: first.address, amount: "0.01" });
  await sb().mine("TRON", 3);

  const { ctx, page } = await signedIn(browser, gw, admin, DESKTOP);
  await page.getByRole("link", { name: "Exceptions" }).click();
  const depositId = (await page.getByRole("region", { name: "Unmatched deposits" }).locator("tr", { hasText: "0.010000 USDT" }).getByRole("link").innerText()).slice(1);
  await page.getByRole("link", { name: `Review deposit #${depositId}` }).click();
  expect(await page.locator("dl.kv").innerText()).toContain(stray.txHash);
  await page.getByLabel("Note").fill("test transfer from our own wallet");
  await page.getByRole("button", { name: "Dismiss" }).click();
  await page.getByText("Deposit dismissed.").waitFor();
  expect(await page.locator("dl.kv").innerText()).toContain("dismissed: test transfer from our own wallet");
  expect((await audited("deposit.dismiss", `deposit:${depositId}`))[0]).toMatchObject({ actor: "admin" });

  await page.getByRole("link", { name: "Exceptions" }).click();
  expect(await page.getByRole("region", { name: "Unmatched deposits" }).count()).toBe(0);
  const sender = "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7";
  await page.getByLabel("Sender address").fill(sender);
  await page.getByLabel("Deny reason").fill("chargeback fraud");
  await page.getByRole("button", { name: "Add to deny list" }).click();
  await page.getByText("Sender added to the deny list.").waitFor();
  expect(await page.getByRole("region", { name: "Deny list" }).innerText()).toContain(sender);
  await page.getByRole("button", { name: `Remove ${sender} from the deny list` }).click();
  await page.getByText("Sender removed from the deny list.").waitFor();
  expect(await page.getByRole("region", { name: "Deny list" }).innerText()).not.toContain(sender);
  await ctx.close();
}, BROWSER_RETRY);
