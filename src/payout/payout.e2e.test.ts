import { Value } from "@sinclair/typebox/value";
import { PayoutCallbackPayload } from "./schemas";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { apiError, startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { ApiError, type StablegateClient } from "../sdk/client";
import { SandboxChain } from "../chains/sandbox/chain";
import { addresses, callbacks, ledgerEntries, payoutOrders } from "../db/schema";
import { insertRows, tableRow, tableRows } from "../testing/engine-rows";
import { gasWallet } from "../wallet/addresses";
import { randomAddress } from "../wallet/hd";
import { toBaseUnits } from "../lib/money";
import { addressBalance, openDiscrepancies, reconcileChain } from "./balances";
import { adjustFeeBalance, getPayoutControls, setPayoutControls } from "./controls";

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
/** A fresh exclusive address of the merchant holding `amount` final on chain. */
async function funded(client: StablegateClient, amount: string, chainCode = "TRON", tokenSymbol = "USDT"): Promise<string> {
  const b = await client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode, tokenSymbol, bindKey: `fund-${++n}` } });
  await sb.transfer({ chainCode, tokenSymbol, toAddress: b.address, amount });
  await sb.mine(chainCode, 2);
  return b.address;
}
const payout = (client: StablegateClient, body: Obj) =>
  client.request<Obj>("POST", "/openapi/payout/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `PO-${++n}`, notifyUrl: "https://shop.example/po", ...body },
  });
const get = (client: StablegateClient, orderNo: string) => client.request<Obj>("GET", `/openapi/payout/orders/${orderNo}`);
const submit = (client: StablegateClient, orderNo: string, remark = "retry") => client.request<Obj>("POST", `/openapi/payout/orders/${orderNo}/submit`, { body: { remark } });
const addressRow = async (address: string) => (await tableRow(gw.ctx.db, addresses, { address }))!;
const addressId = async (address: string) => (await addressRow(address)).id;
const available = async (address: string, token = "USDT") => (await addressBalance(gw.ctx.db, await addressId(address), token)).available;
/** The order's callbacks in the order they were written (seq, then insertion order). */
const callbacksOf = async (orderNo: string) =>
  (await tableRows(gw.ctx.db, callbacks, { orderNo }))
    .sort((a, b) => a.seq - b.seq)
    .map((r) => ({ status: r.status, payload: JSON.parse(r.payload) as Obj }));

describe("payouts on the sandbox", () => {
  test("a funded address pays out: broadcasted, confirmed, callbacks in order, balances move by exactly the amount, fee from the fee balance", async () => {
    const m = await gw.newMerchant("payer");
    await setPayoutControls(gw.ctx.db, m.id, { payoutFeeFixed: "0.5", payoutFeeRate: "0.01" }, Date.now());
    await adjustFeeBalance(gw.ctx.db, m.id, "10", { ref: "topup-1", now: Date.now() });
    const from = await funded(m.client, "100");
    expect(await available(from)).toBe(toBaseUnits("100", 6));
    const to = randomAddress("TRON");

    const o = await payout(m.client, { fromAddress: from, toAddress: to, amount: "30.25" });
    expect(o).toMatchObject({ status: "broadcasted", fromAddress: from, toAddress: to, amount: "30.250000", fee: "0.802500", failedStage: null, deleteSourceAfterSuccess: false });
    expect(o.orderNo).toMatch(/^PO\d{24}$/);
    expect(o.txHash).toMatch(/^[0-9a-f]{64}$/);
    expect(await tron.tokenBalance(to, "USDT")).toBe(toBaseUnits("30.25", 6));
    // Reserved while unfinished.
    expect(await available(from)).toBe(toBaseUnits("69.75", 6));
    expect((await getPayoutControls(gw.ctx.db, m.id)).feeBalance).toBe("10.000000");

    await sb.mine("TRON", 2);
    const q = await get(m.client, o.orderNo);
    expect(q).toMatchObject({ status: "confirmed", txHash: o.txHash, failedStage: null, lastError: null });
    for (const k of ["createdAt", "submittedAt", "broadcastedAt", "confirmedAt"]) expect(q[k]).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(q.failedAt).toBeNull();

    const cbs = await callbacksOf(o.orderNo);
    expect(cbs.map((c) => c.status)).toEqual(["submitted", "broadcasted", "confirmed"]);
    // Every body is what the OpenAPI document promises.
    for (const c of cbs) expect([...Value.Errors(PayoutCallbackPayload, c.payload)].map((e) => e.path)).toEqual([]);
    expect(cbs[2].payload).toMatchObject({
      merchantUid: m.uid,
      orderNo: o.orderNo,
      merchantOrderNo: o.merchantOrderNo,
      chainCode: "TRON",
      tokenSymbol: "USDT",
      fromAddress: from,
      toAddress: to,
      txHash: o.txHash,
      amount: "30.250000",
      status: "confirmed",
    });
    expect(cbs[0].payload.txHash).toBeNull();

    const bal = await addressBalance(gw.ctx.db, await addressId(from), "USDT");
    expect(bal).toEqual({ ledger: toBaseUnits("69.75", 6), reserved: 0n, available: toBaseUnits("69.75", 6) });
    expect(await tron.tokenBalance(from, "USDT")).toBe(toBaseUnits("69.75", 6));
    expect((await getPayoutControls(gw.ctx.db, m.id)).feeBalance).toBe("9.197500");
    expect(await tron.outgoingCount(from)).toBe(1);
    expect(await reconcileChain(gw.ctx, tron)).toEqual([]);
  });

  test("idempotent create: same fields give the same order; a changed field, deleteSourceAfterSuccess included, is 10001", async () => {
    const from = await funded(gw.client, "10");
    const body = { fromAddress: from, toAddress: randomAddress("TRON"), amount: "1", merchantOrderNo: "IDEM-PO-1", deleteSourceAfterSuccess: false };
    const a = await payout(gw.client, body);
    const b = await payout(gw.client, body);
    expect(b.orderNo).toBe(a.orderNo);
    const { deleteSourceAfterSuccess: _, ...withoutFlag } = body;
    expect((await payout(gw.client, withoutFlag)).orderNo).toBe(a.orderNo);
    const e = await err(payout(gw.client, { ...body, deleteSourceAfterSuccess: true }));
    expect([e.httpStatus, e.code]).toEqual([400, 10001]);
    expect(e.data).toMatchObject({ fields: { deleteSourceAfterSuccess: expect.any(String) } });
    const e2 = await err(payout(gw.client, { ...body, amount: "2" }));
    expect(e2.data).toMatchObject({ fields: { amount: expect.any(String) } });
    expect(await tron.outgoingCount(from)).toBe(1);
  });

  test("a transient broadcast failure leaves the order submitted; submit sends it, it confirms; submit again is 54002", async () => {
    const from = await funded(gw.client, "10");
    await sb.faults("TRON", 1);
    const o = await payout(gw.client, { fromAddress: from, toAddress: randomAddress("TRON"), amount: "4" });
    expect(o).toMatchObject({ status: "submitted", txHash: null, failedStage: null });
    expect(o.lastError).toContain("sandbox fault");
    expect(await tron.outgoingCount(from)).toBe(0);
    // A tick does not retry an order whose attempt recorded an error.
    await sb.mine("TRON", 1);
    expect((await get(gw.client, o.orderNo)).status).toBe("submitted");

    const s = await submit(gw.client, o.orderNo);
    expect(s).toMatchObject({ orderNo: o.orderNo, status: "broadcasted", lastError: null });
    await sb.mine("TRON", 2);
    expect(await get(gw.client, o.orderNo)).toMatchObject({ status: "confirmed" });
    expect(await tron.outgoingCount(from)).toBe(1);
    const e = await err(submit(gw.client, o.orderNo));
    expect([e.httpStatus, e.code]).toEqual([409, 54002]);
    expect((await callbacksOf(o.orderNo)).map((c) => c.status)).toEqual(["submitted", "broadcasted", "confirmed"]);
  });

  test("a broadcast reported as failed that reached the chain anyway is followed to confirmed, sent once", async () => {
    const from = await funded(gw.client, "10");
    await sb.faults("TRON", 1);
    const o = await payout(gw.client, { fromAddress: from, toAddress: randomAddress("TRON"), amount: "3" });
    expect(o.status).toBe("submitted");
    // The node took the stored transaction after all (e.g. the answer timed out on the way back).
    const row = (await tableRow(gw.ctx.db, payoutOrders, { orderNo: o.orderNo }))!;
    expect(await tron.broadcast({ txHash: row.txHash!, raw: row.signedTx!, meta: {} })).toEqual({ ok: true });
    await sb.mine("TRON", 2);
    expect(await get(gw.client, o.orderNo)).toMatchObject({ status: "confirmed", lastError: null });
    expect(await tron.outgoingCount(from)).toBe(1);
    expect((await callbacksOf(o.orderNo)).map((c) => c.status)).toEqual(["submitted", "broadcasted", "confirmed"]);
  });

  test("a reorg that drops a broadcast payout rebroadcasts the same transaction", async () => {
    const from = await funded(gw.client, "10");
    const o = await payout(gw.client, { fromAddress: from, toAddress: randomAddress("TRON"), amount: "3" });
    expect(o.status).toBe("broadcasted");
    await sb.reorg("TRON", 1);
    await sb.mine("TRON", 2);
    expect(await get(gw.client, o.orderNo)).toMatchObject({ status: "confirmed", txHash: o.txHash });
    expect(await tron.outgoingCount(from)).toBe(1);
  });

  test("deleteSourceAfterSuccess soft-deletes the source on confirmation; it is then refused as a source and not picked", async () => {
    const m = await gw.newMerchant("retire");
    const from = await funded(m.client, "20");
    const o = await payout(m.client, { fromAddress: from, toAddress: randomAddress("TRON"), amount: "5", deleteSourceAfterSuccess: true });
    expect(o).toMatchObject({ status: "broadcasted", deleteSourceAfterSuccess: true });
    // While it runs, the source takes no other payout.
    const busy = await err(payout(m.client, { fromAddress: from, toAddress: randomAddress("TRON"), amount: "1" }));
    expect(busy.code).toBe(53002);
    await sb.mine("TRON", 2);
    expect((await get(m.client, o.orderNo)).status).toBe("confirmed");
    const row = await addressRow(from);
    expect(row.deletedAt).not.toBeNull();
    // History and ledger stay.
    expect((await tableRows(gw.ctx.db, ledgerEntries, { addressId: row.id })).length).toBe(2);
    const e = await err(payout(m.client, { fromAddress: from, toAddress: randomAddress("TRON"), amount: "1" }));
    expect([e.httpStatus, e.code]).toEqual([422, 53002]);
    const e2 = await err(payout(m.client, { toAddress: randomAddress("TRON"), amount: "1" }));
    expect(e2.code).toBe(53003);
    // The binding whose address was retired gets a fresh address: no new pay-ins to the retired one.
    const before = await m.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: row.bindKey } });
    const b = await m.client.request<Obj>("GET", `/openapi/payin/exclusive-bindings/${row.bindKey}`, { query: { chainCode: "TRON", tokenSymbol: "USDT" } });
    expect(before.bindingId).toBe(b.bindingId); // the same binding...
    expect(b.address).not.toBe(from); // ...on a fresh address
    expect(b.address).toMatch(/^T/);
  });

  test("a permanent broadcast failure fails the order at stage broadcast and keeps a deleteSource source; reconciliation reports the ledger/chain gap", async () => {
    const m = await gw.newMerchant("gap");
    const from = await funded(m.client, "1");
    // Ledger credit without funds on chain (e.g. a bad manual entry): the node refuses the transfer.
    await insertRows(gw.ctx.db, ledgerEntries, [{ addressId: await addressId(from), chain: "TRON", token: "USDT", kind: "adjustment", amount: "5000000", refType: "test", refId: "gap-1", createdAt: Date.now() }]);
    const o = await payout(m.client, { fromAddress: from, toAddress: randomAddress("TRON"), amount: "5", deleteSourceAfterSuccess: true });
    expect(o).toMatchObject({ status: "failed", failedStage: "broadcast", txHash: null });
    expect(o.failedAt).not.toBeNull();
    expect((await callbacksOf(o.orderNo)).at(-1)!.payload).toMatchObject({ status: "failed", failedStage: "broadcast" });
    expect((await addressRow(from)).deletedAt).toBeNull();
    expect(await available(from)).toBe(toBaseUnits("6", 6));

    const gaps = await reconcileChain(gw.ctx, tron);
    expect(gaps).toEqual([{ addressId: await addressId(from), address: from, token: "USDT", ledger: toBaseUnits("6", 6), chain: toBaseUnits("1", 6), difference: -toBaseUnits("5", 6) }]);
    expect((await openDiscrepancies(gw.ctx.db)).map((d) => d.addressId)).toContain(await addressId(from));
    // Reported, not overwritten.
    expect(await available(from)).toBe(toBaseUnits("6", 6));
  });

  test("20 concurrent payouts that together exceed the balance: the ones that fit succeed, the rest get 53005/53003, never negative", async () => {
    const m = await gw.newMerchant("rush");
    const from = await funded(m.client, "100");
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => payout(m.client, { ...(i % 2 ? { fromAddress: from } : {}), toAddress: randomAddress("TRON"), amount: "7" })),
    );
    const ok = results.filter((r) => r.status === "fulfilled").map((r) => (r as PromiseFulfilledResult<Obj>).value);
    const codes = results.filter((r) => r.status === "rejected").map((r) => ((r as PromiseRejectedResult).reason as ApiError).code);
    expect(ok.length).toBe(14);
    expect(codes.length).toBe(6);
    for (const c of codes) expect([53005, 53003]).toContain(c);
    expect(await available(from)).toBe(toBaseUnits("2", 6));
    await sb.mine("TRON", 2);
    for (const o of ok) expect((await get(m.client, o.orderNo)).status).toBe("confirmed");
    expect(await tron.tokenBalance(from, "USDT")).toBe(toBaseUnits("2", 6));
    expect(await addressBalance(gw.ctx.db, await addressId(from), "USDT")).toEqual({ ledger: toBaseUnits("2", 6), reserved: 0n, available: toBaseUnits("2", 6) });
    expect(await tron.outgoingCount(from)).toBe(14);
  });
});

describe("payout errors", () => {
  let from: string;
  let bscFrom: string;
  beforeAll(async () => {
    from = await funded(gw.client, "50");
    bscFrom = await funded(gw.client, "5", "BSC", "USDT");
  });
  const to = randomAddress("TRON");

  test.each([
    ["unknown chain", { chainCode: "TON" }, 31001],
    ["unknown token", { tokenSymbol: "DAI" }, 31002],
    ["chain/token mismatch", { tokenSymbol: "USDC" }, 31003],
    ["TRON address with a bad checksum", { toAddress: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u" }, 10001],
    ["BSC mixed case with a bad EIP-55 checksum", { chainCode: "BSC", toAddress: "0x55d398326f99059ff775485246999027B3197955" }, 10001],
    ["SOL address that is not 32 bytes", { chainCode: "SOL", tokenSymbol: "USDC", toAddress: "3yZe7d" }, 10001],
    ["deleteSourceAfterSuccess as the string true", { deleteSourceAfterSuccess: "true" }, 10001],
    ["amount as a JSON number", { amount: 1 }, 10001],
    ["amount 0", { amount: "0" }, 10001],
    ["notifyUrl not http(s)", { notifyUrl: "ftp://shop.example/cb" }, 10001],
    ["notifyUrl missing", { notifyUrl: undefined }, 10001],
    ["unknown fromAddress", { fromAddress: randomAddress("TRON") }, 53001],
    ["nothing available anywhere", { amount: "100000" }, 53003],
  ])("%s", async (_label, over, code) => {
    const e = await err(payout(gw.client, { toAddress: to, amount: "1", ...over }));
    expect(e.code).toBe(code);
  });

  test("53005 when the given source holds too little", async () => {
    const e = await err(payout(gw.client, { fromAddress: from, toAddress: to, amount: "50.000001" }));
    expect([e.httpStatus, e.code]).toEqual([422, 53005]);
  });

  test("54003 for a payout to one of the merchant's own addresses", async () => {
    const pi = await gw.client.request<Obj>("POST", "/openapi/payin/orders", { body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "own-1", amount: "1", notifyUrl: "https://shop.example/cb" } });
    for (const target of [pi.address, from]) {
      const e = await err(payout(gw.client, { fromAddress: from, toAddress: target, amount: "1" }));
      expect([e.httpStatus, e.code]).toEqual([422, 54003]);
    }
  });

  test("53002 for own sources that cannot pay (other chain, busy with deleteSource); another merchant's or a gas wallet is 53001", async () => {
    const other = await gw.newMerchant("other");
    const theirs = await funded(other.client, "5");
    const gas = await gasWallet(gw.ctx.db, tron, gw.ctx.seed, Date.now());
    const onBsc = await err(payout(gw.client, { fromAddress: bscFrom, toAddress: to, amount: "1" }));
    expect([onBsc.httpStatus, onBsc.code]).toEqual([422, 53002]);
    // Never reveal that an address belongs to the gateway but not to this merchant.
    for (const fromAddress of [theirs, gas.address]) {
      const e = await err(payout(gw.client, { fromAddress, toAddress: to, amount: "1" }));
      expect([fromAddress, e.httpStatus, e.code]).toEqual([fromAddress, 422, 53001]);
    }
    // An unfinished payout on the source (held in submitted by a fault) forbids deleteSourceAfterSuccess.
    await sb.faults("TRON", 1);
    const held = await payout(gw.client, { fromAddress: from, toAddress: to, amount: "1" });
    expect(held.status).toBe("submitted");
    const e = await err(payout(gw.client, { fromAddress: from, toAddress: to, amount: "1", deleteSourceAfterSuccess: true }));
    expect(e.code).toBe(53002);
    await submit(gw.client, held.orderNo);
  });

  test("51002: payouts switched off, per-payout limit, daily limit; 51004: fee balance short", async () => {
    const m = await gw.newMerchant("limits");
    const src = await funded(m.client, "100");
    const now = Date.now();
    await setPayoutControls(gw.ctx.db, m.id, { payoutsEnabled: false }, now);
    let e = await err(payout(m.client, { fromAddress: src, toAddress: to, amount: "1" }));
    expect([e.httpStatus, e.code, e.data?.reason]).toEqual([403, 51002, "payouts_disabled"]);

    await setPayoutControls(gw.ctx.db, m.id, { payoutsEnabled: true, payoutLimitPerTx: "10", payoutLimitDaily: "15" }, now);
    e = await err(payout(m.client, { fromAddress: src, toAddress: to, amount: "10.01" }));
    expect([e.code, e.data?.reason]).toEqual([51002, "per_payout_limit"]);
    expect((await payout(m.client, { fromAddress: src, toAddress: to, amount: "10" })).status).toBe("broadcasted");
    e = await err(payout(m.client, { fromAddress: src, toAddress: to, amount: "5.01" }));
    expect([e.code, e.data?.reason]).toEqual([51002, "daily_limit"]);
    expect((await payout(m.client, { fromAddress: src, toAddress: to, amount: "5" })).status).toBe("broadcasted");

    await setPayoutControls(gw.ctx.db, m.id, { payoutLimitPerTx: null, payoutLimitDaily: null, payoutFeeFixed: "1" }, now);
    await adjustFeeBalance(gw.ctx.db, m.id, "1.5", { ref: "limits-1", now });
    const a = await payout(m.client, { fromAddress: src, toAddress: to, amount: "1" });
    expect(a.fee).toBe("1.000000");
    // 0.5 left after the first fee is reserved.
    e = await err(payout(m.client, { fromAddress: src, toAddress: to, amount: "1" }));
    expect([e.httpStatus, e.code]).toEqual([422, 51004]);
  });

  test("54001 for a missing order or another merchant's; 54002 for submit on a broadcasted order", async () => {
    let e = await err(get(gw.client, "PO00000000000000000000000000"));
    expect([e.httpStatus, e.code]).toEqual([404, 54001]);
    const o = await payout(gw.client, { fromAddress: from, toAddress: to, amount: "1" });
    const other = await gw.newMerchant("peeker");
    e = await err(get(other.client, o.orderNo));
    expect([e.httpStatus, e.code]).toEqual([404, 54001]);
    e = await err(submit(other.client, o.orderNo));
    expect(e.code).toBe(54001);
    e = await err(submit(gw.client, o.orderNo));
    expect([e.httpStatus, e.code]).toEqual([409, 54002]);
  });
});
