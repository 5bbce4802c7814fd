// Unmatched deposits as records an operator (or the merchant) resolves: refunded by a
// payout, dismissed with a note, attached; scoped to the merchant whose address it reached.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { CLI_ACTOR, listAudit, type Actor } from "../audit/log";
import { TestClock } from "../lib/clock";
import { cancelOrder } from "./operator";
import { attachDeposit, dismissDeposit, getDeposit, listUnmatched, markDepositRefunded } from "./unmatched";
import { giveRefundAddress, refundDeposit } from "../payout/refunds";
import { setPayoutControls } from "../payout/controls";
import { randomAddress } from "../wallet/hd";
import { refusalOf } from "../testing/refusal";

type Obj = Record<string, any>;
const clock = new TestClock(Date.now());
let gw: TestGateway;
let sb: ReturnType<typeof sandboxClient>;
beforeAll(async () => {
  gw = await startTestGateway({ clock, jobs: false, config: { chains: { TRON: { confirmations: 2 } } } });
  sb = sandboxClient(gw.url);
});
afterAll(() => gw.stop());

const PAYER = "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7";
let n = 0;
/** A deposit to one of the merchant's shared addresses that matches nothing (its only order was cancelled). */
async function unmatched(m: Awaited<ReturnType<TestGateway["newMerchant"]>>, amount: string, final = true) {
  const o = await m.client.request<Obj>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `U-${++n}`, amount: "99", notifyUrl: "https://shop.example/cb" },
  });
  await cancelOrder(gw.ctx, o.orderNo, CLI_ACTOR);
  const tx = await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount, fromAddress: PAYER });
  if (final) await sb.mine("TRON", 2);
  const d = (await listUnmatched(gw.ctx, { state: "all", limit: 1000 })).deposits.find((x) => x.txHash === tx.txHash)!;
  return { order: o, deposit: d };
}

test("refunded by a payout of the same merchant, chain and token; the refund cannot be recorded twice", async () => {
  const m = await gw.newMerchant("refunds");
  const { order, deposit } = await unmatched(m, "7.5");
  expect(deposit).toMatchObject({ reason: "no_open_order", status: "confirmed", merchantUid: m.uid, resolution: null });
  const payout = await m.client.request<Obj>("POST", "/openapi/payout/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", fromAddress: order.address, toAddress: PAYER, amount: "7.5", merchantOrderNo: `R-${n}`, notifyUrl: "https://shop.example/po" },
  });
  const other = await gw.newMerchant("someone else");
  await expect((async () => await markDepositRefunded(gw.ctx, deposit.depositId, "PO000", CLI_ACTOR))()).rejects.toThrow("no payout PO000");
  const done = await markDepositRefunded(gw.ctx, deposit.depositId, payout.orderNo, { actor: "alice", role: "operator", ip: "203.0.113.5" });
  expect(done).toMatchObject({ resolution: "refunded", resolutionRef: payout.orderNo });
  await expect((async () => await markDepositRefunded(gw.ctx, deposit.depositId, payout.orderNo, CLI_ACTOR))()).rejects.toThrow("already refunded");
  await expect((async () => await dismissDeposit(gw.ctx, deposit.depositId, "late note", CLI_ACTOR))()).rejects.toThrow("already refunded");
  expect((await listUnmatched(gw.ctx, { merchantId: m.id })).deposits.map((d) => d.depositId)).not.toContain(deposit.depositId);
  expect((await listUnmatched(gw.ctx, { merchantId: m.id, state: "resolved" })).deposits.map((d) => d.depositId)).toContain(deposit.depositId);
  const [entry] = (await listAudit(gw.ctx.db, { target: `deposit:${deposit.depositId}` })).entries;
  expect(entry).toMatchObject({ actor: "alice", ip: "203.0.113.5", action: "deposit.refunded", before: { resolution: null }, after: { resolution: "refunded" } });

  // The same payout cannot refund a second deposit.
  const second = await unmatched(m, "1");
  await expect((async () => await markDepositRefunded(gw.ctx, second.deposit.depositId, payout.orderNo, CLI_ACTOR))()).rejects.toThrow("already recorded as the refund");
  // Another merchant's payout is not a refund of this deposit.
  expect(other.uid).not.toBe(m.uid);
});

test("a deposit that is not final cannot be refunded yet; it can be dismissed with a note", async () => {
  const m = await gw.newMerchant("pending");
  const { deposit } = await unmatched(m, "2", false);
  expect(deposit.status).toBe("pending");
  await expect((async () => await markDepositRefunded(gw.ctx, deposit.depositId, "PO1", CLI_ACTOR))()).rejects.toThrow("not final");
  await expect((async () => await dismissDeposit(gw.ctx, deposit.depositId, "   ", CLI_ACTOR))()).rejects.toThrow("note must not be empty");
  await expect((async () => await dismissDeposit(gw.ctx, deposit.depositId, "bad \ud800", CLI_ACTOR))()).rejects.toThrow("well-formed");
  expect(await dismissDeposit(gw.ctx, deposit.depositId, "shop's own test transfer", CLI_ACTOR)).toMatchObject({ resolution: "dismissed", resolutionNote: "shop's own test transfer" });
});

test("a merchant user sees and resolves only deposits to its own addresses", async () => {
  const a = await gw.newMerchant("A");
  const b = await gw.newMerchant("B");
  const { deposit } = await unmatched(a, "3");
  const asB: Actor = { actor: "bob", role: "merchant" };
  expect((await listUnmatched(gw.ctx, { merchantId: b.id })).deposits).toEqual([]);
  await expect((async () => await getDeposit(gw.ctx, deposit.depositId, { merchantId: b.id }))()).rejects.toThrow(`no unmatched deposit ${deposit.depositId}`);
  await expect((async () => await dismissDeposit(gw.ctx, deposit.depositId, "not mine", asB, { merchantId: b.id }))()).rejects.toThrow("no unmatched deposit");
  const bOrder = await b.client.request<Obj>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "B-1", amount: "3", notifyUrl: "https://shop.example/cb" },
  });
  await expect((async () => await attachDeposit(gw.ctx, deposit.depositId, bOrder.orderNo, asB, { merchantId: b.id }))()).rejects.toThrow("no unmatched deposit");
  // Even the operator cannot move money between addresses by attaching.
  await expect((async () => await attachDeposit(gw.ctx, deposit.depositId, bOrder.orderNo, CLI_ACTOR))()).rejects.toThrow(/reached .* order .* is on/);
  expect((await listUnmatched(gw.ctx, { merchantId: a.id })).deposits.map((d) => d.depositId)).toContain(deposit.depositId);
});

test("attach follows the arrival rules: on time pays it, late freezes or settles it, an order already paid refuses it", async () => {
  const m = await gw.newMerchant("late attach");
  const { order, deposit } = await unmatched(m, "4");
  const o = await m.client.request<Obj>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "LA-1", amount: "4", notifyUrl: "https://shop.example/cb" },
  });
  expect(o.address).toBe(order.address);
  // Exact amount, block before expireAt: paid on time, and final, so completed.
  expect((await attachDeposit(gw.ctx, deposit.depositId, o.orderNo, CLI_ACTOR)).status).toBe("completed");
  const again = await unmatched(m, "4.5");
  await expect((async () => await attachDeposit(gw.ctx, again.deposit.depositId, o.orderNo, CLI_ACTOR))()).rejects.toThrow("cannot attach a deposit to order");

  // Another amount after the order's window: unmatched on arrival; attached, the order freezes,
  // and releasing it gives risk_settled (paid less and late).
  const p = await m.client.request<Obj>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "LA-2", amount: "5", notifyUrl: "https://shop.example/cb" },
  });
  clock.advance(31 * 60_000);
  const tx = await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: p.address, amount: "4.9" });
  await sb.mine("TRON", 2);
  const wrong = (await listUnmatched(gw.ctx, { merchantId: m.id })).deposits.find((d) => d.txHash === tx.txHash)!;
  expect(wrong.reason).toBe("no_open_order");
  expect(await attachDeposit(gw.ctx, wrong.depositId, p.orderNo, CLI_ACTOR)).toMatchObject({ status: "frozen_abnormal", paidAmount: "4900000" });
  const { releaseOrder } = await import("./operator");
  expect((await releaseOrder(gw.ctx, p.orderNo, CLI_ACTOR)).status).toBe("risk_settled");

  // The exact amount after the late window: unmatched on arrival; attached, it settles as risk_settled.
  const q = await m.client.request<Obj>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "LA-3", amount: "7", notifyUrl: "https://shop.example/cb" },
  });
  clock.advance(25 * 60 * 60_000);
  const tx7 = await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: q.address, amount: "7" });
  await sb.mine("TRON", 2);
  const afterWindow = (await listUnmatched(gw.ctx, { merchantId: m.id })).deposits.find((d) => d.txHash === tx7.txHash)!;
  expect(afterWindow.reason).toBe("after_late_window");
  expect(await attachDeposit(gw.ctx, afterWindow.depositId, q.orderNo, CLI_ACTOR)).toMatchObject({ status: "risk_settled", paidAmount: "7000000" });
  const statuses = (gw.ctx.db.$client.query("SELECT order_status AS s FROM callbacks WHERE order_no = ? ORDER BY rowid").all(q.orderNo) as { s: string }[]).map((r) => r.s);
  expect(statuses).toEqual(["waiting_payment", "expired", "risk_settled"]);
});

test("a refund refused outside the API is a RefundRefused by code and parameters (the back office and the payer's page show its words in their language)", async () => {
  const m = await gw.newMerchant("refund refusals");
  const dismissed = (await unmatched(m, "1")).deposit;
  await dismissDeposit(gw.ctx, dismissed.depositId, "a test transfer", CLI_ACTOR);
  const lookAlike = (await unmatched(m, "1")).deposit;
  gw.ctx.db.$client.query("UPDATE transfers SET unmatched_reason = 'counterfeit_token' WHERE id = ?").run(lookAlike.depositId);
  // A refund waiting for the payer's address, whose merchant then turns payouts off; and one that has its address.
  const waiting = (await refundDeposit(gw.ctx, (await unmatched(m, "2")).deposit.depositId, { amount: "1" }, CLI_ACTOR)).refund;
  const given = (await refundDeposit(gw.ctx, (await unmatched(m, "2")).deposit.depositId, { amount: "1" }, CLI_ACTOR)).refund;
  await giveRefundAddress(gw.ctx, given.pageToken!, randomAddress("TRON"));
  await setPayoutControls(gw.ctx.db, m.id, { payoutsEnabled: false }, clock.now());
  const pending = (await unmatched(m, "1", false)).deposit; // last: nothing mines after it
  const refund = (depositId: number) => async () => await refundDeposit(gw.ctx, depositId, { amount: "1", toAddress: PAYER }, CLI_ACTOR);
  const page = (token: string) => async () => await giveRefundAddress(gw.ctx, token, randomAddress("TRON"));
  const cases: Array<[string, () => Promise<unknown>, string, Record<string, unknown>]> = [
    ["an unknown deposit", refund(987_654), "deposit.unknown", { depositId: 987_654 }],
    ["another merchant's deposit", async () => await refundDeposit(gw.ctx, dismissed.depositId, { amount: "1" }, CLI_ACTOR, { merchantId: m.id + 1000 }), "deposit.unknown", { depositId: dismissed.depositId }],
    ["a dismissed deposit", refund(dismissed.depositId), "deposit.resolved", { depositId: dismissed.depositId, resolution: "dismissed" }],
    ["a look-alike token", refund(lookAlike.depositId), "refund.deposit_counterfeit", { depositId: lookAlike.depositId, token: "USDT" }],
    ["a deposit not final yet", refund(pending.depositId), "deposit.not_final", { depositId: pending.depositId, status: "pending" }],
    ["an unknown refund page", page("no-such-token"), "refund.unknown", {}],
    ["a refund that has its address", page(given.pageToken!), "refund.has_address", {}],
    ["a merchant that cannot send it now", page(waiting.pageToken!), "refund.cannot_send", {}],
  ];
  for (const [what, call, code, params] of cases) {
    expect({ what, ...(await refusalOf(call).catch((e: Error) => ({ threw: e.message }))) }).toMatchObject({ what, kind: "RefundRefused", code, params });
  }
});
