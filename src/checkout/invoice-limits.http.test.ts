// The hosted invoice page limits network choices (issue 36): each choice makes a pay-in, so a
// page or a script posting choices again and again is answered 429 "too many network choices"
// (en/zh, Retry-After) once the invoice's bucket (INVOICE_CHOICES_PER_MINUTE) or the client's
// (CLIENT_CHOICES_PER_MINUTE, across invoices) is empty; nothing is made then.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { payinOrders, invoices } from "../db/schema";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { TestClock } from "../lib/clock";
import { CLIENT_CHOICES_PER_MINUTE, INVOICE_CHOICES_PER_MINUTE } from "./routes";
import { tableRows, tableRow } from "../testing/engine-rows";

let gw: TestGateway;
const clock = new TestClock(Date.parse("2026-11-29T08:00:00Z"));
beforeAll(async () => {
  // The gateway's clock stands still: the buckets fill again only when the test says so.
  gw = await startTestGateway({ clock, jobs: false, config: { server: { trusted_proxies: ["127.0.0.1/32", "::1/128"] }, rates: { source: "fixed", fixed: { CNY: "7.10" } }, chains: { TRON: { confirmations: 2 } } } });
});
afterAll(() => gw.stop());

let n = 0;
async function invoice(): Promise<{ url: string; id: number }> {
  const inv = await gw.client.createInvoice({ merchantOrderNo: `lim-${++n}`, priceAmount: "71", priceCurrency: "CNY", notifyUrl: "https://shop.example/inv" });
  const row = (await tableRow(gw.ctx.db, invoices, { merchantOrderNo: `lim-${n}` }))!;
  return { url: inv.invoiceUrl, id: row.id };
}
const payinsOf = async (invoiceId: number) => (await tableRows(gw.ctx.db, payinOrders, { invoiceId })).length;
const NETWORKS = ["TRON:USDT", "BSC:USDT"];
const choose = (url: string, i: number, lang = "en", ip = "203.0.113.7") =>
  fetch(`${gw.url}${new URL(url).pathname}/pay?lang=${lang}`, { method: "POST", redirect: "manual", headers: { "x-forwarded-for": ip }, body: new URLSearchParams({ network: NETWORKS[i % 2]! }) });

test("40 choices on one invoice in a burst: at most the invoice's limit of pay-ins; the rest 429 with the reason and Retry-After", async () => {
  const inv = await invoice();
  const answers = [];
  for (let i = 0; i < 40; i++) answers.push(await choose(inv.url, i));
  const statuses = answers.map((r) => r.status);
  expect(statuses.slice(0, INVOICE_CHOICES_PER_MINUTE).every((s) => s === 303)).toBe(true);
  expect(statuses.slice(INVOICE_CHOICES_PER_MINUTE).every((s) => s === 429)).toBe(true);
  expect(await payinsOf(inv.id)).toBeLessThanOrEqual(INVOICE_CHOICES_PER_MINUTE);
  const refused = answers[INVOICE_CHOICES_PER_MINUTE]!;
  expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(await refused.text()).toContain("Too many network choices for this invoice. Wait a minute, then choose again.");
  const zh = await choose(inv.url, 0, "zh");
  expect(zh.status).toBe(429);
  expect(await zh.text()).toContain("此账单更换网络的次数过多");
  // A minute later the bucket is full again.
  await clock.advance(60_000);
  expect((await choose(inv.url, 1)).status).toBe(303);
});

test("one client across invoices: its choices stop at the client's limit, another client still chooses", async () => {
  const made: number[] = [];
  let refused = 0;
  for (let i = 0; i < CLIENT_CHOICES_PER_MINUTE + 5; i++) {
    // A new invoice every few choices: the invoice's own limit is never the one reached.
    if (i % 3 === 0) made.push((await invoice()).id);
    const inv = (await tableRow(gw.ctx.db, invoices, { id: made.at(-1)! }))!;
    const r = await choose(inv.invoiceUrl, i, "en", "198.51.100.9");
    if (r.status === 429) refused++;
    else expect(r.status).toBe(303);
  }
  expect(refused).toBe(5);
  const other = await invoice();
  expect((await choose(other.url, 0, "en", "198.51.100.10")).status).toBe(303);
});
