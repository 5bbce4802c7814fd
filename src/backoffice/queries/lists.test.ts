// The lists' seeks return exactly what a plain filter over every row returns:
// each filter combination, walked page by page to the end, equals the naive
// answer (newest first); dates become id ranges without losing an edge row;
// counts stop at the cap; a deposit carries its address's merchant.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { payinOrders, transfers } from "../../db/schema";
import { rawAll } from "../../db/raw";
import { allRows, deleteRows, insertRows } from "../../testing/engine-rows";
import { orderNoFloor } from "../../lib/ids";
import { startTestGateway, type TestGateway } from "../../testing/harness";
import { parseFilter } from "./filters";
import { COUNT_CAP, countStatement } from "./keyset";
import { isPg } from "../../db/engine";
import { countDeposits, countPayins, DEPOSIT_STATUSES, depositQuery, listDeposits, listPayins, PAYIN_STATUSES } from "./lists";

const DAY = 86_400_000;
const T0 = Date.parse("2026-06-01T00:00:00Z");
let gw: TestGateway;
let other: Awaited<ReturnType<TestGateway["newMerchant"]>>;
type Order = typeof payinOrders.$inferSelect;
type Transfer = typeof transfers.$inferSelect;
let orders: Order[] = [];
let deposits: Transfer[] = [];

beforeAll(async () => {
  gw = await startTestGateway({ jobs: false });
  other = await gw.newMerchant("Other");
  const seedRes = await gw.client.request<Record<string, string>>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "SEED", amount: "1", notifyUrl: "https://shop.example/cb" },
  });
  const seed = (await allRows(gw.ctx.db, payinOrders)).find((o) => o.orderNo === seedRes.orderNo)!;
  await deleteRows(gw.ctx.db, payinOrders, "id", [seed.id]);
  const { id: _id, ...base } = seed;
  const newOrders: (typeof payinOrders.$inferInsert)[] = [];
  const newTransfers: (typeof transfers.$inferInsert)[] = [];
  for (let i = 0; i < 900; i++) {
    // Spread over 90 days; every 7th order reads the clock a moment before the previous one
    // (ids and orderNos out of step by a few seconds, as concurrent requests can be).
    const at = T0 + Math.floor(i / 10) * DAY + (i % 10) * 3_600_000 - (i % 7 === 0 ? 5_000 : 0);
    newOrders.push({
      ...base,
      merchantId: i % 5 === 0 ? other.id : gw.merchant.id,
      orderNo: `${orderNoFloor("PI", at)}${String(i).padStart(4, "0")}000`,
      merchantOrderNo: `L-${i}`,
      amount: String(1_000_000 + i),
      checkoutToken: `l-${i}`,
      chain: i % 3 === 0 ? "BSC" : "TRON",
      token: i % 4 === 0 ? "USDC" : "USDT",
      status: PAYIN_STATUSES[i % PAYIN_STATUSES.length],
      createdAt: at,
      updatedAt: at,
    });
    newTransfers.push({
      chain: "TRON",
      token: i % 4 === 0 ? "USDC" : "USDT",
      txHash: `tx-${i}`,
      logIndex: 0,
      blockNumber: i,
      blockHash: `b-${i}`,
      // Every 50th seen 8 days after its block (a catch-up): date filters must still find it.
      blockTime: i % 50 === 0 ? at - 8 * DAY : at - 2_000,
      fromAddress: "Tpayer",
      toAddress: base.address,
      addressId: i % 11 === 0 ? null : base.addressId,
      amount: "1000000",
      status: (["pending", "confirmed", "reverted"] as const)[i % 3],
      disposition: ["matched", "unmatched", "attached", "payout_change"][i % 4],
      seenAt: at,
    });
  }
  // Inserted in order (ids follow the loop, as the gateway writes them).
  await insertRows(gw.ctx.db, payinOrders, newOrders);
  await insertRows(gw.ctx.db, transfers, newTransfers);
  orders = await allRows(gw.ctx.db, payinOrders);
  deposits = await allRows(gw.ctx.db, transfers);
});
afterAll(() => gw.stop());

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const FILTERS: [string, Record<string, string>][] = [
  ["nothing", {}],
  ["status", { status: "completed" }],
  ["merchant", { merchant: "OTHER" }],
  ["merchant and status", { merchant: "OTHER", status: "expired" }],
  ["chain", { chain: "BSC" }],
  ["token and status", { token: "USDC", status: "waiting_payment" }],
  ["a date range", { from: day(T0 + 10 * DAY), to: day(T0 + 19 * DAY) }],
  ["from only", { from: day(T0 + 80 * DAY) }],
  ["to only", { to: day(T0 + 3 * DAY) }],
  ["merchant, chain and dates", { merchant: "OTHER", chain: "TRON", from: day(T0 + 5 * DAY), to: day(T0 + 40 * DAY) }],
  ["a range with no order", { from: "2030-01-01" }],
  ["an unknown merchant", { merchant: "NOPE" }],
];

/** Every page of a list, followed to the end. */
async function walk<T extends { id: number }>(page: (before?: number) => Promise<{ rows: T[]; nextBefore: number | null }>): Promise<number[]> {
  const ids: number[] = [];
  let before: number | undefined;
  do {
    const p = await page(before);
    ids.push(...p.rows.map((r) => r.id));
    before = p.nextBefore ?? undefined;
  } while (before !== undefined);
  return ids;
}

describe("pay-ins", () => {
  test.each(FILTERS)("%s: every page equals the plain filter, newest first", async (_name, q) => {
    const query = { ...q, merchant: q.merchant === "OTHER" ? other.uid : q.merchant };
    const f = parseFilter(query, PAYIN_STATUSES);
    const mid = f.merchant === undefined ? undefined : f.merchant === other.uid ? other.id : -1;
    const want = orders
      .filter(
        (o) =>
          (mid === undefined || o.merchantId === mid) &&
          (!f.status || o.status === f.status) &&
          (!f.chain || o.chain === f.chain) &&
          (!f.token || o.token === f.token) &&
          (f.fromMs === undefined || o.createdAt >= f.fromMs) &&
          (f.toMs === undefined || o.createdAt < f.toMs),
      )
      .map((o) => o.id)
      .sort((a, b) => b - a);
    expect(await walk(async (before) => await listPayins(gw.ctx.db, { merchantId: null }, f, { before, limit: 37 }))).toEqual(want);
    expect(await countPayins(gw.ctx.db, { merchantId: null }, f)).toBe(Math.min(want.length, COUNT_CAP + 1));
    // A merchant user sees its own rows only, whatever merchant it asks for.
    const own = orders.filter((o) => o.merchantId === gw.merchant.id).map((o) => o.id);
    const mine = await walk(async (before) => await listPayins(gw.ctx.db, { merchantId: gw.merchant.id }, f, { before }));
    expect(mine.every((id) => own.includes(id))).toBe(true);
  });

  test("the orders at the edges of a date range are in, those a moment outside are out", async () => {
    const from = T0 + 30 * DAY;
    const f = parseFilter({ from: day(from), to: day(from) }, PAYIN_STATUSES);
    const got = await walk(async (before) => await listPayins(gw.ctx.db, { merchantId: null }, f, { before }));
    const want = orders.filter((o) => o.createdAt >= from && o.createdAt < from + DAY).map((o) => o.id);
    expect(got.sort()).toEqual(want.sort());
    expect(got.length).toBe(10);
  });

  test("counts stop at 1,000: one more means more", async () => {
    expect(await countPayins(gw.ctx.db, { merchantId: null }, parseFilter({}, PAYIN_STATUSES))).toBe(900);
    const o = orders[0]!;
    // One statement on either engine: 200 more orders from a recursive count.
    await rawAll(
      gw.ctx.db,
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
       INSERT INTO payin_orders (order_no, merchant_id, merchant_order_no, mode, chain, token, decimals, amount, address_id, address, api_key_id, status, checkout_token, created_at, updated_at)
       SELECT 'PI2099' || i, ?, 'CAP-' || i, 'shared', 'TRON', 'USDT', 6, '1', ?, ?, ?, 'cancelled', 'cap-' || i, ?, ? FROM n`,
      [o.merchantId, o.addressId, o.address, o.apiKeyId, o.createdAt, o.updatedAt],
    );
    expect(await countPayins(gw.ctx.db, { merchantId: null }, parseFilter({}, PAYIN_STATUSES))).toBe(COUNT_CAP + 1);
    await rawAll(gw.ctx.db, "DELETE FROM payin_orders WHERE merchant_order_no LIKE 'CAP-%'");
  });
});

describe("deposits", () => {
  test("some deposits in a date range were seen days after their block", () => {
    const from = T0 + 40 * DAY;
    expect(deposits.filter((t) => t.blockTime >= from && t.blockTime < from + 5 * DAY && t.seenAt >= from + 6 * DAY).length).toBeGreaterThan(0);
  });

  test("a transfer carries its address's merchant; one to no gateway address carries none", () => {
    expect(new Set(deposits.filter((d) => d.addressId).map((d) => d.merchantId))).toEqual(new Set([gw.merchant.id]));
    expect(deposits.filter((d) => !d.addressId).every((d) => d.merchantId === null)).toBe(true);
  });

  const DEPOSIT_FILTERS: [string, Record<string, string>][] = [
    ["nothing", {}],
    ["a transfer status", { status: "reverted" }],
    ["a disposition", { status: "unmatched" }],
    ["merchant", { merchant: "MINE" }],
    ["merchant and disposition", { merchant: "MINE", status: "attached" }],
    ["merchant and status", { merchant: "MINE", status: "pending" }],
    ["token and dates", { token: "USDC", from: day(T0 + 20 * DAY), to: day(T0 + 29 * DAY) }],
    ["dates, with deposits seen late", { from: day(T0 + 40 * DAY), to: day(T0 + 44 * DAY) }],
    ["merchant, status and dates", { merchant: "MINE", status: "confirmed", from: day(T0 + 10 * DAY), to: day(T0 + 50 * DAY) }],
    ["another merchant", { merchant: "OTHER" }],
  ];
  // The growth bench's "deposits, merchant" counted to the cap by reading every row for
  // `address_id IS NOT NULL` (2.2 ms on 2M orders); a merchant implies an address.
  test("a merchant's deposits are counted on its index alone (SQLite: a covering index)", async () => {
    if (isPg(gw.ctx.db)) return;
    const s = countStatement(await depositQuery(gw.ctx.db, { merchantId: null }, parseFilter({ merchant: gw.merchant.uid }, DEPOSIT_STATUSES)));
    const plan = (await rawAll<{ detail: string }>(gw.ctx.db, `EXPLAIN QUERY PLAN ${s.sql}`, s.params)).map((r) => r.detail);
    expect(plan.filter((d) => d.includes("transfers_list_merchant")).length).toBe(3);
    expect(plan.filter((d) => d.includes("transfers_list_merchant")).every((d) => d.includes("COVERING INDEX"))).toBe(true);
  });

  test.each(DEPOSIT_FILTERS)("%s: every page equals the plain filter", async (_name, q) => {
    const query = { ...q, merchant: q.merchant === "MINE" ? gw.merchant.uid : q.merchant === "OTHER" ? other.uid : undefined };
    const f = parseFilter(query, DEPOSIT_STATUSES);
    const mid = f.merchant === undefined ? undefined : f.merchant === gw.merchant.uid ? gw.merchant.id : other.id;
    const st = f.status;
    const want = deposits
      .filter(
        (t) =>
          t.addressId !== null &&
          (mid === undefined || t.merchantId === mid) &&
          (!st || (["pending", "confirmed", "reverted"].includes(st) ? t.status === st : t.disposition === st)) &&
          (!f.token || t.token === f.token) &&
          (f.fromMs === undefined || t.blockTime >= f.fromMs) &&
          (f.toMs === undefined || t.blockTime < f.toMs),
      )
      .map((t) => t.id)
      .sort((a, b) => b - a);
    expect(await walk(async (before) => await listDeposits(gw.ctx.db, { merchantId: null }, f, () => 6, { before, limit: 41 }))).toEqual(want);
    expect(await countDeposits(gw.ctx.db, { merchantId: null }, f)).toBe(Math.min(want.length, COUNT_CAP + 1));
  });
});
