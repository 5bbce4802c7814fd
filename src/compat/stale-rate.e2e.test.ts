// DESIGN 19 priced through DESIGN 18: with [rates] source = "coingecko" (a local stand-in), a
// compatibility order while the [compat] currency's rate is older than max_age is refused in each
// protocol's terms (epusdt 10006, EPay a 422 page without a redirect), nothing written.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { payinOrders } from "../db/schema";
import { TestClock } from "../lib/clock";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { setCompatKeys } from "../merchants/compat-keys";
import { CLI_ACTOR } from "../audit/log";
import { tableRows } from "../testing/engine-rows";

const T0 = Date.parse("2026-11-24T08:00:00Z");
const clock = new TestClock(T0);
let gw: TestGateway;
let cg: ReturnType<typeof Bun.serve>;
let cny = 7.1;

const md5 = (p: Record<string, string>, secret: string, skip: string[]) =>
  createHash("md5")
    .update(
      Object.keys(p)
        .filter((k) => !skip.includes(k) && p[k] !== "")
        .sort()
        .map((k) => `${k}=${p[k]}`)
        .join("&") + secret,
    )
    .digest("hex");

beforeAll(async () => {
  cg = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ tether: { cny }, "usd-coin": { cny } }) });
  gw = await startTestGateway({ clock, jobs: false, config: { rates: { source: "coingecko", coingecko_url: `http://127.0.0.1:${cg.port}/api/v3`, refresh: "5m", max_age: "30m" } } });
  await setCompatKeys({ db: gw.ctx.db, cipher: gw.ctx.cipher, now: () => clock.now() }, gw.merchant.uid, { epusdt: "stale-token", epay: "stale-epay-key" }, CLI_ACTOR);
});
afterAll(async () => {
  await gw.stop();
  void cg.stop(true);
});

const epusdt = async (orderId: string) => {
  const p = { order_id: orderId, amount: "71", notify_url: "http://127.0.0.1:9/n" };
  const res = await fetch(`${gw.url}/compat/epusdt/${gw.merchant.uid}/api/v1/order/create-transaction`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...p, signature: md5(p, "stale-token", ["signature"]) }),
  });
  return { http: res.status, body: (await res.json()) as { status_code: number } };
};
const epay = async (orderId: string) => {
  const p = { pid: gw.merchant.uid.slice(1), type: "usdt", out_trade_no: orderId, notify_url: "http://127.0.0.1:9/n", name: "x", money: "71.00" };
  return fetch(`${gw.url}/compat/epay/submit.php?${new URLSearchParams({ ...p, sign: md5(p, "stale-epay-key", ["sign", "sign_type"]) })}`, { redirect: "manual" });
};

test("a stale CNY rate: epusdt 10006 and EPay 422, nothing written; a fresh fetch lifts it", async () => {
  expect(await gw.gateway.runtime.rates.tick()).toBe(2);
  expect((await epusdt("fresh")).body.status_code).toBe(200);

  cny = 0; // the source stops answering a usable CNY price: the stored one ages
  await clock.advance(31 * 60_000);
  await gw.gateway.runtime.rates.tick();
  const before = (await tableRows(gw.ctx.db, payinOrders)).length;
  expect(await epusdt("stale")).toEqual({ http: 200, body: expect.objectContaining({ status_code: 10006, data: null }) });
  const page = await epay("stale");
  expect([page.status, page.headers.get("location")]).toEqual([422, null]);
  expect((await tableRows(gw.ctx.db, payinOrders)).length).toBe(before);

  cny = 7.2;
  await gw.gateway.runtime.rates.tick();
  expect((await epusdt("again")).body.status_code).toBe(200);
  // type "usdt" names no network: the payer's network page, offered again now that a rate is current.
  const again = await epay("again-epay");
  expect([again.status, (await again.text()).includes('value="TRON:USDT"')]).toEqual([200, true]);
});
