// Every status change of a pay-in or a refund is a compare-and-set on the status the transition was
// computed from (issues 36, 37: each decision is one transaction that expects a status): a row that
// moved on meanwhile is left as another writer left it, and nothing of the change is written (no
// status, no timeline entry, no callback); the funnel returns the row as it now is.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { writeTx } from "../db/client";
import { payinOrders, refunds } from "../db/schema";
import { applyPayinEvent } from "./service";
import { applyRefundEvent } from "../payout/refund-funnel";
import { sandboxClient } from "../testing/sandbox";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false });
});
afterAll(() => gw.stop());

const count = (sql: string, arg: string) => (gw.ctx.db.$client.query(sql).get(arg) as { n: number }).n;
const changes = (orderNo: string) => [count("SELECT count(*) AS n FROM callbacks WHERE order_no = ?", orderNo), count("SELECT count(*) AS n FROM order_events WHERE order_no = ?", orderNo)];

test("a pay-in whose status moved on since it was read: the transition writes nothing and returns the row as it is", async () => {
  const o = await gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "cas-1", amount: "3", notifyUrl: "https://shop.example/pi" });
  const stale = gw.ctx.db.select().from(payinOrders).where(eq(payinOrders.orderNo, o.orderNo)).get()!;
  await writeTx(gw.ctx.db, async (tx) => await applyPayinEvent(tx, stale, { type: "cancel" }, {}, gw.ctx.clock.now()));
  const before = changes(o.orderNo);
  expect((await writeTx(gw.ctx.db, async (tx) => await applyPayinEvent(tx, stale, { type: "freeze" }, {}, gw.ctx.clock.now()))).status).toBe("cancelled");
  expect(gw.ctx.db.select().from(payinOrders).where(eq(payinOrders.orderNo, o.orderNo)).get()!.status).toBe("cancelled");
  expect(changes(o.orderNo)).toEqual(before);
});

test("a refund whose status moved on since it was read: the transition writes nothing and returns the row as it is", async () => {
  const sb = sandboxClient(gw.url);
  const o = await gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "cas-2", amount: "4", notifyUrl: "https://shop.example/pi" });
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "4" });
  await sb.mine("TRON", 25);
  expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("completed");
  await gw.client.createRefund(o.orderNo, { refundNo: "cas", amount: "1" });
  const stale = gw.ctx.db.select().from(refunds).where(eq(refunds.orderNo, o.orderNo)).get()!;
  expect(stale.status).toBe("awaiting_address");
  await writeTx(gw.ctx.db, async (tx) => await applyRefundEvent(tx, stale, { type: "address_given" }, {}, gw.ctx.clock.now()));
  const before = changes(stale.refundRef);
  expect((await writeTx(gw.ctx.db, async (tx) => await applyRefundEvent(tx, stale, { type: "address_given" }, {}, gw.ctx.clock.now()))).status).not.toBe("awaiting_address");
  expect(changes(stale.refundRef)).toEqual(before);
});
