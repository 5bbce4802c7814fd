// Volume per day: exact sums of 6- and 18-decimal amounts, per UTC day, scoped.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { migrations } from "../../../migrations/index";
import { openDb } from "../../db/client";
import { migrate } from "../../db/migrate";
import { callbacks, payinOrders } from "../../db/schema";
import { startTestGateway, type TestGateway } from "../../testing/harness";
import { allRows, insertRows } from "../../testing/engine-rows";
import { seedRows } from "../../testing/seed";
import { TEST_ENGINE } from "../../testing/engines";
import { GAVE_UP_CALLBACK, rebuildPayinDaily, volumePerDay } from "./dashboard";

let gw: TestGateway;
// These read SQLite's summary triggers and migrations with SQLite's own SQL (PostgreSQL's triggers
// are checked by the migration tests there); the sums and the rebuild above run on both engines.
const sqliteOnly = test.skipIf(TEST_ENGINE === "pg");
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false });
});
afterAll(() => gw.stop());

test("sums exactly across decimals and days, counts only settled orders, and respects the merchant scope", async () => {
  const seedOrder = await gw.client.request<Record<string, string>>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "SEED", amount: "1", notifyUrl: "https://shop.example/cb" },
  });
  const seed = (await allRows(gw.ctx.db, payinOrders)).find((o) => o.orderNo === seedOrder.orderNo)!;
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
  await insertRows(
    gw.ctx.db,
    payinOrders,
    rows.map(([status, decimals, amount, paid, at], i) => ({ ...base, orderNo: `PI2026112000000000000${i}`, merchantOrderNo: `V-${i}`, checkoutToken: `v-${i}`, status, decimals, amount, paidAmount: paid, completedAt: at, updatedAt: at })),
  );
  // Settled orders inserted directly (no UPDATE for the trigger to follow): a bulk load rebuilds.
  await rebuildPayinDaily(gw.ctx.db);
  const v = await volumePerDay(gw.ctx.db, { merchantId: null }, now);
  expect(v).toHaveLength(30);
  expect(v.at(-1)).toEqual({ day: "2026-11-20", micro: 7_262_500_000n, orders: 2 });
  expect(v.at(-2)).toEqual({ day: "2026-11-19", micro: 999_999n, orders: 1 });
  expect(v.slice(0, -2).every((d) => d.micro === 0n && d.orders === 0)).toBe(true);
  expect((await volumePerDay(gw.ctx.db, { merchantId: gw.merchant.id + 1 }, now)).every((d) => d.orders === 0)).toBe(true);
});

/** The chart's sums as the old query computed them, over every order: the summary must equal this. */
function naiveDaily(db: TestGateway["ctx"]["db"]) {
  return db.$client
    .query<{ day: number; merchant_id: number; micro: string; orders: number }, []>(
      `SELECT coalesce(completed_at, updated_at) / 86400000 AS day, merchant_id,
         CAST(sum(CASE WHEN decimals >= 6 THEN CAST(coalesce(nullif(substr(coalesce(paid_amount, amount), 1, length(coalesce(paid_amount, amount)) - (decimals - 6)), ''), '0') AS INTEGER)
                  ELSE CAST(coalesce(paid_amount, amount) AS INTEGER) * CAST(power(10, 6 - decimals) AS INTEGER) END) AS TEXT) AS micro, count(*) AS orders
       FROM payin_orders WHERE status IN ('completed', 'risk_settled') GROUP BY 1, 2 ORDER BY 1, 2`,
    )
    .all();
}
const summary = (db: TestGateway["ctx"]["db"]) =>
  db.$client.query<{ day: number; merchant_id: number; micro: string; orders: number }, []>("SELECT day, merchant_id, CAST(micro AS TEXT) AS micro, orders FROM payin_daily WHERE orders > 0 ORDER BY 1, 2").all();

sqliteOnly("the per-day summary follows every change of an order in the same transaction: completion, a later correction, leaving the set", async () => {
  const db = gw.ctx.db;
  const rows = db.select().from(payinOrders).all();
  const o = rows[0]!;
  const now = Date.parse("2026-11-21T10:00:00Z");
  const set = async (id: number, v: Partial<typeof o>) => await seedRows(db, (tx) => void tx.update(payinOrders).set(v).where(eq(payinOrders.id, id)).run());
  await set(o.id, { status: "completed", completedAt: now, paidAmount: "1500000", decimals: 6, updatedAt: now });
  expect(summary(db)).toEqual(naiveDaily(db));
  await set(o.id, { paidAmount: "2500000", updatedAt: now + 5 }); // a correction while completed
  expect(summary(db)).toEqual(naiveDaily(db));
  await set(o.id, { completedAt: now + 2 * 86_400_000 }); // moved to another day
  expect(summary(db)).toEqual(naiveDaily(db));
  await set(o.id, { status: "frozen_abnormal" }); // out of the set
  expect(summary(db)).toEqual(naiveDaily(db));
  // A change that fails rolls the summary back with it.
  await expect(
    seedRows(db, async () => {
      await set(o.id, { status: "completed" });
      throw new Error("rolled back");
    }),
  ).rejects.toThrow("rolled back");
  expect(summary(db)).toEqual(naiveDaily(db));
  expect((await volumePerDay(db, { merchantId: null }, now + 2 * 86_400_000)).at(-1)!.orders).toBe(0);
});

sqliteOnly("the migration fills the summary from the orders a database already has", async () => {
  const db = openDb(":memory:");
  await migrate(db, migrations.slice(0, 1)); // the baseline release
  const src = gw.ctx.db.$client;
  // Rows copied with the columns the baseline table has (later migrations add some).
  const copy = (table: string, rows: Record<string, unknown>[]) => {
    const have = new Set(db.$client.query<{ name: string }, []>(`PRAGMA table_info(${table})`).all().map((c) => c.name));
    for (const r of rows) {
      const cols = Object.keys(r).filter((c) => have.has(c));
      db.$client.run(`INSERT INTO ${table} (${cols.join(",")}) VALUES (${cols.map(() => "?").join(",")})`, cols.map((c) => r[c]) as never[]);
    }
  };
  db.$client.run("PRAGMA foreign_keys = OFF");
  copy("merchants", src.query("SELECT * FROM merchants").all() as Record<string, unknown>[]);
  copy("payin_orders", src.query("SELECT * FROM payin_orders").all() as Record<string, unknown>[]);
  db.$client.run("PRAGMA foreign_keys = ON");
  expect(await migrate(db)).toBeGreaterThan(0);
  expect(summary(db).length).toBeGreaterThan(0);
  expect(summary(db)).toEqual(naiveDaily(db));
});

/** The per-token summary as the orders give it, per day, merchant and token. */
function naiveDailyToken(db: TestGateway["ctx"]["db"]) {
  return db.$client
    .query<{ day: number; merchant_id: number; token: string; micro: string; orders: number }, []>(
      `SELECT coalesce(completed_at, updated_at) / 86400000 AS day, merchant_id, token,
         CAST(sum(CASE WHEN decimals >= 6 THEN CAST(coalesce(nullif(substr(coalesce(paid_amount, amount), 1, length(coalesce(paid_amount, amount)) - (decimals - 6)), ''), '0') AS INTEGER)
                  ELSE CAST(coalesce(paid_amount, amount) AS INTEGER) * CAST(power(10, 6 - decimals) AS INTEGER) END) AS TEXT) AS micro, count(*) AS orders
       FROM payin_orders WHERE status IN ('completed', 'risk_settled') GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    )
    .all();
}
const tokenSummary = (db: TestGateway["ctx"]["db"]) =>
  db.$client
    .query<{ day: number; merchant_id: number; token: string; micro: string; orders: number }, []>("SELECT day, merchant_id, token, CAST(micro AS TEXT) AS micro, orders FROM payin_daily_token WHERE orders > 0 ORDER BY 1, 2, 3")
    .all();

sqliteOnly("the volume per token: the summary follows the orders, the window's tokens add up to the chart's total, and the chart names them", async () => {
  const db = gw.ctx.db;
  const { volumePerToken } = await import("./dashboard");
  const { perTokenText } = await import("../views/chart");
  await rebuildPayinDaily(db);
  expect(tokenSummary(db)).toEqual(naiveDailyToken(db));
  const o = db.select().from(payinOrders).all().find((r) => r.status !== "completed")!;
  const now = Date.now();
  await seedRows(db, (tx) => void tx.update(payinOrders).set({ status: "completed", token: "USDC", completedAt: now, paidAmount: "2000000", decimals: 6, updatedAt: now }).where(eq(payinOrders.id, o.id)).run());
  expect(tokenSummary(db)).toEqual(naiveDailyToken(db));
  const tokens = await volumePerToken(db, { merchantId: null }, now);
  const days = await volumePerDay(db, { merchantId: null }, now);
  expect(tokens.reduce((s, t) => s + t.micro, 0n)).toBe(days.reduce((s, d) => s + d.micro, 0n));
  expect(tokens.find((t) => t.token === "USDC")?.micro).toBeGreaterThanOrEqual(2_000_000n);
  expect(perTokenText([{ token: "USDT", micro: 7_262_500_000n, orders: 2 }, { token: "USDC", micro: 1_000_000n, orders: 1 }])).toBe("7262.50 USDT, 1.00 USDC");
});

sqliteOnly("the failed-callbacks count spells the gave-up state as a literal, as the partial index callbacks_failed does", () => {
  const db = openDb(":memory:");
  try {
    expect(db.select({ id: callbacks.id }).from(callbacks).where(GAVE_UP_CALLBACK).toSQL()).toEqual({
      sql: `select "id" from "callbacks" where "callbacks"."state" = 'failed'`,
      params: [],
    });
  } finally {
    db.$client.close();
  }
});
