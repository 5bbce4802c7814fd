import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sendSigned } from "../testing/signed-request";
import { TestClock } from "../lib/clock";
import { RateLimiter } from "./rate-limit";
import { AppError } from "../errors";
import { closeDb } from "../db/client";
import { openPgDb } from "../db/tx-pg";
import { TEST_ENGINE } from "../testing/engines";
import { createTestDatabase } from "../testing/postgres";

const clock = new TestClock();
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ clock, jobs: false, config: { auth: { rate_limit_per_minute: 5 } } });
});
afterAll(() => gw.stop());

const get = (who: { uid: string; apiKey: string }) =>
  sendSigned({ baseUrl: gw.url, uid: who.uid, apiKey: who.apiKey, path: "/openapi/payin/orders/PIx", now: () => clock.now() });

test("past auth.rate_limit_per_minute a merchant gets 429 / 10029 with retry-after; others are unaffected; it refills", async () => {
  for (let i = 0; i < 5; i++) expect((await get(gw.merchant)).body.code).toBe(40108);
  const r = await get(gw.merchant);
  expect(r.status).toBe(429);
  expect(r.body).toEqual({ code: 10029, message: expect.any(String), data: { retryAfter: 12 }, requestId: expect.stringMatching(/^req_/) });
  expect(r.headers.get("retry-after")).toBe("12");

  const other = await gw.newMerchant("neighbour");
  expect((await get(other)).body.code).toBe(40108);

  clock.advance(12_000); // one request's worth
  expect((await get(gw.merchant)).body.code).toBe(40108);
  expect((await get(gw.merchant)).body.code).toBe(10029);
  clock.advance(60_000);
  for (let i = 0; i < 5; i++) expect((await get(gw.merchant)).body.code).toBe(40108);
});

test("requests that fail before the merchant is known do not count", async () => {
  const shop = await gw.newMerchant("bad keys");
  for (let i = 0; i < 10; i++) expect((await get({ uid: shop.uid, apiKey: "mch_wrong" })).body.code).toBe(20005);
  expect((await get(shop)).body.code).toBe(40108);
});

test("0 turns the limit off", () => {
  const l = new RateLimiter(0);
  for (let i = 0; i < 10_000; i++) l.take(1, 0);
});

test("token bucket: burst of the limit, then one per 60s/limit", () => {
  const l = new RateLimiter(60);
  for (let i = 0; i < 60; i++) l.take(7, 1000);
  expect(() => l.take(7, 1000)).toThrow(AppError);
  expect(() => l.take(7, 1999)).toThrow(AppError);
  l.take(7, 2000);
  expect(() => l.take(7, 2000)).toThrow(AppError);
});

// DESIGN 22: on PostgreSQL the signed API's buckets live in the database, so gateways sharing it
// (two pools, two limiters) hand out at most the limit between them.
test.skipIf(TEST_ENGINE !== "pg")("two gateways on one database share each merchant's bucket", async () => {
  const pg = await createTestDatabase();
  const gateways = [openPgDb(pg.url, 4), openPgDb(pg.url, 4)];
  try {
    const limiters = [new RateLimiter(5), new RateLimiter(5)];
    const now = Date.parse("2026-11-29T09:00:00Z");
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) => limiters[i % 2]!.takeFor(gateways[i % 2]!, 42, now).then(() => "ok", (e: AppError) => e.code)),
    );
    expect(outcomes.filter((o) => o === "ok").length).toBe(5);
    expect(outcomes.filter((o) => o === 10029).length).toBe(7);
    // Another merchant's bucket is its own; a refill of 12 s brings one token back on either gateway.
    await limiters[0]!.takeFor(gateways[0]!, 43, now);
    await expect(limiters[1]!.takeFor(gateways[1]!, 42, now + 11_000)).rejects.toMatchObject({ code: 10029, data: { retryAfter: 1 } });
    await limiters[1]!.takeFor(gateways[1]!, 42, now + 12_000);
  } finally {
    for (const db of gateways) await closeDb(db);
    await pg.drop().catch(() => undefined);
  }
});
