// drizzle-orm's bun-sql driver over Bun's built-in SQL client, with schema-pg.ts, on the real
// server: the pair the PostgreSQL stores are written with (DESIGN 22, docs/postgresql.md).
// Exact amounts (text base units past 2^64), bigint times read as numbers, a transaction that
// rolls back whole, and claims with FOR UPDATE SKIP LOCKED that two workers never share.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { and, eq, inArray } from "drizzle-orm";
import { drizzle, type BunSQLDatabase } from "drizzle-orm/bun-sql";
import { createTestDatabase } from "../testing/postgres";
import * as schema from "./schema-pg";
import { addresses, merchants, payinOrders } from "./schema-pg";

let client: SQL;
let db: BunSQLDatabase<typeof schema>;
let merchantId: number;
const NOW = 1_796_000_000_123; // 2026-11: past 2^32, so a 32-bit time would show here

function order(n: number, status = "waiting_payment"): typeof payinOrders.$inferInsert {
  return {
    orderNo: `P${n}`,
    merchantId,
    merchantOrderNo: `shop-${n}`,
    mode: "shared",
    chain: "bsc",
    token: "USDT",
    decimals: 18,
    amount: (123456789012345678901234500n + BigInt(n)).toString(), // 1.2e26 base units: more than 2^64; one open order per amount
    addressId: "addr-1",
    address: "0x00000000000000000000000000000000000000a1",
    apiKeyId: "key-1",
    status,
    checkoutToken: `tok-${n}`,
    expireAt: NOW + 900_000,
    createdAt: NOW,
    updatedAt: NOW,
  };
}

beforeAll(async () => {
  const database = await createTestDatabase();
  client = new SQL({ url: database.url, max: 4 });
  db = drizzle({ client, schema });
  const [m] = await db.insert(merchants).values({ uid: "m-1", name: "Shop", createdAt: NOW, updatedAt: NOW }).returning({ id: merchants.id });
  merchantId = m!.id;
  await db.insert(addresses).values({ id: "addr-1", merchantId, chain: "bsc", kind: "shared", derivationIndex: 0, address: order(0).address, createdAt: NOW });
});
afterAll(async () => {
  await client?.close();
});

describe("drizzle bun-sql with schema-pg.ts on PostgreSQL", () => {
  test("an order row round-trips: exact amount text, bigint times as numbers, identity id, defaults", async () => {
    const [{ id }] = (await db.insert(payinOrders).values(order(1)).returning({ id: payinOrders.id })) as [{ id: number }];
    expect(typeof id).toBe("number");
    const row = (await db.select().from(payinOrders).where(eq(payinOrders.id, id)))[0]!;
    expect(row.amount).toBe("123456789012345678901234501");
    expect(row.createdAt).toBe(NOW);
    expect(typeof row.expireAt).toBe("number");
    expect(row.expireAt).toBe(NOW + 900_000);
    expect(row.confirmations).toBe(0);
    expect(row.paidAmount).toBeNull();
    const [m] = await db.select().from(merchants).where(eq(merchants.id, merchantId));
    expect(m!.payoutsEnabled).toBe(true);
    expect(m!.feeBalance).toBe("0");
  });

  test("a compare-and-set on the status it expects applies once", async () => {
    const [{ id }] = (await db.insert(payinOrders).values(order(2)).returning({ id: payinOrders.id })) as [{ id: number }];
    const cas = () =>
      db.update(payinOrders).set({ status: "expired", updatedAt: NOW + 1 }).where(and(eq(payinOrders.id, id), eq(payinOrders.status, "waiting_payment"))).returning({ id: payinOrders.id });
    const results = await Promise.all([cas(), cas()]);
    expect(results.map((r) => r.length).sort()).toEqual([0, 1]);
  });

  test("a transaction that throws leaves nothing; one that returns commits everything", async () => {
    const err = await db
      .transaction(async (tx) => {
        await tx.insert(payinOrders).values(order(3));
        await tx.update(merchants).set({ feeBalance: "5" }).where(eq(merchants.id, merchantId));
        throw new Error("crash between the writes");
      })
      .catch((e: Error) => e);
    expect(String(err)).toContain("crash between the writes");
    expect(await db.select().from(payinOrders).where(eq(payinOrders.orderNo, "P3"))).toEqual([]);
    expect((await db.select().from(merchants).where(eq(merchants.id, merchantId)))[0]!.feeBalance).toBe("0");
    await db.transaction(async (tx) => {
      await tx.insert(payinOrders).values(order(3));
      await tx.update(merchants).set({ feeBalance: "5" }).where(eq(merchants.id, merchantId));
    });
    expect((await db.select().from(payinOrders).where(eq(payinOrders.orderNo, "P3"))).length).toBe(1);
    expect((await db.select().from(merchants).where(eq(merchants.id, merchantId)))[0]!.feeBalance).toBe("5");
  });

  test("two workers claiming with FOR UPDATE SKIP LOCKED never take the same row, and neither waits", async () => {
    const nos = ["Q1", "Q2", "Q3"];
    await db.insert(payinOrders).values(nos.map((no, i) => ({ ...order(100 + i, "queued"), orderNo: no })));
    type Tx = Parameters<Parameters<typeof db.transaction>[0]>[0];
    const claim = (tx: Tx) =>
      tx
        .select({ orderNo: payinOrders.orderNo })
        .from(payinOrders)
        .where(and(eq(payinOrders.status, "queued"), inArray(payinOrders.orderNo, nos)))
        .orderBy(payinOrders.id)
        .limit(1)
        .for("update", { skipLocked: true });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let firstClaimed!: (no: string) => void;
    const first = new Promise<string>((r) => (firstClaimed = r));
    const worker1 = db.transaction(async (tx) => {
      const [row] = await claim(tx);
      firstClaimed(row!.orderNo);
      await held; // the lock is held while worker 2 claims
    });
    const a = await first;
    const started = performance.now();
    const b = await db.transaction(async (tx) => {
      const [row] = await claim(tx);
      return row!.orderNo;
    });
    const waitedMs = performance.now() - started;
    release();
    await worker1;
    expect(a).toBe("Q1");
    expect(b).toBe("Q2");
    expect(waitedMs).toBeLessThan(5000);
  });
});
