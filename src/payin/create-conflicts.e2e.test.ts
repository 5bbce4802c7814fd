// A pay-in create on PostgreSQL meeting another gateway's order (issue 38; the bench's two gateways
// answered 1-2 creates in 2,000 with a 500): newOrderNo is unique per process only, so two gateways
// may draw one order number in one millisecond, and an amount may be opened on the address just
// picked by a transaction that committed after this one read it. The insert then writes nothing
// (its ON CONFLICT covers every unique index) and the create takes a new number and address.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeTx } from "../db/client";
import { callbacks, payinOrders } from "../db/schema";
import { callbackRow } from "../callbacks/outbox";
import { tableRow, tableRows } from "../testing/engine-rows";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { insertSharedPayin, insertSharedPayinWithCallback } from "./orders-store";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, engine: "pg" });
});
afterAll(() => gw.stop());

const create = (merchantOrderNo: string, amount: string) =>
  gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo, amount, notifyUrl: "https://shop.example/cb" });

test("an insert meeting another order's number or an amount open on its address writes nothing and answers null", async () => {
  const o = await create("cc-1", "7");
  const row = (await tableRow(gw.ctx.db, payinOrders, { orderNo: o.orderNo }))!;
  const now = gw.ctx.clock.now();
  const sameNumber = { ...row, merchantOrderNo: "cc-other-1", amount: "8000000", checkoutToken: `${row.checkoutToken}x` };
  const sameAmount = { ...row, orderNo: `${row.orderNo.slice(0, -1)}${(Number(row.orderNo.slice(-1)) + 1) % 10}`, merchantOrderNo: "cc-other-2", checkoutToken: `${row.checkoutToken}y` };
  expect(await writeTx(gw.ctx.db, async (tx) => await insertSharedPayin(tx, sameNumber as never, now))).toBeNull();
  expect(await writeTx(gw.ctx.db, async (tx) => await insertSharedPayin(tx, sameAmount as never, now))).toBeNull();
  expect((await tableRows(gw.ctx.db, payinOrders, {})).map((r) => r.merchantOrderNo)).toEqual(["cc-1"]);
});

// Many creates of one amount at once: src/payin/compare-and-set.e2e.test.ts (both engines): the pool
// grows to shared_pool_size and never past it (its growth holds an advisory lock on PostgreSQL),
// each order on an address of its own, the rest 40105, as on SQLite.

// The create's one statement (orders-store.pg.ts insertSharedPayinWithCallback, issue 38): the free
// pool address, the order and its callback row together, or nothing.
test("the create's one statement writes the order on a free address and its callback, or nothing at all", async () => {
  const first = await create("one-1", "9");
  const row = (await tableRow(gw.ctx.db, payinOrders, { orderNo: first.orderNo }))!;
  const now = gw.ctx.clock.now();
  const callbacksOf = async (orderNo: string) => (await tableRows(gw.ctx.db, callbacks, { orderNo })).map((c) => c.status);
  const attempt = async (r: typeof row, units: bigint, cbId?: string) => {
    const cb = callbackRow({ merchantId: r.merchantId, kind: "payin", orderNo: r.orderNo, status: "waiting_payment", apiKeyId: r.apiKeyId, url: r.notifyUrl, payload: { orderNo: r.orderNo }, now }, "pending");
    return await writeTx(gw.ctx.db, async (tx) => await insertSharedPayinWithCallback(tx, r as never, units, cbId ? { ...cb, id: cbId } : cb, now));
  };
  const fresh = (n: string, amount: bigint) => ({ ...row, orderNo: `PI${n}`, merchantOrderNo: `one-${n}`, amount: amount.toString(), checkoutToken: `${row.checkoutToken}${n}`, addressId: "", address: "" });
  // A new amount: written on the pool's address, with its callback.
  const made = await attempt(fresh("A", 11_000_000n), 11_000_000n);
  expect(made).toEqual({ id: expect.any(Number), addressId: row.addressId, address: row.address, callback: true });
  expect(await callbacksOf("PIA")).toEqual(["waiting_payment"]);
  // The amount open on every pool address (the pool has one): nothing, no callback.
  expect(await attempt(fresh("B", BigInt(row.amount)), BigInt(row.amount))).toBeUndefined();
  // Another order's number: nothing, no callback.
  expect(await attempt({ ...fresh("C", 12_000_000n), orderNo: row.orderNo }, 12_000_000n)).toBeUndefined();
  // This merchantOrderNo's order (a retry): nothing.
  expect(await attempt({ ...fresh("D", 13_000_000n), merchantOrderNo: "one-1" }, 13_000_000n)).toBeUndefined();
  expect(await callbacksOf("PIB")).toEqual([]);
  expect((await tableRows(gw.ctx.db, payinOrders, {})).filter((r) => r.merchantOrderNo.startsWith("one-")).map((r) => r.merchantOrderNo)).toEqual(["one-1", "one-A"]);
  // The callback's id taken: the order is written, `callback` false (the outbox then writes the next occurrence).
  const taken = (await tableRows(gw.ctx.db, callbacks, { orderNo: "PIA" }))[0]!.id;
  expect(await attempt(fresh("E", 14_000_000n), 14_000_000n, taken)).toMatchObject({ callback: false });
  expect(await callbacksOf("PIE")).toEqual([]);
});

test("creates through the API on PostgreSQL: one order and one callback each, retries answered with the same order", async () => {
  const a = await create("api-1", "21");
  const again = await create("api-1", "21");
  expect(again.orderNo).toBe(a.orderNo);
  const b = await create("api-2", "21"); // the same amount: the pool grows, the step-by-step path
  expect(b.address).not.toBe(a.address);
  for (const o of [a, b]) expect((await tableRows(gw.ctx.db, callbacks, { orderNo: o.orderNo })).map((c) => [c.status, c.state])).toEqual([["waiting_payment", expect.any(String)]]);
});
