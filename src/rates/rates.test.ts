// The rate sources: fixed from config, coingecko against a local server answering the documented
// `simple/price` shape; staleness (56001) and what the rate_stale alert reads.
import { afterAll, describe, expect, test } from "bun:test";
import { parseConfig } from "../config/load";
import { closeDb } from "../db/client";
import { AppError } from "../errors";
import { TestClock } from "../lib/clock";
import { createLogger } from "../lib/logger";
import { checkPriceCurrency, currentRate, staleRates } from "./book";
import { apiKeyHeader, simplePriceUrl } from "./coingecko";
import { RateRefresher } from "./refresher";
import { openTestDb, type TestDb } from "../testing/engines";

const opened: TestDb[] = [];
afterAll(async () => await Promise.all(opened.map((t) => t.close().catch(() => undefined))));

/** The rates' deps on a database of the test engine (SQLite, or PostgreSQL with SG_TEST_DB=pg). */
async function store(rates: Record<string, unknown>, clock = new TestClock(Date.parse("2026-11-24T08:00:00Z"))) {
  const t = await openTestDb();
  opened.push(t);
  const db = t.db;
  const { config } = parseConfig({ rates }, "test");
  return { db, clock, config, logger: createLogger({ level: "error", sink: () => {} }) };
}

const code = async (f: () => Promise<unknown>) => {
  try {
    await f();
  } catch (e) {
    return e instanceof AppError ? e.code : String(e);
  }
  return "ok";
};

/** A stand-in for api.coingecko.com: the documented simple/price answer, with what was asked recorded. */
function fakeCoingecko(answer: () => { status?: number; body: unknown }) {
  const requests: Array<{ url: string; headers: Headers }> = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      requests.push({ url: req.url, headers: new Headers(req.headers) });
      const a = answer();
      return Response.json(a.body, { status: a.status ?? 200 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/api/v3`, requests, stop: () => server.stop(true) };
}

describe("fixed source", async () => {
  const s = await store({ source: "fixed", fixed: { CNY: "7.10", EUR: "0.92" } });
  test.each([
    ["CNY", "USDT", "7.10"],
    ["EUR", "USDC", "0.92"],
    ["USD", "USDT", "1"],
    ["USDT", "USDT", "1"],
    ["USDC", "USDT", "1"],
  ])("%s in %s is %s", async (cur, token, rate) => expect((await currentRate(s, cur, token)).rate).toBe(rate));

  test("a currency the table lacks is 10001 listing what it prices; fixed rates never go stale", async () => {
    expect(await code(async () => checkPriceCurrency(s.config, "GBP"))).toBe(10001);
    expect(await code(async () => checkPriceCurrency(s.config, "cny"))).toBe(10001);
    expect(await code(async () => checkPriceCurrency(s.config, "CNY"))).toBe("ok");
    s.clock.set(s.clock.now() + 365 * 86_400_000);
    expect((await currentRate(s, "CNY", "USDT")).rate).toBe("7.10");
    expect((await staleRates(s)).stale).toEqual([]);
  });
});

describe("coingecko source against a local server", async () => {
  let body: { status?: number; body: unknown } = { body: {} };
  const cg = fakeCoingecko(() => body);
  afterAll(() => cg.stop());
  const s = await store({ source: "coingecko", coingecko_url: cg.url, coingecko_api_key: "CG-test-key", refresh: "5m", max_age: "30m" });
  const refresher = new RateRefresher(s);

  test("the request: ids tether and usd-coin, lower-case vs_currencies, the demo key header", () => {
    const u = new URL(simplePriceUrl("https://api.coingecko.com/api/v3/", ["CNY", "EUR"]));
    expect(u.pathname).toBe("/api/v3/simple/price");
    expect(u.searchParams.get("ids")).toBe("tether,usd-coin");
    expect(u.searchParams.get("vs_currencies")).toBe("cny,eur");
    expect(apiKeyHeader("https://api.coingecko.com/api/v3")).toBe("x-cg-demo-api-key");
    expect(apiKeyHeader("https://pro-api.coingecko.com/api/v3")).toBe("x-cg-pro-api-key");
  });

  test("before any fetch there is no rate: 56001 (USD and the tokens still price at 1)", async () => {
    expect(await code(async () => await currentRate(s, "CNY", "USDT"))).toBe(56001);
    expect((await currentRate(s, "USD", "USDT")).rate).toBe("1");
  });

  test("a fetch stores each token's rate per currency; missing or bad prices are skipped", async () => {
    const at = Math.floor(s.clock.now() / 1000) - 60;
    body = { body: { tether: { cny: 7.1, eur: 0.92, jpy: 0, gbp: "x", last_updated_at: at }, "usd-coin": { cny: 7.09, last_updated_at: at } } };
    expect(await refresher.tick()).toBe(3);
    const req = cg.requests.at(-1)!;
    expect(req.headers.get("x-cg-demo-api-key")).toBe("CG-test-key");
    const q = new URL(req.url).searchParams;
    expect(q.get("ids")).toBe("tether,usd-coin");
    expect(q.get("vs_currencies")!.split(",")).toContain("cny");
    expect(await currentRate(s, "CNY", "USDT")).toEqual({ rate: "7.1", observedAt: at * 1000, source: "coingecko" });
    expect((await currentRate(s, "CNY", "USDC")).rate).toBe("7.09");
    expect((await currentRate(s, "EUR", "USDT")).rate).toBe("0.92");
    expect(await code(async () => await currentRate(s, "EUR", "USDC"))).toBe(56001);
    expect(await code(async () => await currentRate(s, "JPY", "USDT"))).toBe(56001);
  });

  test("a failing source keeps the last rates until max_age, then 56001 and the stale list", async () => {
    body = { status: 429, body: { status: { error_code: 429, error_message: "rate limited" } } };
    s.clock.set(s.clock.now() + 20 * 60_000);
    expect(await refresher.tick()).toBe(0);
    expect((await currentRate(s, "CNY", "USDT")).rate).toBe("7.1");
    expect((await staleRates(s)).stale).toEqual([]);
    s.clock.set(s.clock.now() + 11 * 60_000); // observed 31 minutes ago
    expect(await code(async () => await currentRate(s, "CNY", "USDT"))).toBe(56001);
    expect(await staleRates(s)).toEqual({ stale: ["CNY", "EUR"], neverFetched: false, lastError: expect.stringContaining("HTTP 429") });
  });

  test("the next good fetch makes them current again and clears the stale list", async () => {
    body = { body: { tether: { cny: 7.2, eur: 0.93 }, "usd-coin": { cny: 7.2, eur: 0.93 } } };
    expect(await refresher.tick()).toBe(4);
    expect((await currentRate(s, "CNY", "USDT")).rate).toBe("7.2");
    expect(await staleRates(s)).toEqual({ stale: [], neverFetched: false, lastError: null });
  });

  test("a source never reached is reported as such", async () => {
    const t = await store({ source: "coingecko", coingecko_url: "http://127.0.0.1:9/api/v3" });
    expect(await new RateRefresher(t).tick()).toBe(0);
    expect((await staleRates(t)).neverFetched).toBe(true);
  });

  test("a failed fetch whose error cannot be recorded either (the database gone) is logged: the tick never rejects (review R11)", async () => {
    const lines: string[] = [];
    const t = { ...(await store({ source: "coingecko", coingecko_url: "http://127.0.0.1:9/api/v3" })), logger: createLogger({ level: "warn", sink: (l) => lines.push(l) }) };
    await closeDb(t.db);
    expect(await new RateRefresher(t).tick()).toBe(0);
    expect(lines.some((l) => l.includes("rates fetch error not recorded"))).toBe(true);
  });
});
