// The back office end to end over HTTP on either engine (SG_TEST_DB=pg: issue 38): the one-time
// setup link creates the first operator, who signs in, lists pay-ins with a filter, pages them,
// exports the same rows as CSV, finds an order by its merchantOrderNo, opens its page and resends
// its callback, which reaches the merchant again.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { issueSetupToken } from "./setup";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { backofficeSignIn, type BackofficeClient } from "../testing/backoffice-client";
import { startReceiver, type Receiver } from "../testing/receiver";

let gw: TestGateway;
let receiver: Receiver;
let bo: BackofficeClient;
const made: Record<string, string>[] = [];
const OPERATOR = { username: "first-operator", password: "the-first-operator-password" };

beforeAll(async () => {
  receiver = startReceiver();
  gw = await startTestGateway();
  for (let i = 0; i < 7; i++) {
    made.push(
      await gw.client.request<Record<string, string>>("POST", "/openapi/payin/orders", {
        body: { chainCode: i % 2 ? "BSC" : "TRON", tokenSymbol: "USDT", merchantOrderNo: `BO-${i}`, amount: `1.0${i}`, notifyUrl: receiver.url },
      }),
    );
  }
}, 120_000);
afterAll(async () => {
  await gw.stop();
  await receiver.stop();
});

const formFields = (html: string) => Object.fromEntries([...html.matchAll(/name="(_csrf|_once)" value="([^"]+)"/g)].map((m) => [m[1]!, m[2]!]));

test("the setup link creates the first operator, once", async () => {
  const token = (await issueSetupToken({ db: gw.ctx.db, cipher: gw.ctx.cipher, now: () => gw.ctx.clock.now() }))!;
  const page = await fetch(`${gw.url}/backoffice/setup/${token}`);
  expect(page.status).toBe(200);
  const pre = page.headers.getSetCookie().find((c) => c.startsWith("sg_csrf="))!.split(";")[0]!;
  const csrf = formFields(await page.text())._csrf!;
  const post = (t: string) => fetch(`${gw.url}/backoffice/setup/${t}`, { method: "POST", redirect: "manual", headers: { cookie: pre }, body: new URLSearchParams({ _csrf: csrf, ...OPERATOR }) });
  const res = await post(token);
  expect(res.status).toBe(303);
  expect(res.headers.get("location")).toBe("/backoffice/login?done=setup");
  expect((await post(token)).status).toBe(404); // one use
  expect(await issueSetupToken({ db: gw.ctx.db, cipher: gw.ctx.cipher, now: () => gw.ctx.clock.now() })).toBeNull(); // an operator exists now
  bo = await backofficeSignIn(gw.url, OPERATOR);
});

test("the pay-ins list: a filter, pages, and a CSV of exactly the filtered rows", async () => {
  const list = await bo.get("/backoffice/payins?chain=TRON");
  expect(list.status).toBe(200);
  const html = await list.text();
  const tron = made.filter((_, i) => i % 2 === 0);
  for (const o of tron) expect(html).toContain(o.orderNo!);
  for (const o of made.filter((_, i) => i % 2 === 1)) expect(html).not.toContain(o.orderNo!);
  expect(html).toContain(`data-total="${tron.length}"`);
  const csv = await bo.get("/backoffice/payins.csv?chain=TRON");
  expect(csv.status).toBe(200);
  expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  const lines = (await csv.text()).trim().split("\r\n");
  expect(lines.length).toBe(1 + tron.length);
  // Newest first, as the list.
  expect(lines.slice(1).map((l) => tron.find((o) => l.includes(o.orderNo!))?.merchantOrderNo)).toEqual(tron.map((o) => o.merchantOrderNo).reverse());
});

test("search finds an order by its merchantOrderNo and opens its page; its callback is resent and delivered again", async () => {
  const target = made[3]!;
  const found = await bo.get(`/backoffice/search?q=${target.merchantOrderNo}`);
  expect([200, 303]).toContain(found.status);
  const orderPath = `/backoffice/orders/${target.orderNo}`;
  if (found.status === 303) expect(found.headers.get("location")).toBe(orderPath);
  else expect(await found.text()).toContain(target.orderNo!);
  const page = await bo.get(orderPath);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain(target.merchantOrderNo!);
  const eventId = /\/backoffice\/callbacks\/([^/"]+)\/resend/.exec(html)?.[1];
  expect(eventId).toBeDefined();
  // The creation event's own delivery first; then the resend must deliver it once more.
  const forOrder = (r: { text: string }[]) => r.filter((x) => x.text.includes(target.orderNo!)).length;
  await receiver.waitFor((r) => forOrder(r) > 0, 20_000);
  const before = forOrder(receiver.requests);
  const res = await bo.post(`/backoffice/callbacks/${eventId}/resend`, { ...formFields(html.slice(html.indexOf(`/backoffice/callbacks/${eventId}/resend`))), back: orderPath });
  expect(res.status).toBe(303);
  await receiver.waitFor((r) => forOrder(r) > before, 20_000);
  const again = await (await bo.get(orderPath)).text();
  expect(again).toContain("callback.resend");
}, 60_000);
