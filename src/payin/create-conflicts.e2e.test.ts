// A pay-in create on PostgreSQL meeting another gateway's order (issue 38; the bench's two gateways
// answered 1-2 creates in 2,000 with a 500): newOrderNo is unique per process only, so two gateways
// may draw one order number in one millisecond, and an amount may be opened on the address just
// picked by a transaction that committed after this one read it. The insert then writes nothing
// (its ON CONFLICT covers every unique index) and the create takes a new number and address.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeTx } from "../db/client";
import { payinOrders } from "../db/schema";
import { tableRow, tableRows } from "../testing/engine-rows";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { insertSharedPayin } from "./orders-store";

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
