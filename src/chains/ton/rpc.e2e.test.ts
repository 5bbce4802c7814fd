// A gateway with TON in rpc mode on @ton/sandbox behind the toncenter v3 test server (DESIGN 23):
// an exclusive deposit credited and its balance read from the real jetton wallet, then paid out:
// the source's wallet v5r1 is topped up with TON by the gas wallet, deployed by its first
// transfer, and the USDT reaches the recipient's jetton wallet once; the fee ledger holds what
// the gas wallet spent.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { startTestGateway, type TestGateway } from "../../testing/harness";
import { startTonChain, type TonChainFixture } from "../../testing/chain-fixture";
import { eventually } from "../../testing/wait";
import { gasTopups, payoutOrders, transferCosts } from "../../db/schema";
import { gasWallet } from "../../wallet/addresses";
import { randomTonAddress } from "./address";

type Obj = Record<string, any>;
let fx: TonChainFixture;
let gw: TestGateway;
beforeAll(async () => {
  fx = await startTonChain();
  gw = await startTestGateway({ config: { sandbox: { allow_mixed: true }, chains: { TON: fx.gatewayConfig(1) } } });
});
afterAll(async () => {
  await gw?.stop();
  await fx?.stop();
});

test("a deposit is credited from the real jetton wallet and paid out: top-up, deploy with the first transfer, the USDT lands once", async () => {
  const b = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TON", tokenSymbol: "USDT", bindKey: "ton-rpc-1" } });
  await fx.pay(b.address, 40_000_000n);
  await eventually(async () => {
    const d = await gw.client.request<Obj>("GET", "/openapi/payin/exclusive-bindings/ton-rpc-1", { query: { chainCode: "TON", tokenSymbol: "USDT" } });
    return d.recentOrders[0]?.status === "completed";
  }, 20_000, "the TON deposit completed");
  const gas = (await gasWallet(gw.ctx.db, gw.ctx.chains.get("TON")!, gw.ctx.seed, Date.now())).address;
  await fx.sendNative(gas, 10n ** 9n);
  // The payer's forward amount (1 nanoton) came with the deposit's notification.
  const heldBefore = await fx.nativeBalance(b.address);
  const to = randomTonAddress();
  const p = await gw.client.request<Obj>("POST", "/openapi/payout/orders", { body: { chainCode: "TON", tokenSymbol: "USDT", merchantOrderNo: "ton-rpc-po", amount: "12.5", fromAddress: b.address, toAddress: to, notifyUrl: "https://shop.example/po" } });
  const done = await eventually(async () => {
    const r = await gw.client.request<Obj>("GET", `/openapi/payout/orders/${p.orderNo}`);
    return r.status === "confirmed" || r.status === "failed" ? r : null;
  }, 30_000, "the TON payout settled").catch((e) => { console.log(JSON.stringify(gw.ctx.db.select().from(payoutOrders).all(), null, 1), JSON.stringify(gw.ctx.db.select().from(gasTopups).all()), gw.logs.filter((l) => /payout|top-up|ton/i.test(l)).slice(-30).join("\n")); throw e; });
  const row = gw.ctx.db.select().from(payoutOrders).where(eq(payoutOrders.orderNo, p.orderNo)).get()!;
  expect(done).toMatchObject({ status: "confirmed", txHash: row.txHash });
  expect(JSON.parse(row.signedMeta!)).toMatchObject({ kind: "JETTON", from: b.address, to, amount: "12500000", seqno: 0, deploy: true });
  expect(await fx.tokenBalance(to)).toBe(12_500_000n);
  expect(await fx.tokenBalance(b.address)).toBe(27_500_000n);
  expect(await fx.sentBy(b.address)).toBe(1);
  const topups = gw.ctx.db.select().from(gasTopups).where(eq(gasTopups.toAddress, b.address)).all();
  expect(topups.map((t) => t.status)).toEqual(["confirmed"]);
  // The fee ledger: the top-up's fee and what the payout consumed add up to what left the gas wallet, less what the source kept of it.
  const costs = gw.ctx.db.select().from(transferCosts).where(eq(transferCosts.chain, "TON")).all();
  expect(costs.map((c) => c.kind).sort()).toEqual(["gas_topup", "payout"]);
  const spent = 10n ** 9n - (await fx.nativeBalance(gas));
  const held = (await fx.nativeBalance(b.address)) - heldBefore;
  expect(costs.reduce((s, c) => s + BigInt(c.nativeBurned), 0n)).toBe(spent - held);
});
