// Refunds on the sandbox (DESIGN 20): the API, the view, the callbacks, the payer's address, the
// bad input that writes nothing, a refund sent as a payout from the receiving address first, and
// a "Refund all" whose payout failed sent again on the cancelled order (docs/money-that-does-not-match.md).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { apiError, startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import type { StablegateClient } from "../sdk/client";
import type { SandboxChain } from "../chains/sandbox/chain";
import { addresses, callbacks, payinOrders, payoutOrders, refunds } from "../db/schema";
import { tableRow, tableRows } from "../testing/engine-rows";
import { randomAddress } from "../wallet/hd";
import { toBaseUnits } from "../lib/money";
import { RefundCallbackPayload } from "./refund-schemas";
import { giveRefundAddress, RefundRefused } from "./refunds";
import { addressBalance } from "./balances";
import { resolveFrozen } from "../payin/resolve";
import { cancelOrder } from "../payin/operator";

type Obj = Record<string, any>;
let gw: TestGateway;
let sb: ReturnType<typeof sandboxClient>;
let tron: SandboxChain;

beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { chains: { TRON: { confirmations: 3 }, BSC: { confirmations: 3 } } } });
  sb = sandboxClient(gw.url);
  tron = gw.ctx.chains.get("TRON") as SandboxChain;
});
afterAll(() => gw.stop());

const err = apiError;

let n = 0;
/** A TRON USDT order of `amount`, paid `paid` and mined to its confirmations. */
async function paidOrder(client: StablegateClient, amount: string, paid = amount): Promise<Obj> {
  const o = await client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `rf-${++n}`, amount, notifyUrl: "https://shop.example/pi" });
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: paid });
  await sb.mine("TRON", 4);
  return { ...o, ...(await client.getPayinOrder(o.orderNo)) };
}
const refundRows = async () => (await tableRows(gw.ctx.db, refunds)).length;
const payoutRows = async () => (await tableRows(gw.ctx.db, payoutOrders)).length;
/** The callbacks of an order number in the order they were written (seq, then insertion order). */
const callbackRows = async (orderNo: string) => (await tableRows(gw.ctx.db, callbacks, { orderNo })).sort((a, b) => a.seq - b.seq);
const refundCallbacks = async (refundRef: string) =>
  (await callbackRows(refundRef)).map((r) => ({ kind: r.kind, status: r.status, payload: JSON.parse(r.payload) as Obj }));
const refundRef = async (payoutOrderNo: string) => (await tableRow(gw.ctx.db, refunds, { payoutOrderNo }))!.refundRef;
const available = async (address: string) => {
  const id = (await tableRow(gw.ctx.db, addresses, { address }))!.id;
  return (await addressBalance(gw.ctx.db, id, "USDT")).available;
};

describe("refunds on the sandbox", () => {
  test("a completed order refunded in part: sent from its receiving address, the view per DESIGN 20, refund callbacks on every change and no payout callback", async () => {
    const m = await gw.newMerchant("refunder");
    const o = await paidOrder(m.client, "10");
    expect(o.status).toBe("completed");
    const to = randomAddress("TRON");
    const r = await m.client.createRefund(o.orderNo, { refundNo: "R-1", amount: "4", toAddress: to, notifyUrl: "https://shop.example/rf" });
    expect(Object.keys(r).sort()).toEqual(["amount", "createdAt", "orderNo", "payoutOrderNo", "refundNo", "refundUrl", "status", "toAddress", "txHash"]);
    expect(r).toMatchObject({ refundNo: "R-1", orderNo: o.orderNo, amount: "4.000000", toAddress: to, status: "broadcasted", refundUrl: null });
    expect(r.payoutOrderNo).toMatch(/^PO\d{24}$/);
    expect(r.txHash).toMatch(/^[0-9a-f]{64}$/);
    const p = (await tableRow(gw.ctx.db, payoutOrders, { orderNo: r.payoutOrderNo! }))!;
    expect(p.fromAddress).toBe(o.address);
    expect(await tron.tokenBalance(to, "USDT")).toBe(toBaseUnits("4", 6));
    expect(await available(o.address)).toBe(toBaseUnits("6", 6));

    await sb.mine("TRON", 3);
    const list = await m.client.listRefunds(o.orderNo);
    expect(list.refunds).toEqual([{ ...r, status: "confirmed" }]);

    const ref = await refundRef(r.payoutOrderNo!);
    const cbs = await refundCallbacks(ref);
    expect(cbs.map((c) => [c.kind, c.status])).toEqual([["refund", "submitted"], ["refund", "broadcasted"], ["refund", "confirmed"]]);
    for (const c of cbs) expect([...Value.Errors(RefundCallbackPayload, c.payload)].map((e) => e.path)).toEqual([]);
    expect(cbs[2]!.payload).toMatchObject({ merchantUid: m.uid, businessType: "refund", refundNo: "R-1", orderNo: o.orderNo, status: "confirmed", txHash: r.txHash, payoutOrderNo: r.payoutOrderNo });
    expect((await callbackRows(r.payoutOrderNo!)).length).toBe(0);
    // The order itself is unchanged, and the rest is refundable.
    expect((await m.client.getPayinOrder(o.orderNo)).status).toBe("completed");
    const rest = await m.client.createRefund(o.orderNo, { refundNo: "R-2", amount: "6", toAddress: to });
    expect(rest.status).toBe("broadcasted");
    expect(await tron.outgoingCount(o.address)).toBe(2);
  });

  test("bad input gets its code and writes nothing: over the refundable amount, an unpaid order, the merchant's own address, a refundNo reused with another body, an invalid address", async () => {
    const m = await gw.newMerchant("bad-refunds");
    const o = await paidOrder(m.client, "5");
    const to = randomAddress("TRON");
    const first = await m.client.createRefund(o.orderNo, { refundNo: "B-1", amount: "2", toAddress: to });
    const before = [await refundRows(), await payoutRows(), await tron.outgoingCount(o.address)];

    const over = await err(m.client.createRefund(o.orderNo, { refundNo: "B-2", amount: "3.000001", toAddress: to }));
    expect([over.httpStatus, over.code, over.data]).toEqual([422, 55001, { orderNo: o.orderNo, refundable: "3.000000" }]);

    const unpaid = await m.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `rf-unpaid-${++n}`, amount: "5", notifyUrl: "https://shop.example/pi" });
    const e2 = await err(m.client.createRefund(unpaid.orderNo, { refundNo: "B-3", amount: "1", toAddress: to }));
    expect([e2.httpStatus, e2.code]).toEqual([409, 55002]);

    const own = await err(m.client.createRefund(o.orderNo, { refundNo: "B-4", amount: "1", toAddress: o.address }));
    expect([own.httpStatus, own.code]).toEqual([422, 54003]);
    const ownAwaiting = await err(m.client.createRefund(o.orderNo, { refundNo: "B-4b", amount: "1", toAddress: unpaid.address }));
    expect(ownAwaiting.code).toBe(54003);

    const reused = await err(m.client.createRefund(o.orderNo, { refundNo: "B-1", amount: "2.5", toAddress: to }));
    expect([reused.httpStatus, reused.code]).toEqual([409, 55003]);
    const reusedNoAddress = await err(m.client.createRefund(o.orderNo, { refundNo: "B-1", amount: "2" }));
    expect(reusedNoAddress.code).toBe(55003);
    // The same body returns the same refund.
    const again = await m.client.createRefund(o.orderNo, { refundNo: "B-1", amount: "2", toAddress: to });
    expect(again).toEqual(first);

    const bad = await err(m.client.createRefund(o.orderNo, { refundNo: "B-5", amount: "1", toAddress: randomAddress("BSC") }));
    expect([bad.httpStatus, bad.code]).toEqual([400, 10001]);
    const zero = await err(m.client.createRefund(o.orderNo, { refundNo: "B-6", amount: "0" }));
    expect(zero.code).toBe(10001);
    const unknown = await err(m.client.createRefund("PI00000000000000000000000000", { refundNo: "B-7", amount: "1" }));
    expect([unknown.httpStatus, unknown.code]).toEqual([404, 40108]);
    // Another merchant's order does not exist for this one.
    const other = await gw.newMerchant("bad-refunds-other");
    expect((await err(other.client.createRefund(o.orderNo, { refundNo: "B-8", amount: "1", toAddress: to }))).code).toBe(40108);
    expect((await err(other.client.listRefunds(o.orderNo))).code).toBe(40108);

    expect([await refundRows(), await payoutRows(), await tron.outgoingCount(o.address)]).toEqual(before);
  });

  test("without toAddress: awaiting_address with a refundUrl; the payer's address (validated, not the merchant's own) sends it", async () => {
    const m = await gw.newMerchant("link-refunds");
    const o = await paidOrder(m.client, "8");
    const r = await m.client.createRefund(o.orderNo, { refundNo: "L-1", amount: "8" });
    expect(r).toMatchObject({ status: "awaiting_address", toAddress: null, payoutOrderNo: null, txHash: null });
    expect(r.refundUrl).toMatch(new RegExp(`^${gw.ctx.publicUrl}/refund/[A-Za-z0-9_-]+$`));
    // The whole paid amount is taken by the waiting refund.
    expect((await err(m.client.createRefund(o.orderNo, { refundNo: "L-2", amount: "0.000001" }))).code).toBe(55001);

    const token = r.refundUrl!.split("/refund/")[1]!;
    await expect((async () => await giveRefundAddress(gw.ctx, token, "not-an-address"))()).rejects.toThrow();
    await expect((async () => await giveRefundAddress(gw.ctx, token, o.address))()).rejects.toThrow();
    expect((await m.client.listRefunds(o.orderNo)).refunds[0]!.status).toBe("awaiting_address");
    const to = randomAddress("TRON");
    const { payout } = await giveRefundAddress(gw.ctx, token, to);
    await expect((async () => await giveRefundAddress(gw.ctx, token, to))()).rejects.toThrow(RefundRefused);
    await gw.gateway.runtime.payouts.attempt(payout!.id);
    await sb.mine("TRON", 3);
    const [done] = (await m.client.listRefunds(o.orderNo)).refunds;
    expect(done).toMatchObject({ status: "confirmed", toAddress: to, refundUrl: r.refundUrl, amount: "8.000000" });
    expect(await tron.tokenBalance(to, "USDT")).toBe(toBaseUnits("8", 6));
    const ref = await refundRef(done!.payoutOrderNo!);
    expect((await refundCallbacks(ref)).map((c) => c.status)).toEqual(["awaiting_address", "submitted", "broadcasted", "confirmed"]);
  });

  test("a paid frozen order (paid short) is refundable in full; a refund the receiving address cannot cover comes from another address", async () => {
    const m = await gw.newMerchant("frozen-refunds");
    const o = await paidOrder(m.client, "10", "9.5");
    expect(o).toMatchObject({ status: "frozen_abnormal", paidAmount: "9.500000" });
    expect((await err(m.client.createRefund(o.orderNo, { refundNo: "F-0", amount: "10", toAddress: randomAddress("TRON") }))).code).toBe(55001);
    // Another, richer address of the merchant; the receiving address spends first while it covers the amount.
    const b = await m.client.createExclusiveBinding({ chainCode: "TRON", tokenSymbol: "USDT", bindKey: "rich" });
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount: "100" });
    await sb.mine("TRON", 4);
    const a = await m.client.createRefund(o.orderNo, { refundNo: "F-1", amount: "1", toAddress: randomAddress("TRON") });
    expect((await tableRow(gw.ctx.db, payoutOrders, { orderNo: a.payoutOrderNo! }))!.fromAddress).toBe(o.address);
    // The merchant pays out most of the receiving address's balance: the rest of the refund comes from the other address.
    await m.client.createPayoutOrder({ chainCode: "TRON", tokenSymbol: "USDT", fromAddress: o.address, toAddress: randomAddress("TRON"), amount: "8", merchantOrderNo: "drain", notifyUrl: "https://shop.example/po" });
    const c = await m.client.createRefund(o.orderNo, { refundNo: "F-2", amount: "8.5", toAddress: randomAddress("TRON") });
    expect(c.status).toBe("broadcasted");
    expect((await tableRow(gw.ctx.db, payoutOrders, { orderNo: c.payoutOrderNo! }))!.fromAddress).toBe(b.address);
    expect((await err(m.client.createRefund(o.orderNo, { refundNo: "F-3", amount: "0.000001" }))).code).toBe(55001);
  });

  test('"Refund all" whose payout fails: the cancelled order stays refundable for what is left; a second refund pays it once, a third is 55001', async () => {
    const m = await gw.newMerchant("refund-all-retry");
    const o = await paidOrder(m.client, "10", "9.5");
    expect(o).toMatchObject({ status: "frozen_abnormal", paidAmount: "9.500000" });
    // The money left the receiving address on chain (its ledger still holds it): the node refuses the refund for good.
    const away = await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", fromAddress: o.address, toAddress: randomAddress("TRON"), amount: "9.5" });
    const payer = randomAddress("TRON");
    const resolved = await resolveFrozen(gw.ctx, o.orderNo, "refund_all", { note: "paid short: the customer wants it back", toAddress: payer }, { actor: "refund-op", role: "operator" });
    expect(resolved.order.status).toBe("cancelled");
    const failed = await gw.gateway.runtime.payouts.attempt(resolved.refund!.payout!.id);
    expect(failed).toMatchObject({ status: "failed", failedStage: "broadcast", lastError: "insufficient token balance" });
    const [first] = (await m.client.listRefunds(o.orderNo)).refunds;
    expect(first).toMatchObject({ refundNo: resolved.refund!.refund.refundNo, amount: "9.500000", toAddress: payer, status: "failed", txHash: null });
    expect((await refundCallbacks(await refundRef(first!.payoutOrderNo!))).map((c) => c.status)).toEqual(["submitted", "failed"]);
    // The failed refund keeps why (the back office shows it).
    expect((await tableRow(gw.ctx.db, refunds, { payoutOrderNo: first!.payoutOrderNo! }))!.lastError).toBe("insufficient token balance");

    // The money is back on the receiving address: the blocks from the one that took it are dropped.
    await sb.reorg("TRON", await tron.height() - away.blockNumber + 1);
    expect(await tron.tokenBalance(o.address, "USDT")).toBe(toBaseUnits("9.5", 6));
    // Still cancelled, and refundable again for what the failed refund did not send: never more.
    expect((await m.client.getPayinOrder(o.orderNo)).status).toBe("cancelled");
    const before = [await refundRows(), await payoutRows()];
    const over = await err(m.client.createRefund(o.orderNo, { refundNo: "RA-2", amount: "9.500001", toAddress: payer }));
    expect([over.httpStatus, over.code, over.data]).toEqual([422, 55001, { orderNo: o.orderNo, refundable: "9.500000" }]);
    expect([await refundRows(), await payoutRows()]).toEqual(before);
    const second = await m.client.createRefund(o.orderNo, { refundNo: "RA-2", amount: "9.5", toAddress: payer });
    expect(second).toMatchObject({ refundNo: "RA-2", amount: "9.500000", toAddress: payer, status: "broadcasted" });
    // Idempotent per refundNo: the same body returns the same refund, nothing is sent twice.
    expect(await m.client.createRefund(o.orderNo, { refundNo: "RA-2", amount: "9.5", toAddress: payer })).toEqual(second);
    await sb.mine("TRON", 3);
    expect(await tron.tokenBalance(payer, "USDT")).toBe(toBaseUnits("9.5", 6));
    expect(await tron.outgoingCount(o.address)).toBe(1);
    expect(await available(o.address)).toBe(0n);
    expect((await refundCallbacks(await refundRef(second.payoutOrderNo!))).map((c) => c.status)).toEqual(["submitted", "broadcasted", "confirmed"]);
    const third = await err(m.client.createRefund(o.orderNo, { refundNo: "RA-3", amount: "0.000001", toAddress: payer }));
    expect([third.httpStatus, third.code, third.data]).toEqual([422, 55001, { orderNo: o.orderNo, refundable: "0.000000" }]);
    expect((await m.client.listRefunds(o.orderNo)).refunds.map((r) => [r.refundNo, r.status])).toEqual([[first!.refundNo, "failed"], ["RA-2", "confirmed"]]);
    expect((await m.client.getPayinOrder(o.orderNo)).status).toBe("cancelled");
  });

  test("refund callbacks go to the refund's notifyUrl, else the order's, else the merchant's default (held until there is one), like every other callback", async () => {
    const m = await gw.newMerchant("refund-callback-url");
    const o = await paidOrder(m.client, "6");
    const own = await m.client.createRefund(o.orderNo, { refundNo: "U-1", amount: "1", toAddress: randomAddress("TRON"), notifyUrl: "https://shop.example/rf" });
    const fallback = await m.client.createRefund(o.orderNo, { refundNo: "U-2", amount: "1", toAddress: randomAddress("TRON") });
    const urls = async (refundNo: string) => {
      const ref = (await tableRow(gw.ctx.db, refunds, { refundNo, orderNo: o.orderNo }))!.refundRef;
      return (await callbackRows(ref)).map((c) => ({ url: c.url, state: c.state }));
    };
    expect(own.status).toBe("broadcasted");
    expect(new Set((await urls("U-1")).map((c) => c.url))).toEqual(new Set(["https://shop.example/rf"]));
    expect(fallback.status).toBe("broadcasted");
    expect(new Set((await urls("U-2")).map((c) => c.url))).toEqual(new Set(["https://shop.example/pi"]));
    // A binding's deposit order without notifyUrl: the merchant's default, none set yet: held, never dropped.
    const b = await m.client.createExclusiveBinding({ chainCode: "TRON", tokenSymbol: "USDT", bindKey: "no-url" });
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount: "3" });
    await sb.mine("TRON", 4);
    const dep = (await tableRow(gw.ctx.db, payinOrders, { address: b.address, status: "completed" }))!;
    await m.client.createRefund(dep.orderNo, { refundNo: "U-3", amount: "3", toAddress: randomAddress("TRON") });
    const ref = (await tableRow(gw.ctx.db, refunds, { orderNo: dep.orderNo }))!.refundRef;
    const held = (await callbackRows(ref)).map((c) => ({ url: c.url, state: c.state }));
    expect(held.length).toBeGreaterThan(0);
    for (const c of held) expect(c).toEqual({ url: null, state: "held" });
  });

  test("a cancelled order without its payment stays 55002: cancelled unpaid, or cancelled without a refund (its payment is an unmatched deposit)", async () => {
    const m = await gw.newMerchant("cancelled-refunds");
    const op = { actor: "refund-op", role: "operator" };
    const unpaid = await m.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `rf-cancel-${++n}`, amount: "3", notifyUrl: "https://shop.example/pi" });
    await cancelOrder(gw.ctx, unpaid.orderNo, op);
    const short = await paidOrder(m.client, "10", "9");
    expect(short.status).toBe("frozen_abnormal");
    await cancelOrder(gw.ctx, short.orderNo, op);
    const before = [await refundRows(), await payoutRows()];
    for (const o of [unpaid, short]) {
      expect((await m.client.getPayinOrder(o.orderNo)).status).toBe("cancelled");
      const e = await err(m.client.createRefund(o.orderNo, { refundNo: "C-1", amount: "1", toAddress: randomAddress("TRON") }));
      expect([e.httpStatus, e.code]).toEqual([409, 55002]);
    }
    expect([await refundRows(), await payoutRows()]).toEqual(before);
  });
});
