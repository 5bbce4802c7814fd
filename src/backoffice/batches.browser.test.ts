import { join } from "node:path";
// The batch payout walk-through in real Chromium, as a merchant user: a 200-row
// CSV with 5 bad rows (bad address, own address 54003, too many decimals,
// duplicate merchantOrderNo, insufficient balance) shows exactly those 5 with
// their codes; confirmed, the other 195 reach `confirmed` on the sandbox
// chains; the results CSV downloads; the same file again pays nothing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import Papa from "papaparse";
import { analyzeAxe } from "../testing/axe";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../testing/browser";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { randomAddress } from "../wallet/hd";
import { CLI_ACTOR } from "../audit/log";
import { createUser } from "./users";
import { withSession } from "../testing/backoffice-browser";

type Obj = Record<string, any>;
let gw: TestGateway;
let browser: Browser;
beforeAll(async () => {
  gw = await startTestGateway({
    config: { chains: { TRON: { block_time: "150ms", confirmations: 2 }, BSC: { block_time: "150ms", confirmations: 2 }, SOL: { enabled: false } } },
  });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

const DESKTOP = { viewport: { width: 1280, height: 800 } };
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, deviceScaleFactor: 2 };
const count = (sql: string, ...a: Array<string | number>) => (gw.ctx.db.$client.query(sql).get(...a) as { n: number }).n;

/** Signed in as `who` (a real sign-in over HTTP, its session cookie in the page's context: testing/backoffice-browser.ts `withSession`), on the dashboard. */
async function signIn(page: Page, who: { username: string; password: string }) {
  await withSession(page, gw.url, who);
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
}

/** Reloads the page (as its own refresh would, only sooner) until `text` shows. */
async function reloadUntil(page: Page, text: string, timeoutMs: number) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await page.getByText(text).count()) > 0) return;
    } catch {} // the page's own refresh navigated meanwhile
    if (Date.now() > end) throw new Error(`"${text}" did not appear: ${await page.locator("[role=status]").first().innerText().catch(() => "?")}`);
    await Bun.sleep(250);
    await page.reload().catch(() => {});
  }
}

async function noAxeViolations(page: Page) {
  const r = await analyzeAxe(page);
  expect(r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

test("upload 200 rows with 5 bad ones, confirm, watch the rest confirm, download results; the same file again pays nothing", async () => {
  const m = await gw.newMerchant("Batch Shop");
  const who = { username: `payer${Date.now() % 100000}`, password: "" };
  who.password = (await createUser({ db: gw.ctx.db, cipher: gw.ctx.cipher, now: () => Date.now() }, { username: who.username, role: "merchant", merchantUid: m.uid }, CLI_ACTOR)).password;

  // Funds on both sandbox chains.
  const sb = sandboxClient(gw.url);
  const src: Record<string, string> = {};
  for (const chainCode of ["TRON", "BSC"]) {
    const b = await m.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode, tokenSymbol: "USDT", bindKey: "treasury" } });
    await sb.transfer({ chainCode, tokenSymbol: "USDT", toAddress: b.address, amount: "1000" });
    src[chainCode] = b.address;
  }
  for (let i = 0; i < 100 && count("SELECT count(*) AS n FROM ledger_entries WHERE kind = 'deposit' AND address_id IN (SELECT id FROM addresses WHERE merchant_id = ?)", m.id) < 2; i++) await Bun.sleep(50);

  const BAD: Record<number, { line: string; code: number }> = {
    10: { line: "TRON,USDT,TNotAnAddress0000000000000000000,1,W-10", code: 10001 },
    50: { line: `TRON,USDT,${src.TRON},1,W-50`, code: 54003 },
    90: { line: `BSC,USDT,${randomAddress("BSC")},1.1234567,W-90`, code: 10001 },
    130: { line: `TRON,USDT,${randomAddress("TRON")},1,W-1`, code: 10001 },
    170: { line: `TRON,USDT,${randomAddress("TRON")},5000,W-170`, code: 53003 },
  };
  const rows = Array.from({ length: 200 }, (_, i) => {
    const n = i + 1;
    if (BAD[n]) return BAD[n]!.line;
    const chain = n % 2 ? "TRON" : "BSC";
    return `${chain},USDT,${randomAddress(chain)},${(1 + (n % 7) / 10).toFixed(1)},W-${n}`;
  });
  const csv = Buffer.from("chainCode,tokenSymbol,toAddress,amount,merchantOrderNo\n" + rows.join("\n") + "\n");

  const ctx = await browser.newContext({ ...DESKTOP, locale: "en-US", acceptDownloads: true });
  const page = await ctx.newPage();
  await signIn(page, who);
  await page.getByRole("link", { name: "Batch payouts" }).click();
  await page.getByLabel("Payouts CSV").setInputFiles({ name: "payouts.csv", mimeType: "text/csv", buffer: csv });
  await page.getByRole("button", { name: "Upload" }).click();

  // Exactly the 5 bad rows, each with its code.
  const errors = page.getByRole("region", { name: "Rows with errors" }).locator("tbody tr");
  await errors.first().waitFor();
  const flagged = await errors.evaluateAll((trs) => trs.map((tr) => [Number(tr.getAttribute("data-row")), Number(tr.querySelector("td.code")!.textContent)]));
  expect(flagged).toEqual(Object.entries(BAD).map(([n, b]) => [Number(n), b.code]));
  expect(await page.getByTestId("valid-count").innerText()).toBe("195");
  await page.getByRole("region", { name: "Totals per chain and token" }).getByRole("cell", { name: "TRON" }).waitFor();
  await page.getByRole("region", { name: "Estimated gas" }).waitFor();
  await noAxeViolations(page);
  expect(count("SELECT count(*) AS n FROM payout_orders WHERE merchant_id = ?", m.id)).toBe(0);

  // Confirm with the password on the same form.
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Confirm payouts" }).click();
  // The progress page refreshes itself until every payout is final.
  await reloadUntil(page, "Finished: 195 confirmed, 0 failed, 0 refused, 5 rows with errors.", 60_000);
  expect(count("SELECT count(*) AS n FROM payout_orders WHERE merchant_id = ? AND status = 'confirmed'", m.id)).toBe(195);
  const sentBefore = count("SELECT count(*) AS n FROM sandbox_transfers WHERE from_address IN (?, ?) AND block_number IS NOT NULL", src.TRON!, src.BSC!);
  expect(sentBefore).toBe(195);
  await noAxeViolations(page);

  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download results CSV" }).click()]);
  // The browser runs in its own server process: the download is saved to a local file first.
  const saved = join(gw.dir, "batch-results.csv");
  await download.saveAs(saved);
  const results = Papa.parse<Record<string, string>>(readFileSync(saved, "utf8"), { header: true, skipEmptyLines: true }).data;
  expect(results).toHaveLength(200);
  expect(results.filter((r) => r.result === "created" && r.status === "confirmed" && /^PO\d+$/.test(r.orderNo!) && r.txHash)).toHaveLength(195);
  expect(results.filter((r) => r.result === "invalid").map((r) => [Number(r.row), Number(r.errorCode)])).toEqual(Object.entries(BAD).map(([n, b]) => [Number(n), b.code]));

  // The same file again, at phone size: nothing to pay, nothing paid.
  const phone = await browser.newContext({ ...PHONE, locale: "en-US" });
  const p2 = await phone.newPage();
  await signIn(p2, who);
  await p2.goto(gw.url + "/backoffice/batches");
  await p2.getByLabel("Payouts CSV").setInputFiles({ name: "payouts.csv", mimeType: "text/csv", buffer: csv });
  await p2.getByRole("button", { name: "Upload" }).click();
  await p2.getByTestId("valid-count").waitFor();
  expect(await p2.getByTestId("valid-count").innerText()).toBe("0");
  expect(await p2.getByTestId("existing-count").innerText()).toBe("195");
  expect(await p2.getByRole("button", { name: "Confirm payouts" }).count()).toBe(0);
  await noAxeViolations(p2);
  // Nothing to confirm, and nothing queued for the batch job.
  expect(count("SELECT count(*) AS n FROM payout_batches WHERE merchant_id = ? AND status = 'running'", m.id)).toBe(0);
  expect(count("SELECT count(*) AS n FROM payout_orders WHERE merchant_id = ?", m.id)).toBe(195);
  expect(count("SELECT count(*) AS n FROM sandbox_transfers WHERE from_address IN (?, ?)", src.TRON!, src.BSC!)).toBe(195);
  await phone.close();
  await ctx.close();
}, { timeout: 120_000, retry: 2 });
