// Contract of the invoice store, the invoice list, the compatibility orders' store and the
// order-id seek (orders/id-at.ts) on the test engine: SQLite, or PostgreSQL with SG_TEST_DB=pg.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeTx } from "../db/client";
import { addresses, callbackAttempts, callbacks, merchants, payinOrders } from "../db/schema";
import { compatOrderCounts, compatOrdersPage, insertCompatOrder } from "../compat/store";
import { orderNoFloor } from "../lib/ids";
import { ID_MARGIN_MS, orderIdCeiling, orderIdFloor } from "../orders/id-at";
import { openTestDb, type TestDb } from "../testing/engines";
import { insertRows } from "../testing/engine-rows";
import { seedRows } from "../testing/seed";
import { invoiceCallbacks, invoiceNoOf, listInvoices } from "./list";
import { dueOpenInvoiceIds, insertInvoice, invoiceById, invoiceByMerchantOrderNo, invoiceByNo, invoiceByToken, setInvoicePayin, updateInvoiceIf, type NewInvoice } from "./store";

const T = Date.parse("2026-11-29T09:00:00Z");
const HUGE = "123456789012345678901234567.000001"; // a price no float holds
let t: TestDb;
let m1: number;
let m2: number;
beforeAll(async () => {
  t = await openTestDb();
  const ms = await insertRows(t.db, merchants, [
    { uid: "M9100001", name: "One", createdAt: T, updatedAt: T },
    { uid: "M9100002", name: "Two", createdAt: T, updatedAt: T },
  ]);
  [m1, m2] = ms.map((m) => m.id) as [number, number];
  await insertRows(t.db, addresses, [{ id: "a-tron", chain: "TRON", kind: "shared", derivationIndex: 0, address: "TPoolAddr", merchantId: m1, createdAt: T }]);
});
afterAll(async () => await t.close());

let seq = 0;
const invoice = (merchantId: number, over: Partial<NewInvoice> = {}): NewInvoice => {
  const n = ++seq;
  return {
    invoiceNo: `IV20261129090000000000${String(n).padStart(2, "0")}`,
    merchantId,
    merchantOrderNo: `order-${n}`,
    priceAmount: "71.00",
    priceCurrency: "CNY",
    payments: JSON.stringify(["TRON:USDT"]),
    expireMinutes: 30,
    apiKeyId: "key-1",
    pageToken: `page-${n}`,
    invoiceUrl: `https://pay.example/invoice/page-${n}`,
    status: "open",
    expireAt: T + 30 * 60_000,
    createdAt: T + n,
    updatedAt: T + n,
    ...over,
  };
};
let pseq = 0;
const payin = (merchantId: number, orderNo: string, over: Partial<typeof payinOrders.$inferInsert> = {}): typeof payinOrders.$inferInsert => ({
  orderNo,
  merchantId,
  merchantOrderNo: orderNo.toLowerCase(),
  mode: "shared",
  chain: "TRON",
  token: "USDT",
  decimals: 6,
  amount: String(10_000_000 + ++pseq), // one open order per (address, token, amount)
  addressId: "a-tron",
  address: "TPoolAddr",
  apiKeyId: "key-1",
  status: "waiting_payment",
  checkoutToken: `co-${orderNo}`,
  createdAt: T,
  updatedAt: T,
  ...over,
});

describe("invoice store", () => {
  test("insert; a second with the merchant's merchantOrderNo is undefined; every read finds it, another merchant's never", async () => {
    const row = invoice(m1, { priceAmount: HUGE, description: "Blue mug" });
    const a = await writeTx(t.db, async (tx) => await insertInvoice(tx, row));
    expect(a).toMatchObject({ invoiceNo: row.invoiceNo, priceAmount: HUGE, source: "api", payinOrderId: null, paidAt: null });
    expect(await writeTx(t.db, async (tx) => await insertInvoice(tx, invoice(m1, { merchantOrderNo: row.merchantOrderNo })))).toBeUndefined();
    expect(await invoiceByMerchantOrderNo(t.db, m1, row.merchantOrderNo)).toEqual(a!);
    expect(await invoiceByNo(t.db, m1, row.invoiceNo)).toEqual(a!);
    expect(await invoiceByNo(t.db, m2, row.invoiceNo)).toBeUndefined();
    expect(await invoiceByToken(t.db, row.pageToken)).toEqual(a!);
    expect(await invoiceById(t.db, a!.id)).toEqual(a!);
    expect(await invoiceNoOf(t.db, a!.id)).toBe(row.invoiceNo);
    expect(await invoiceNoOf(t.db, 999_999)).toBe("");
  });

  test("updateInvoiceIf is a compare-and-set: of two racers from open, one wins", async () => {
    const a = (await seedRows(t.db, async (tx) => await insertInvoice(tx, invoice(m1))))!;
    const won = await Promise.all(
      (["expired", "cancelled"] as const).map((to) => writeTx(t.db, async (tx) => await updateInvoiceIf(tx, a.id, "open", { status: to, updatedAt: T + 100 }))),
    );
    expect(won.filter(Boolean)).toHaveLength(1);
    expect((await invoiceById(t.db, a.id))!.status).toBe(won.find(Boolean)!.status);
    expect(await writeTx(t.db, async (tx) => await updateInvoiceIf(tx, a.id, "open", { status: "paid" }))).toBeUndefined();
  });

  test("dueOpenInvoiceIds: open, no network chosen, expired before now; oldest first, limited", async () => {
    const now = T + 60 * 60_000;
    const due1 = (await seedRows(t.db, async (tx) => await insertInvoice(tx, invoice(m2, { expireAt: now - 10 }))))!;
    const due2 = (await seedRows(t.db, async (tx) => await insertInvoice(tx, invoice(m2, { expireAt: now - 20 }))))!;
    await seedRows(t.db, async (tx) => await insertInvoice(tx, invoice(m2, { expireAt: now }))); // not before now
    const chosen = (await seedRows(t.db, async (tx) => await insertInvoice(tx, invoice(m2, { expireAt: now - 30 }))))!;
    const [order] = await insertRows(t.db, payinOrders, [payin(m2, "PI20261129090000000000001", { addressId: "a-tron" })]);
    expect((await writeTx(t.db, async (tx) => await setInvoicePayin(tx, chosen.id, order!.id, T + 5))).payinOrderId).toBe(order!.id);
    const due = await dueOpenInvoiceIds(t.db, now, 10);
    expect(due.filter((id) => [due1.id, due2.id, chosen.id].includes(id))).toEqual([due2.id, due1.id]);
    expect(await dueOpenInvoiceIds(t.db, now, 1)).toHaveLength(1);
  });
});

describe("invoice list", () => {
  test("newest first, one merchant's or one invoice, with the chosen network's pay-in and its exact amounts", async () => {
    const inv = (await seedRows(t.db, async (tx) => await insertInvoice(tx, invoice(m1, { createdAt: T + 10_000 }))))!;
    const [o] = await insertRows(t.db, payinOrders, [payin(m1, "PI20261129090000000000002", { amount: "14084508", paidAmount: "14084508", invoiceId: inv.id, status: "completed" })]);
    await seedRows(t.db, async (tx) => await setInvoicePayin(tx, inv.id, o!.id, T + 10_001));
    const mine = await listInvoices(t.db, { merchantId: m1, limit: 50 });
    expect(mine[0]).toMatchObject({ invoiceNo: inv.invoiceNo, merchantUid: "M9100001", network: "TRON USDT", amount: "14.084508", paidAmount: "14.084508", orderNo: o!.orderNo });
    expect(mine.every((r) => r.merchantUid === "M9100001")).toBe(true);
    expect(mine.slice(1).every((r, i) => r.createdAt <= mine[i]!.createdAt)).toBe(true);
    expect(mine.find((r) => r.priceAmount === HUGE)).toMatchObject({ network: null, amount: null, paidAmount: null, orderNo: null });
    expect((await listInvoices(t.db, { invoiceNo: inv.invoiceNo, limit: 5 })).map((r) => r.invoiceNo)).toEqual([inv.invoiceNo]);
    expect(await listInvoices(t.db, { merchantId: m1, limit: 1, offset: 1 })).toEqual([mine[1]!]);
  });

  test("an invoice's callbacks oldest first, each with its attempts", async () => {
    const no = "IV-CALLBACKS";
    const cb = (id: string, at: number) => ({ id, merchantId: m1, kind: "invoice" as const, orderNo: no, status: "open", apiKeyId: "key-1", payload: "{}", state: "delivered", nextAttemptAt: at, createdAt: at, updatedAt: at });
    await insertRows(t.db, callbacks, [cb("cb-b", T + 2), cb("cb-a", T + 1)]);
    const at = (callbackId: string, attemptNo: number) => ({ callbackId, attemptNo, startedAt: T + attemptNo, durationMs: 5, httpStatus: 200 });
    await insertRows(t.db, callbackAttempts, [at("cb-a", 1), at("cb-b", 1), at("cb-a", 2)]);
    const got = await invoiceCallbacks(t.db, no);
    expect(got.map((g) => [g.callback.id, g.attempts.map((a) => a.attemptNo)])).toEqual([["cb-a", [1, 2]], ["cb-b", [1]]]);
    expect(await invoiceCallbacks(t.db, "IV-NONE")).toEqual([]);
  });
});

describe("compatibility orders", () => {
  test("the pay-in and its shop side in one transaction; a merchant's page of one protocol, newest first; counts in windows", async () => {
    const side = (protocol: string, at: number) => ({ protocol, priceAmount: "30.00", priceCurrency: "CNY", rate: "7.10", notifyUrl: "https://shop.example/n", createdAt: at });
    const made = [];
    for (const [i, proto, at] of [[3, "epay", T + 1], [4, "epay", T + 2], [5, "epusdt", T + 3], [6, "epay", T + 3_600_000]] as const) {
      made.push(await writeTx(t.db, async (tx) => await insertCompatOrder(tx, payin(m1, `PI2026112909000000000000${i}`, { compat: proto }), side(proto, at))));
    }
    expect(made[0]!.compat).toMatchObject({ payinOrderId: made[0]!.order.id, protocol: "epay", priceAmount: "30.00" });
    const page = await compatOrdersPage(t.db, m1, "epay", 2, 0);
    expect(page.map((p) => p.order.orderNo)).toEqual([made[3]!.order.orderNo, made[1]!.order.orderNo]);
    expect((await compatOrdersPage(t.db, m1, "epay", 2, 2)).map((p) => p.order.orderNo)).toEqual([made[0]!.order.orderNo]);
    expect(await compatOrdersPage(t.db, m2, "epay", 10, 0)).toEqual([]);
    expect(await compatOrderCounts(t.db, m1, "epay", [[T, T + 3], [T + 3, T + 3_600_001], [0, 1]])).toEqual({ total: 3, within: [2, 1, 0] });
    expect(await compatOrderCounts(t.db, m2, "epusdt", [])).toEqual({ total: 0, within: [] });
  });
});

describe("order ids at a moment (orders/id-at.ts)", () => {
  test("the floor and ceiling ids around a moment follow the orderNos, with the margin", async () => {
    const base = Date.parse("2026-11-30T00:00:00Z");
    const no = (ms: number, n: number) => `${orderNoFloor("PI", ms)}${String(n).padStart(4, "0")}000`;
    const rows = await insertRows(t.db, payinOrders, [0, 1, 2].map((i) => payin(m2, no(base + i * 3 * ID_MARGIN_MS, i), { checkoutToken: `idat-${i}`, merchantOrderNo: `idat-${i}` })));
    const [a, b, c] = rows.map((r) => r.id) as [number, number, number];
    // Every order made at or after the moment has an id >= the floor: one past the last order made a margin before.
    expect(await orderIdFloor(t.db, "payin_orders", base + 3 * ID_MARGIN_MS)).toBe(a + 1);
    expect(await orderIdFloor(t.db, "payin_orders", base + ID_MARGIN_MS / 2)).toBeLessThanOrEqual(a);
    // The ceiling: the first order made a margin after the moment.
    expect(await orderIdCeiling(t.db, "payin_orders", base + ID_MARGIN_MS)).toBe(b);
    expect(await orderIdCeiling(t.db, "payin_orders", base + 4 * ID_MARGIN_MS)).toBe(c);
    expect(await orderIdCeiling(t.db, "payin_orders", base + 7 * ID_MARGIN_MS)).toBeUndefined();
    expect(await orderIdFloor(t.db, "payout_orders", base)).toBe(0);
  });
});
