// The first vertical slice on PostgreSQL (DESIGN 22, docs/postgresql.md): a gateway started with
// [database] url on the test run's real PostgreSQL (init on its own database, a merchant), serving
// the signed create pay-in and the signed GET through the real HTTP server; nonces in the database;
// the order's callback queued in the outbox in the order's transaction.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { apiError, startTestGateway, type TestGateway } from "../testing/harness";
import { engineOf, pgOf } from "../db/engine";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ engine: "pg" });
});
afterAll(async () => {
  await gw?.stop();
});

const rows = async <T>(q: ReturnType<typeof sql>) => (await pgOf(gw.ctx.db).execute(q)) as unknown as T[];

describe("a gateway on PostgreSQL", () => {
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
});
