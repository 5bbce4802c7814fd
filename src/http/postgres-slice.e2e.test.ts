// The first vertical slice on PostgreSQL (DESIGN 22, docs/postgresql.md): a gateway started with
// [database] url on the test run's real PostgreSQL (init on its own database, a merchant), serving
// the signed create pay-in and the signed GET through the real HTTP server; nonces in the database;
// the order's callback queued in the outbox in the order's transaction and delivered by the
// callback worker's leased claims (callbacks/store.pg.ts), signed, exactly once.
// It runs in the PostgreSQL pass only (scripts/pg-suites.txt): `SG_TEST_DB=pg bun test <this file>`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { apiError, startTestGateway, type TestGateway } from "../testing/harness";
import { engineOf, pgOf } from "../db/engine";
import { verifyCallback } from "../sdk/callback";
import { startReceiver } from "../testing/receiver";
import { TEST_ENGINE } from "../testing/engines";

const onPg = TEST_ENGINE === "pg";
let gw: TestGateway;
beforeAll(async () => {
  if (onPg) gw = await startTestGateway({ engine: "pg" });
});
afterAll(async () => {
  await gw?.stop();
});

const rows = async <T>(q: ReturnType<typeof sql>) => (await pgOf(gw.ctx.db).execute(q)) as unknown as T[];

describe.skipIf(!onPg)("a gateway on PostgreSQL", () => {
  test("runs on the PostgreSQL handle", () => {
    expect(engineOf(gw.ctx.db)).toBe("pg");
  });

  test("signed create and GET of a pay-in; a retry with the same merchantOrderNo answers the same order; the callback is in the outbox", async () => {
    const input = { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "pg-1", amount: "10.5", notifyUrl: "https://shop.example/cb" } as const;
    const o = await gw.client.createPayinOrder(input);
    expect(o.status).toBe("waiting_payment");
    expect(o.amount).toBe("10.500000");
    const got = await gw.client.getPayinOrder(o.orderNo);
    expect(got).toMatchObject({ orderNo: o.orderNo, status: "waiting_payment", address: o.address, merchantOrderNo: "pg-1" });
    const again = await gw.client.createPayinOrder(input);
    expect(again.orderNo).toBe(o.orderNo);
    const second = await gw.client.createPayinOrder({ ...input, merchantOrderNo: "pg-2" });
    expect(second.orderNo).not.toBe(o.orderNo);
    // one open order per (address, amount): the second takes another pool address
    expect(second.address).not.toBe(o.address);
    const queued = await rows<{ order_no: string; state: string }>(sql`SELECT order_no, state FROM callbacks ORDER BY created_at`);
    expect(queued.map((r) => r.order_no)).toContain(o.orderNo);
    const idx = await rows<{ chain: string; next_index: string }>(sql`SELECT chain, next_index FROM derivation_counters`);
    expect(idx.length).toBeGreaterThan(0);
  });

  test("/healthz answers 200 with the database reachable (the liveness ping runs on PostgreSQL)", async () => {
    const r = await fetch(`${gw.url}/healthz`);
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ status: "ok", database: true });
  });

  test("an unknown order answers 40108; the nonces are rows of the database", async () => {
    const e = await apiError(gw.client.getPayinOrder("PI-nope"));
    expect(e.code).toBe(40108);
    const [{ n }] = await rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM nonces`);
    expect(Number(n)).toBeGreaterThanOrEqual(5);
  });

  test("a created order's callback reaches the merchant's endpoint signed, exactly once, and its row is delivered", async () => {
    const rx = startReceiver();
    try {
      const o = await gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "pg-cb-1", amount: "3", notifyUrl: rx.url + "/pg" });
      const mine = (r: { text: string }) => JSON.parse(r.text).orderNo === o.orderNo;
      const [req] = (await rx.waitFor((rs) => rs.some(mine), 15_000)).filter(mine);
      expect(req!.path).toBe("/pg");
      expect(JSON.parse(req!.text)).toMatchObject({ orderNo: o.orderNo, merchantOrderNo: "pg-cb-1", status: "waiting_payment" });
      expect(verifyCallback(req!.raw, req!.headers, gw.merchant.apiKey)).toBe(true);
      const state = async () => (await rows<{ state: string; lease_owner: string | null; attempts: number }>(sql`SELECT state, lease_owner, attempts::int AS attempts FROM callbacks WHERE order_no = ${o.orderNo}`))[0];
      for (let i = 0; i < 100 && (await state())?.state !== "delivered"; i++) await Bun.sleep(50);
      expect(await state()).toMatchObject({ state: "delivered", lease_owner: null, attempts: 1 });
      const [{ n }] = await rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM callback_attempts a JOIN callbacks c ON c.id = a.callback_id WHERE c.order_no = ${o.orderNo}`);
      expect(Number(n)).toBe(1);
      // Several polls later, still once.
      await Bun.sleep(1000);
      expect(rx.requests.filter(mine).length).toBe(1);
    } finally {
      await rx.stop();
    }
  });

  test("a row another gateway holds under a live lease is not sent; once its lease ends it is delivered, once", async () => {
    const rx = startReceiver();
    try {
      const o = await gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "pg-cb-2", amount: "4", notifyUrl: rx.url + "/first" });
      await rx.waitFor((rs) => rs.length === 1, 15_000);
      // The other gateway's claim: the order's event written again under a fresh id, leased to it for 1.5 s.
      const leaseEnds = Date.now() + 1500;
      await pgOf(gw.ctx.db).execute(sql`
        INSERT INTO callbacks (id, merchant_id, kind, order_no, order_status, api_key_id, url, payload, state, attempts, next_attempt_at, lease_owner, lease_until, created_at, updated_at)
        SELECT 'EV-other-' || id, merchant_id, kind, order_no, order_status, api_key_id, ${rx.url + "/other"}, payload, 'delivering', 0, next_attempt_at, 'another-gateway', ${leaseEnds}, created_at + 1, updated_at
        FROM callbacks WHERE order_no = ${o.orderNo}`);
      await Bun.sleep(1000);
      expect(rx.requests.map((r) => r.path)).toEqual(["/first"]);
      const all = await rx.waitFor((rs) => rs.some((r) => r.path === "/other"), 15_000);
      expect(all.filter((r) => r.path === "/other")[0]!.at).toBeGreaterThanOrEqual(leaseEnds);
      await Bun.sleep(600);
      expect(rx.requests.map((r) => r.path)).toEqual(["/first", "/other"]);
      expect(verifyCallback(rx.requests[1]!.raw, rx.requests[1]!.headers, gw.merchant.apiKey)).toBe(true);
    } finally {
      await rx.stop();
    }
  });
});
