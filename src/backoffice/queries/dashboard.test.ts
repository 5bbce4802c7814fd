// Volume per day: exact sums of 6- and 18-decimal amounts, per UTC day, scoped.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { payinOrders } from "../../db/schema";
import { startTestGateway, type TestGateway } from "../../testing/harness";
import { volumePerDay } from "./dashboard";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false });
});
afterAll(() => gw.stop());

test("sums exactly across decimals and days, counts only settled orders, and respects the merchant scope", async () => {
  const seedOrder = await gw.client.request<Record<string, string>>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "SEED", amount: "1", notifyUrl: "https://shop.example/cb" },
  });
  const seed = gw.ctx.db.select().from(payinOrders).where(eq(payinOrders.orderNo, seedOrder.orderNo)).get()!;
  const { id: _id, ...base } = seed;
  const now = Date.parse("2026-11-20T15:00:00Z");
  const day = 86_400_000;
  const rows: [string, number, string, string | null, number][] = [
    // status, decimals, amount, paid, completedAt
    ["completed", 6, "12500000", null, now - 1000], // 12.5 today
    ["completed", 18, "7250000000000000000000", null, now - 2000], // 7250 today (18 decimals)
    ["risk_settled", 18, "1000000000000000000", "999999999999999999", now - day], // 0.999999(999…) yesterday, paid counts
    ["completed", 6, "3000000", null, now - 40 * day], // outside the 30 days
    ["expired", 6, "5000000", null, now - 1000], // not settled
  ];
  rows.forEach(([status, decimals, amount, paid, at], i) =>
    gw.ctx.db
      .insert(payinOrders)
      .values({ ...base, orderNo: `PI2026112000000000000${i}`, merchantOrderNo: `V-${i}`, checkoutToken: `v-${i}`, status, decimals, amount, paidAmount: paid, completedAt: at, updatedAt: at })
      .run(),
  );
  const v = volumePerDay(gw.ctx.db, { merchantId: null }, now);
  expect(v).toHaveLength(30);
  expect(v.at(-1)).toEqual({ day: "2026-11-20", micro: 7_262_500_000n, orders: 2 });
  expect(v.at(-2)).toEqual({ day: "2026-11-19", micro: 999_999n, orders: 1 });
  expect(v.slice(0, -2).every((d) => d.micro === 0n && d.orders === 0)).toBe(true);
  expect(volumePerDay(gw.ctx.db, { merchantId: gw.merchant.id + 1 }, now).every((d) => d.orders === 0)).toBe(true);
});
