// Issue 36, finding 1, over plain HTTP: the resolution of a held order is computed from what
// happened to it. The reproduction (a BSC USDC pay-in of 10.37 paid 12.41, held; the merchant
// refunds by API first): "Refund the difference" no longer sends the 2.04 a second time, "Accept
// as paid" (and the operator's "Release") is refused with the reason once the refunds leave less
// than the amount, and "Refund all" refunds what is left. The choices' texts state the refunds made.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { backofficeSignIn, type BackofficeClient } from "../testing/backoffice-client";
import { randomAddress } from "../wallet/hd";
import { callbacks, refunds, transfers } from "../db/schema";
import { tableRows } from "../testing/engine-rows";
import { addUser } from "../testing/backoffice-browser";
import type { SandboxChain } from "../chains/sandbox/chain";
import { toBaseUnits } from "../lib/money";

type Obj = Record<string, any>;
let gw: TestGateway;
let sb: ReturnType<typeof sandboxClient>;
let bsc: SandboxChain;
let op: { bo: BackofficeClient; password: string };
let shop: { bo: BackofficeClient; password: string };

beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { chains: { BSC: { confirmations: 2 } } } });
  sb = sandboxClient(gw.url);
  bsc = gw.ctx.chains.get("BSC") as SandboxChain;
  const sign = async (u: { username: string; password: string }) => ({ bo: await backofficeSignIn(gw.url, u), password: u.password });
  op = await sign(await addUser(gw, "r36-op", "operator"));
  shop = await sign(await addUser(gw, "r36-shop", "merchant", gw.merchant.uid));
});
afterAll(() => gw.stop());

let n = 0;
/** The order: BSC USDC 10.37, paid 12.41, final: held (frozen_abnormal, paid over). */
async function heldOrder(): Promise<Obj> {
  const o = await gw.client.createPayinOrder({ chainCode: "BSC", tokenSymbol: "USDC", merchantOrderNo: `r36-${++n}`, amount: "10.37", notifyUrl: "https://shop.example/pi" });
  await sb.transfer({ chainCode: "BSC", tokenSymbol: "USDC", toAddress: o.address, amount: "12.41" });
  await sb.mine("BSC", 3);
  const got = await gw.client.getPayinOrder(o.orderNo);
  expect(got).toMatchObject({ status: "frozen_abnormal" });
  return got;
}
const body = async (r: Response) => (await r.text()).replaceAll("&#x27;", "'").replaceAll("&#39;", "'").replaceAll("&quot;", '"').replaceAll("&amp;", "&");
const page = async (orderNo: string) => body(await shop.bo.get(`/backoffice/orders/${orderNo}`));
const resolve = (orderNo: string, fields: Record<string, string>) => shop.bo.post(`/backoffice/orders/${orderNo}/resolve`, { ...fields, _reauth: shop.password });
const payinCallbacks = async (orderNo: string) => (await tableRows(gw.ctx.db, callbacks, { orderNo })).map((r) => r.status);
const refundTotal = async (orderNo: string) => (await tableRows(gw.ctx.db, refunds, { orderNo })).filter((r) => r.status !== "failed").reduce((s, r) => s + BigInt(r.amount), 0n);
const usdc = (x: string) => toBaseUnits(x, 18);
/** Every refund payout sent and final; what the payer got on chain. */
async function settle(payer: string): Promise<bigint> {
  await gw.gateway.runtime.payouts.tick("BSC");
  await sb.mine("BSC", 3);
  return bsc.tokenBalance(payer, "USDC");
}

describe("a held order resolved after refunds made by API (issue 36)", () => {
  test('the overpayment refunded by API: "Refund the difference" is not offered, and refused if posted; "Accept as paid" completes with 10.37 kept, 2.04 back once', async () => {
    const o = await heldOrder();
    const payer = randomAddress("BSC");
    const r = await gw.client.createRefund(o.orderNo, { refundNo: "over", amount: "2.04", toAddress: payer });
    expect(r.amount).toBe("2.040000");

    const html = await page(o.orderNo);
    expect(html).toContain("Refunds already made: 2.040000 USDC of the 12.410000 USDC received; 10.370000 USDC is kept.");
    expect(html).not.toContain('value="refund_difference"');
    expect(html).toContain("Nothing more is sent back: the 2.040000 USDC already refunded stays refunded and 10.370000 USDC is kept.");
    expect(html).toContain("the 10.370000 USDC left of the 12.410000 USDC received goes back to the payer as a refund (2.040000 USDC was already refunded)");

    const diff = await resolve(o.orderNo, { choice: "refund_difference", note: "paid 2.04 too much", toAddress: payer });
    expect(await body(diff)).toContain("is not a choice for order");
    expect(await refundTotal(o.orderNo)).toBe(usdc("2.04"));
    expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("frozen_abnormal");

    const ok = await resolve(o.orderNo, { choice: "accept", note: "overpayment already refunded" });
    expect(ok.status).toBe(303);
    expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("completed");
    expect(await refundTotal(o.orderNo)).toBe(usdc("2.04"));
    expect(await settle(payer)).toBe(usdc("2.04"));
  });

  test('a part of the overpayment refunded by API: "Refund the difference" sends only the rest (2.04 back in all), the order completed with 10.37 kept', async () => {
    const o = await heldOrder();
    const payer = randomAddress("BSC");
    await gw.client.createRefund(o.orderNo, { refundNo: "part", amount: "0.5", toAddress: payer });
    const html = await page(o.orderNo);
    expect(html).toContain("the 1.540000 USDC still paid over the amount goes back to the payer (0.500000 USDC was already refunded)");
    const r = await resolve(o.orderNo, { choice: "refund_difference", note: "the rest of the overpayment", toAddress: payer });
    expect(r.status).toBe(303);
    expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("completed");
    expect((await gw.client.listRefunds(o.orderNo)).refunds.map((x) => x.amount)).toEqual(["0.500000", "1.540000"]);
    expect(await settle(payer)).toBe(usdc("2.04"));
  });

  test('all of it refunded by API: "Accept as paid" and "Release" are refused with the reason, no completed callback; "Refund all" cancels and sends nothing more', async () => {
    const o = await heldOrder();
    const payer = randomAddress("BSC");
    await gw.client.createRefund(o.orderNo, { refundNo: "all", amount: "12.41", toAddress: payer });
    const reason = "12.410000 USDC was already refunded, so 0.000000 USDC is kept, less than the order amount of 10.370000 USDC: it cannot be accepted as paid.";
    const html = await page(o.orderNo);
    expect(html).toContain(reason);
    expect(html).toMatch(/<input type="radio" id="resolve-accept"[^>]* disabled/);
    expect(html).toContain("Nothing more is sent: the 12.410000 USDC received was all refunded already.");

    const accept = await resolve(o.orderNo, { choice: "accept", note: "keep it" });
    expect(await body(accept)).toContain(reason);
    const release = await op.bo.post(`/backoffice/orders/${o.orderNo}/release`, { _reauth: op.password });
    expect(await body(release)).toContain(reason);
    expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("frozen_abnormal");
    expect(await payinCallbacks(o.orderNo)).not.toContain("completed");

    const all = await resolve(o.orderNo, { choice: "refund_all", note: "all refunded by the shop", toAddress: payer });
    expect(all.status).toBe(303);
    expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("cancelled");
    expect((await gw.client.listRefunds(o.orderNo)).refunds).toHaveLength(1);
    expect((await payinCallbacks(o.orderNo)).at(-1)).toBe("cancelled");
    expect(await settle(payer)).toBe(usdc("12.41"));
  });

  test('a partial refund by API: "Refund all" is offered for what is left and sends it; 12.41 back in all', async () => {
    const o = await heldOrder();
    const payer = randomAddress("BSC");
    await gw.client.createRefund(o.orderNo, { refundNo: "some", amount: "3", toAddress: payer });
    // 9.41 kept < 10.37: accepting is refused with the reason.
    expect(await page(o.orderNo)).toContain("3.000000 USDC was already refunded, so 9.410000 USDC is kept, less than the order amount of 10.370000 USDC: it cannot be accepted as paid.");
    const r = await resolve(o.orderNo, { choice: "refund_all", note: "customer cancelled", toAddress: payer });
    expect(r.status).toBe(303);
    expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("cancelled");
    expect((await gw.client.listRefunds(o.orderNo)).refunds.map((x) => x.amount)).toEqual(["3.000000", "9.410000"]);
    expect(await settle(payer)).toBe(usdc("12.41"));
    // Nothing is refundable any more.
    const more = await gw.client.createRefund(o.orderNo, { refundNo: "more", amount: "0.01", toAddress: payer }).catch((e) => e);
    expect(more.code).toBe(55001);
  });

  test("a cancel after a partial refund keeps the payment the order's: what is left is refundable there, never the whole payment again as an unmatched deposit", async () => {
    const o = await heldOrder();
    const payer = randomAddress("BSC");
    await gw.client.createRefund(o.orderNo, { refundNo: "first", amount: "2.04", toAddress: payer });
    const c = await op.bo.post(`/backoffice/orders/${o.orderNo}/cancel`, {});
    expect(c.status).toBe(303);
    expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("cancelled");
    const over = await gw.client.createRefund(o.orderNo, { refundNo: "rest+", amount: "10.370001", toAddress: payer }).catch((e) => e);
    expect([over.code, over.data?.refundable]).toEqual([55001, "10.370000"]);
    await gw.client.createRefund(o.orderNo, { refundNo: "rest", amount: "10.37", toAddress: payer });
    expect(await settle(payer)).toBe(usdc("12.41"));
    expect((await tableRows(gw.ctx.db, transfers, { txHash: o.txHash })).filter((t) => t.unmatchedReason !== null)).toEqual([]);
  });
});
