// The payer's transaction hash (DESIGN 25) on anvil behind a proxy that empties every
// block-range eth_getLogs answer, so the block scan never sees a payment: the hash given to
// POST /openapi/payin/orders/{orderNo}/tx-hash credits it through the funnel (completed once
// final, deduplicated), and a hash that pays something else credits nothing and says why. On
// TON, the payer's own transaction hash leads to the recipient's notification, which is credited.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, apiError, type TestGateway } from "../testing/harness";
import { startBscChain, startTonChain, type BscChainFixture, type TonChainFixture } from "../testing/chain-fixture";
import { toBaseUnits } from "../lib/money";
import { transfers } from "../db/schema";
import { tableRows } from "../testing/engine-rows";
import { events } from "../lib/event-metrics";
import { emptyRangeLogs } from "../testing/rpc-proxy";

type Order = Record<string, any>;

describe("the payer's transaction hash on anvil whose block-range eth_getLogs answers are empty", () => {
  let fx: BscChainFixture;
  let gw: TestGateway;
  beforeAll(async () => {
    fx = await startBscChain();
    fx.raw.proxy.setFaults({ answer: emptyRangeLogs });
    gw = await startTestGateway({ jobs: false, config: { sandbox: { allow_mixed: true }, chains: { BSC: fx.gatewayConfig(3) } } });
  });
  afterAll(async () => {
    await gw?.stop();
    await fx?.stop();
  });

  const tick = () => gw.gateway.runtime.watchers.get("BSC")!.tick();
  let n = 0;
  const create = (amount: string): Promise<Order> =>
    gw.client.createPayinOrder({ chainCode: "BSC", tokenSymbol: "USDT", merchantOrderNo: `hash-${++n}`, amount, notifyUrl: "https://shop.example/cb" });
  const units = (amount: string) => toBaseUnits(amount, fx.decimals);

  test("the scan misses the payment; the hash credits it, the watcher completes it once final, and a second check changes nothing", async () => {
    const o = await create("12.5");
    await tick();
    const txHash = await fx.pay(o.address, units("12.5"));
    await fx.advance(3);
    await tick();
    expect(await gw.client.getPayinOrder(o.orderNo)).toMatchObject({ status: "waiting_payment" });
    expect(fx.raw.proxy.calls.get("eth_getLogs")).toBeGreaterThan(0);

    const check = await gw.client.submitPayinTxHash(o.orderNo, txHash.toUpperCase().replace("0X", "0x"));
    expect(check).toMatchObject({ result: "credited", order: { orderNo: o.orderNo, txHash, paidAmount: o.amount } });
    expect(check.message).toContain("credited");
    await tick();
    expect(await gw.client.getPayinOrder(o.orderNo)).toMatchObject({ status: "completed", txHash, paidAmount: o.amount });

    // Again: the same transfer, recorded once.
    expect((await gw.client.submitPayinTxHash(o.orderNo, txHash)).result).toBe("credited");
    expect((await tableRows(gw.ctx.db, transfers)).filter((t) => t.txHash === txHash)).toHaveLength(1);
  });

  test("a hash whose block is not final yet: not_final, then completed by the watcher's confirmations", async () => {
    const o = await create("13.5");
    const txHash = await fx.pay(o.address, units("13.5"));
    const check = await gw.client.submitPayinTxHash(o.orderNo, txHash);
    expect(check.result).toBe("not_final");
    expect(check.order.status).toBe("detected");
    await fx.advance(2);
    await tick();
    expect(await gw.client.getPayinOrder(o.orderNo)).toMatchObject({ status: "completed", txHash });
  });

  test("a transfer to another address, another token, an unknown or malformed hash credit nothing and say why", async () => {
    const o = await create("14.5");
    const elsewhere = await fx.pay(fx.receivers(1, "elsewhere")[0]!, units("14.5"));
    const other = await gw.client.submitPayinTxHash(o.orderNo, elsewhere);
    expect(other).toMatchObject({ result: "wrong_address", order: { status: "waiting_payment", txHash: null } });
    expect(other.message).toContain("another address");

    const usdc = await fx.pay(o.address, 14_500_000_000_000_000_000n, "USDC");
    expect((await gw.client.submitPayinTxHash(o.orderNo, usdc)).result).toBe("wrong_token");

    expect((await gw.client.submitPayinTxHash(o.orderNo, "0x" + "ab".repeat(32))).result).toBe("not_found");
    const bad = await apiError(gw.client.submitPayinTxHash(o.orderNo, "not-a-hash"));
    expect(bad.code).toBe(10001);
    expect((await tableRows(gw.ctx.db, transfers)).filter((t) => t.txHash === elsewhere || t.txHash === usdc)).toHaveLength(0);
    expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("waiting_payment");
  });

  test("another merchant's order is 40108 (never revealed), and checks are rate-limited per order", async () => {
    const o = await create("15.5");
    const other = await gw.newMerchant("other shop");
    expect((await apiError(other.client.submitPayinTxHash(o.orderNo, "0x" + "cd".repeat(32)))).code).toBe(40108);
    const codes: number[] = [];
    for (let i = 0; i < 8; i++) {
      codes.push(
        await gw.client.submitPayinTxHash(o.orderNo, "0x" + "ef".repeat(32)).then(
          () => 200,
          (e) => e.code,
        ),
      );
    }
    expect(codes.filter((c) => c === 200).length).toBeGreaterThan(0);
    expect(codes.at(-1)).toBe(10029);
  });

  test("credited transfers are observed: block → seen and block → completed per chain", async () => {
    const text = await events.metrics();
    expect(text).toMatch(/stablegate_detection_seconds_count\{chain="BSC"\} [1-9]/);
    expect(text).toMatch(/stablegate_completion_seconds_count\{chain="BSC"\} [1-9]/);
  });
});

describe("the payer's own TON transaction hash, on the toncenter test server answering every block's transactions empty", () => {
  let fx: TonChainFixture;
  let gw: TestGateway;
  beforeAll(async () => {
    fx = await startTonChain();
    fx.raw.hideBlockTxs = true;
    gw = await startTestGateway({ jobs: false, config: { sandbox: { allow_mixed: true }, chains: { TON: { ...fx.gatewayConfig(2), enabled: true } } } });
  });
  afterAll(async () => {
    await gw?.stop();
    await fx?.stop();
  });

  test("the hash a wallet app shows (the payer's jetton wallet's transaction) credits the order under the recipient's notification hash", async () => {
    const { Address } = await import("@ton/core");
    const { TonNode } = await import("../testing/ton-node");
    const tick = () => gw.gateway.runtime.watchers.get("TON")!.tick();
    const o = await gw.client.createPayinOrder({ chainCode: "TON", tokenSymbol: "USDT", merchantOrderNo: "ton-hash-1", amount: "21.5", notifyUrl: "https://shop.example/cb" });
    await tick();
    const b = await fx.raw.payJetton(fx.payer, Address.parse(o.address), 21_500_000n);
    const notification = TonNode.notificationTx(b, Address.parse(o.address))!;
    await fx.advance(2);
    await tick();
    expect(await gw.client.getPayinOrder(o.orderNo)).toMatchObject({ status: "waiting_payment" });

    const payerTx = b.txs[0]!.hash().toString("base64");
    const check = await gw.client.submitPayinTxHash(o.orderNo, payerTx);
    expect(check).toMatchObject({ result: "credited", order: { orderNo: o.orderNo, txHash: notification, paidAmount: o.amount } });
    await tick();
    expect(await gw.client.getPayinOrder(o.orderNo)).toMatchObject({ status: "completed", txHash: notification });
    expect((await tableRows(gw.ctx.db, transfers)).filter((t) => t.txHash === notification)).toHaveLength(1);
  });
});
