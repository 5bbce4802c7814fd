import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { TestClock } from "../lib/clock";
import { attachDeposit, cancelOrder, denySender, freezeOrder, OperatorError, releaseOrder } from "./operator";
import { CLI_ACTOR } from "../audit/log";

type Order = Record<string, any>;
let gw: TestGateway;
let sb: ReturnType<typeof sandboxClient>;
const clock = new TestClock(Date.now());
beforeAll(async () => {
  gw = await startTestGateway({ clock, jobs: false, config: { chains: { TRON: { confirmations: 2 } } } });
  sb = sandboxClient(gw.url);
});
afterAll(() => gw.stop());

let n = 0;
const create = (amount: string) =>
  gw.client.request<Order>("POST", "/openapi/payin/orders", { body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `OP-${++n}`, amount, notifyUrl: "https://shop.example/cb" } });
const get = (orderNo: string) => gw.client.request<Order>("GET", `/openapi/payin/orders/${orderNo}`);
const callbacksOf = (orderNo: string) =>
  (gw.ctx.db.$client.query("SELECT order_status AS s FROM callbacks WHERE order_no = ? ORDER BY created_at, rowid").all(orderNo) as { s: string }[]).map((r) => r.s);

test("cancel a waiting order; a paid one cannot be cancelled", async () => {
  const o = await create("1");
  await cancelOrder(gw.ctx, o.orderNo, CLI_ACTOR);
  expect((await get(o.orderNo)).status).toBe("cancelled");
  expect(callbacksOf(o.orderNo)).toEqual(["waiting_payment", "cancelled"]);
  const p = await create("2");
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: p.address, amount: "2" });
  await expect((async () => await cancelOrder(gw.ctx, p.orderNo, CLI_ACTOR))()).rejects.toThrow(OperatorError);
});

test("freeze, then release once the payment is final: completed", async () => {
  const o = await create("3");
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "3" });
  await freezeOrder(gw.ctx, o.orderNo, "check", CLI_ACTOR);
  await expect((async () => await releaseOrder(gw.ctx, o.orderNo, CLI_ACTOR))()).rejects.toThrow("not final");
  await sb.mine("TRON", 2);
  expect((await get(o.orderNo)).status).toBe("frozen_abnormal");
  await releaseOrder(gw.ctx, o.orderNo, CLI_ACTOR);
  expect((await get(o.orderNo)).status).toBe("completed");
  expect(callbacksOf(o.orderNo)).toEqual(["waiting_payment", "detected", "frozen_abnormal", "completed"]);
});

test("a sender on the deny list freezes the order at detection", async () => {
  const o = await create("4");
  const from = "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8";
  await denySender(gw.ctx, "TRON", from, "stolen funds", CLI_ACTOR);
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "4", fromAddress: from });
  expect((await get(o.orderNo)).status).toBe("frozen_abnormal");
});

test("an unmatched deposit attached to an order of that amount completes it", async () => {
  const gone = await create("5");
  await cancelOrder(gw.ctx, gone.orderNo, CLI_ACTOR);
  const tx = await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: gone.address, amount: "5" });
  await sb.mine("TRON", 2);
  const t = gw.ctx.db.$client.query("SELECT id, unmatched_reason AS reason FROM transfers WHERE tx_hash = ?").get(tx.txHash) as { id: number; reason: string };
  expect(t.reason).toBe("no_open_order");
  const o = await create("5");
  await attachDeposit(gw.ctx, t.id, o.orderNo, CLI_ACTOR);
  expect(await get(o.orderNo)).toMatchObject({ status: "completed", paidAmount: "5.000000", txHash: tx.txHash });
  expect(callbacksOf(o.orderNo)).toEqual(["waiting_payment", "detected", "completed"]);
  await expect((async () => await attachDeposit(gw.ctx, t.id, o.orderNo, CLI_ACTOR))()).rejects.toThrow(OperatorError);
});

test("cancelling a paid frozen order makes its payment a refundable unmatched deposit", async () => {
  const o = await create("6");
  const tx = await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "6.5" });
  expect((await get(o.orderNo)).status).toBe("frozen_abnormal");
  await cancelOrder(gw.ctx, o.orderNo, CLI_ACTOR);
  expect(await get(o.orderNo)).toMatchObject({ status: "cancelled", paidAmount: "6.500000" });
  const t = gw.ctx.db.$client.query("SELECT id, unmatched_reason AS reason, payin_order_id AS orderId FROM transfers WHERE tx_hash = ?").get(tx.txHash);
  expect(t).toMatchObject({ reason: "order_cancelled", orderId: null });
});
