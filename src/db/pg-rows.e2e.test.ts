// pg-rows.ts: a row read with its own text decodes as drizzle's select returns it (the signed GET's
// order read, payin/orders-store.pg.ts orderByOrderNo), on the real server.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import { createTestDatabase } from "../testing/postgres";
import { addresses, merchants, payinOrders } from "./schema-pg";
import { orderByOrderNo } from "../payin/orders-store.pg";
import type { PgQ } from "./engine";

let client: SQL;
let db: PgQ;
const NOW = 1_796_000_000_123; // past 2^32

beforeAll(async () => {
  client = new SQL({ url: (await createTestDatabase()).url, max: 2 });
  db = drizzle({ client }) as unknown as PgQ;
});
afterAll(async () => await client?.close());

test("orderByOrderNo reads the row drizzle's select reads: numbers, nulls, a 27-digit amount; another merchant's order is absent", async () => {
  const [m] = await db.insert(merchants).values({ uid: "m-1", name: "Shop", createdAt: NOW, updatedAt: NOW }).returning({ id: merchants.id });
  const merchantId = m!.id;
  await db.insert(addresses).values({ id: "addr-1", merchantId, chain: "bsc", kind: "shared", derivationIndex: 0, address: "0xa1", createdAt: NOW });
  const base = { merchantId, mode: "shared" as const, chain: "bsc", token: "USDT", decimals: 18, addressId: "addr-1", address: "0xa1", apiKeyId: "key-1", status: "waiting_payment", createdAt: NOW, updatedAt: NOW };
  await db.insert(payinOrders).values([
    { ...base, orderNo: "P1", merchantOrderNo: "s1", amount: "123456789012345678901234501", checkoutToken: "t1", expireAt: NOW + 900_000 },
    { ...base, orderNo: "P2", merchantOrderNo: "s2", amount: "7", checkoutToken: "t2", paidAmount: "7", txHash: "0xh", confirmations: 12, completedAt: NOW + 5, invoiceId: 3 },
  ]);
  for (const no of ["P1", "P2"]) {
    const viaBuilder = (await db.select().from(payinOrders).where(eq(payinOrders.orderNo, no)))[0]!;
    const viaText = await orderByOrderNo(db, merchantId, no);
    expect(viaText).toEqual(viaBuilder);
    expect(Object.keys(viaText!)).toEqual(Object.keys(viaBuilder));
  }
  const p1 = (await orderByOrderNo(db, merchantId, "P1"))!;
  expect([typeof p1.id, p1.createdAt, p1.expireAt, p1.paidAmount, p1.amount]).toEqual(["number", NOW, NOW + 900_000, null, "123456789012345678901234501"]);
  expect(await orderByOrderNo(db, merchantId + 1, "P1")).toBeUndefined();
  expect(await orderByOrderNo(db, merchantId, "P9")).toBeUndefined();
});
