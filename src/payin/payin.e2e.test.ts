import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { ApiError } from "../sdk/client";
import { TestClock } from "../lib/clock";
import { tableRow, tableRows } from "../testing/engine-rows";
import { addresses, callbacks, payinOrders, transfers } from "../db/schema";

type Order = Record<string, any>;
let gw: TestGateway;
let sb: ReturnType<typeof sandboxClient>;
const clock = new TestClock(Date.now());

beforeAll(async () => {
  gw = await startTestGateway({
    clock,
    jobs: false,
    config: { chains: { TRON: { confirmations: 5 }, BSC: { confirmations: 3 } }, payin: { expire_after: "30m", late_window: "24h", shared_pool_size: 2 } },
  });
  sb = sandboxClient(gw.url);
});
afterAll(() => gw.stop());

let n = 0;
const create = (over: Record<string, unknown> = {}) =>
  gw.client.request<Order>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `M-${++n}`, amount: "12.5", notifyUrl: "https://shop.example/cb", ...over },
  });
const get = (orderNo: string) => gw.client.request<Order>("GET", `/openapi/payin/orders/${orderNo}`);
const err = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    return e as ApiError;
  }
  throw new Error("expected an error");
};

describe("pay-in orders on the sandbox", () => {
  test("exact transfer: detected, confirming, completed after the configured confirmations", async () => {
    const o = await create({ amount: "100.50" });
    expect(o).toMatchObject({ status: "waiting_payment", amount: "100.500000", paidAmount: null, chainCode: "TRON", tokenSymbol: "USDT" });
    expect(o.orderNo).toMatch(/^PI\d{24}$/);
    expect(o.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(o.cashierUrl).toStartWith(gw.url + "/checkout/");
    expect(o.paymentUri).toBe(`tron:${o.address}?amount=100.5&token=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t`);
    expect(o.expireAt).toBe(new Date(clock.now() + 30 * 60_000).toISOString());
    expect(o.expireAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const tx = await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "100.5" });
    let q = await get(o.orderNo);
    expect(q).toMatchObject({ status: "detected", paidAmount: "100.500000", txHash: tx.txHash, confirmations: 1 });
    expect(q.detectedAt).not.toBeNull();
    await sb.mine("TRON", 1);
    expect((await get(o.orderNo)).status).toBe("confirming");
    await sb.mine("TRON", 2);
    q = await get(o.orderNo);
    expect(q).toMatchObject({ status: "confirming", confirmations: 4, completedAt: null });
    await sb.mine("TRON", 1);
    q = await get(o.orderNo);
    expect(q).toMatchObject({ status: "completed", confirmations: 5 });
    expect(q.confirmedAt).not.toBeNull();
    expect(q.completedAt).not.toBeNull();
  });

  test("a wrong amount on the address's only open order freezes it with paidAmount (DESIGN 5)", async () => {
    const o = await create({ amount: "7" });
    const tx = await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "7.000001" });
    expect(await get(o.orderNo)).toMatchObject({ status: "frozen_abnormal", amount: "7.000000", paidAmount: "7.000001", txHash: tx.txHash });
    const row = (await tableRow(gw.ctx.db, transfers, { txHash: tx.txHash }))!;
    expect({ disposition: row.disposition, amount: row.amount, reason: row.unmatchedReason }).toEqual({ disposition: "wrong_amount", amount: "7000001", reason: null });
  });

  test("expiry gives expired; a late payment settles as risk_settled once final", async () => {
    const o = await create({ amount: "3" });
    clock.advance(31 * 60_000);
    const { expireDueOrders } = await import("./service");
    expect(await expireDueOrders(gw.ctx)).toBeGreaterThanOrEqual(1);
    expect((await get(o.orderNo)).status).toBe("expired");
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "3" });
    let q = await get(o.orderNo);
    expect(q).toMatchObject({ status: "expired", paidAmount: "3.000000" });
    await sb.mine("TRON", 4);
    q = await get(o.orderNo);
    expect(q.status).toBe("risk_settled");
  });

  test("a reorg before completion reverts the order to waiting_payment; after finality nothing moves", async () => {
    const o = await create({ amount: "4" });
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "4" });
    await sb.mine("TRON", 1);
    expect((await get(o.orderNo)).status).toBe("confirming");
    await sb.reorg("TRON", 2);
    let q = await get(o.orderNo);
    expect(q).toMatchObject({ status: "waiting_payment", paidAmount: null, txHash: null });
    // Paid again, completed, then a deep reorg: a completed order stays completed.
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "4" });
    await sb.mine("TRON", 4);
    expect((await get(o.orderNo)).status).toBe("completed");
    await sb.reorg("TRON", 10);
    q = await get(o.orderNo);
    expect(q.status).toBe("completed");
  });

  test("40105 when every pool address has an open order of that amount; another amount succeeds", async () => {
    const a = await create({ amount: "55" });
    const b = await create({ amount: "55" });
    expect(a.address).not.toBe(b.address);
    const e = await err(create({ amount: "55" }));
    expect([e.httpStatus, e.code]).toEqual([409, 40105]);
    const c = await create({ amount: "55.01" });
    expect(c.status).toBe("waiting_payment");
  });

  test("a retry is answered with its order whether or not the pool has room, and writes nothing", async () => {
    const db = gw.ctx.db;
    const counts = async () => ({ o: (await tableRows(db, payinOrders)).length, c: (await tableRows(db, callbacks)).length, a: (await tableRows(db, addresses)).length });
    const body = { merchantOrderNo: "RETRY-FULL", amount: "77" };
    const a = await create(body);
    await create({ amount: "77" });
    const c = await create({ merchantOrderNo: "RETRY-ROOM", amount: "79" });
    const before = await counts();
    // Both pool addresses (the pool's size) hold 77: the retry still gets its order, not 40105.
    expect((await create(body)).orderNo).toBe(a.orderNo);
    // The other pool address is free for 79: the insert meets the existing order number instead.
    expect((await create({ merchantOrderNo: "RETRY-ROOM", amount: "79" })).orderNo).toBe(c.orderNo);
    const e = await err(create({ ...body, amount: "78" }));
    expect([e.httpStatus, e.code]).toEqual([400, 10001]);
    expect(await counts()).toEqual(before);
  });

  test("idempotent retry returns the same order; a changed field is 10001", async () => {
    const body = { chainCode: "BSC", tokenSymbol: "USDC", merchantOrderNo: "IDEM-1", amount: "1.5", notifyUrl: "https://shop.example/cb" };
    const a = await gw.client.request<Order>("POST", "/openapi/payin/orders", { body });
    const b = await gw.client.request<Order>("POST", "/openapi/payin/orders", { body });
    expect(b.orderNo).toBe(a.orderNo);
    const e = await err(gw.client.request("POST", "/openapi/payin/orders", { body: { ...body, amount: "1.6" } }));
    expect([e.httpStatus, e.code]).toEqual([400, 10001]);
    expect(e.data).toMatchObject({ fields: { amount: expect.any(String) } });
    const [x, y] = await Promise.all([
      gw.client.request<Order>("POST", "/openapi/payin/orders", { body: { ...body, merchantOrderNo: "IDEM-2" } }),
      gw.client.request<Order>("POST", "/openapi/payin/orders", { body: { ...body, merchantOrderNo: "IDEM-2" } }),
    ]);
    expect(x.orderNo).toBe(y.orderNo);
  });

  test("BEP20 amounts with 18 decimals are matched and reported exactly", async () => {
    const o = await create({ chainCode: "BSC", tokenSymbol: "USDT", amount: "1.123456" });
    expect(o.paymentUri).toBe(`ethereum:0x55d398326f99059fF775485246999027B3197955@56/transfer?address=${o.address}&uint256=1123456000000000000`);
    expect(o.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    await sb.transfer({ chainCode: "BSC", tokenSymbol: "USDT", toAddress: o.address, amount: "1.123456" });
    await sb.mine("BSC", 2);
    expect(await get(o.orderNo)).toMatchObject({ status: "completed", paidAmount: "1.123456" });
    // One wei more is another amount: the address's only open order takes it, frozen, with the extra digits kept.
    const p = await create({ chainCode: "BSC", tokenSymbol: "USDT", amount: "2.5" });
    await sb.transfer({ chainCode: "BSC", tokenSymbol: "USDT", toAddress: p.address, amount: "2.500000000000000001" });
    expect(await get(p.orderNo)).toMatchObject({ status: "frozen_abnormal", amount: "2.500000", paidAmount: "2.500000000000000001" });
  });

  test("a merchant never sees another merchant's order (40108)", async () => {
    const o = await create();
    const other = await gw.newMerchant("other");
    const e = await err(other.client.request("GET", `/openapi/payin/orders/${o.orderNo}`));
    expect([e.httpStatus, e.code]).toEqual([404, 40108]);
  });

  test.each([
    [{ chainCode: "TON" }, 31001],
    [{ chainCode: "ETH" }, 31001], // registered, off by default (DESIGN 17)
    [{ tokenSymbol: "DAI" }, 31002],
    [{ chainCode: "TRON", tokenSymbol: "USDC" }, 31003],
    [{ amount: 12.5 }, 10001],
    [{ amount: "1.1234567" }, 10001],
    [{ amount: "0" }, 10001],
    [{ amount: "-1" }, 10001],
    [{ merchantOrderNo: "x".repeat(129) }, 10001],
    [{ notifyUrl: "ftp://x.example/cb" }, 10001],
    [{ notifyUrl: undefined }, 10001],
  ])("create with %o gives %d", async (over, code) => {
    const e = await err(create(over));
    expect(e.code).toBe(code);
  });

  test("SOL orders carry a Solana Pay URI", async () => {
    const o = await create({ chainCode: "SOL", tokenSymbol: "USDC", amount: "2.5" });
    expect(o.paymentUri).toStartWith(`solana:${o.address}?amount=2.5&spl-token=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&reference=`);
  });
});

describe("exclusive wallets", () => {
  test("get-or-create, two deposits create two orders, detail honours recentLimit", async () => {
    const body = { chainCode: "TRON", tokenSymbol: "USDT", bindKey: "user/42 x", label: "VIP", notifyUrl: "https://shop.example/dep" };
    const b = await gw.client.request<Order>("POST", "/openapi/payin/exclusive-bindings", { body });
    expect(b).toMatchObject({ bindKey: "user/42 x", addressType: "exclusive", status: "active", label: "VIP" });
    expect(b.bindingId).toMatch(/^EB/);
    expect(b.addressId).toMatch(/^AD/);
    const again = await gw.client.request<Order>("POST", "/openapi/payin/exclusive-bindings", { body: { ...body, label: "VIP2" } });
    expect(again).toMatchObject({ bindingId: b.bindingId, address: b.address, label: "VIP2" });

    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount: "10" });
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount: "20.25" });
    await sb.mine("TRON", 5);
    const path = `/openapi/payin/exclusive-bindings/${encodeURIComponent("user/42 x")}`;
    const d = await gw.client.request<Order>("GET", path, { query: { chainCode: "TRON", tokenSymbol: "USDT", recentLimit: 1 } });
    expect(d.stats).toMatchObject({ totalOrders: 2, completedOrders: 2, totalPaidAmount: "30.250000", completedPaidAmount: "30.250000" });
    expect(d.recentOrders).toHaveLength(1);
    expect(d.recentTransactions).toHaveLength(1);
    const full = await gw.client.request<Order>("GET", path, { query: { chainCode: "TRON", tokenSymbol: "USDT" } });
    expect(full.recentOrders).toHaveLength(2);
    const order = await get(full.recentOrders[0].orderNo);
    expect(order).toMatchObject({ bindKey: "user/42 x", status: "completed", expireAt: null });
    expect(order.merchantOrderNo).toBe(order.orderNo);
    for (const recentLimit of [0, 21, "x"]) {
      const e = await err(gw.client.request("GET", path, { query: { chainCode: "TRON", tokenSymbol: "USDT", recentLimit } }));
      expect(e.code).toBe(10001);
    }
    const missing = await err(gw.client.request("GET", "/openapi/payin/exclusive-bindings/nobody", { query: { chainCode: "TRON", tokenSymbol: "USDT" } }));
    expect([missing.httpStatus, missing.code]).toEqual([404, 40002]);
  });

  test("USDT and USDC bindings with one bindKey on BSC share an address", async () => {
    const a = await gw.client.request<Order>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "BSC", tokenSymbol: "USDT", bindKey: "k1" } });
    const b = await gw.client.request<Order>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "BSC", tokenSymbol: "USDC", bindKey: "k1" } });
    expect(a.address).toBe(b.address);
    expect(a.bindingId).not.toBe(b.bindingId);
  });
});

test("an exclusive deposit removed by a reorg waits one order lifetime for its transaction, then expires", async () => {
  const b = await gw.client.request<Order>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: "reorged" } });
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount: "8" });
  const path = "/openapi/payin/exclusive-bindings/reorged";
  const [first] = (await gw.client.request<Order>("GET", path, { query: { chainCode: "TRON", tokenSymbol: "USDT" } })).recentOrders;
  expect(first.status).toBe("detected");
  await sb.reorg("TRON", 1);
  const waiting = await get(first.orderNo);
  expect(waiting).toMatchObject({ status: "waiting_payment", paidAmount: null, expireAt: new Date(clock.now() + 30 * 60_000).toISOString() });
  clock.advance(31 * 60_000);
  const { expireDueOrders } = await import("./service");
  await expireDueOrders(gw.ctx);
  expect((await get(first.orderNo)).status).toBe("expired");
});
