// TRON payouts through the gateway on the fake node: TRC20 transfers signed with the
// source's HD key, TRX top-ups (with activation) from the gas wallet, the receipt deciding
// confirmed or failed, final once solidified.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { mnemonicToSeedSync } from "@scure/bip39";
import { startTronFixture, TRX, type TronFixture } from "../testing/tron-fixture";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { gasTopups, ledgerEntries, payoutOrders } from "../db/schema";
import { gasWallet } from "../wallet/addresses";
import { deriveTronKey } from "../chains/tron/address";
import type { TronAdapter } from "../chains/tron/adapter";

type Obj = Record<string, any>;
let fx: TronFixture;
let gw: TestGateway;
let tron: TronAdapter;
const OUT = mnemonicToSeedSync("zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong");

beforeAll(async () => {
  fx = await startTronFixture({ solidLag: 3, autoMine: true });
  fx.node.mine(5);
  gw = await startTestGateway({ jobs: false, config: { sandbox: { allow_mixed: true }, chains: { TRON: { mode: "rpc", rpc_urls: [fx.node.url], confirmations: 3 } } } });
  tron = gw.ctx.chains.get("TRON") as TronAdapter;
});
afterAll(async () => {
  await gw?.stop();
  await fx?.stop();
});

const tick = () => gw.gateway.runtime.afterChainChange("TRON");
let n = 0;
const dest = () => deriveTronKey(OUT, n++).address;
async function funded(tokens: bigint, trx: bigint): Promise<string> {
  const b = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: `tron-src-${++n}` } });
  await tick();
  await fx.sendUsdt(b.address, tokens);
  if (trx > 0n) await fx.sendTrx(b.address, trx);
  fx.node.mine(4);
  await tick();
  return b.address;
}
const payout = (body: Obj) =>
  gw.client.request<Obj>("POST", "/openapi/payout/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `TPO-${++n}`, notifyUrl: "https://shop.example/po", ...body },
  });
const get = (orderNo: string) => gw.client.request<Obj>("GET", `/openapi/payout/orders/${orderNo}`);
const row = (orderNo: string) => gw.ctx.db.select().from(payoutOrders).where(eq(payoutOrders.orderNo, orderNo)).get()!;
/** Transactions on chain sent by `owner` (any contract type). */
const sentBy = (owner: string) => {
  const hex = fx.node.tronWeb().address.toHex(owner).toLowerCase();
  return fx.node.chain.blocks.flatMap((b) => b.txs).filter((t) => t.tx.raw_data.contract[0].parameter.value.owner_address === hex);
};

async function settle(orderNo: string): Promise<Obj> {
  let o = await get(orderNo);
  for (let i = 0; i < 30 && (o.status === "submitted" || o.status === "broadcasted"); i++) {
    fx.node.mine(1);
    await tick();
    o = await get(orderNo);
  }
  return o;
}

describe("TRON payouts on the fake node", () => {
  test("a payout is signed with the source's key, sent and confirmed once solidified; balances move by exactly the amount", async () => {
    const from = await funded(100_000_000n, 50n * TRX);
    const to = dest();
    const o = await payout({ fromAddress: from, toAddress: to, amount: "12.345678" });
    expect(o).toMatchObject({ status: "broadcasted", amount: "12.345678" });
    expect(o.txHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(row(o.orderNo).signedMeta!)).toMatchObject({ kind: "TRC20", from, to, amount: "12345678" });
    await tick();
    expect((await get(o.orderNo)).status).toBe("broadcasted"); // included, not solidified yet
    expect(await settle(o.orderNo)).toMatchObject({ status: "confirmed", txHash: o.txHash });
    expect(fx.node.chain.usdt(to)).toBe(12_345_678n);
    expect(fx.node.chain.usdt(from)).toBe(100_000_000n - 12_345_678n);
    expect(sentBy(from)).toHaveLength(1);
    expect(gw.ctx.db.select().from(gasTopups).where(eq(gasTopups.toAddress, from)).all()).toEqual([]);
  });

  test("a source that is not activated and holds no TRX gets a top-up from the gas wallet first, stored before it is sent", async () => {
    const gas = gasWallet(gw.ctx.db, tron, gw.ctx.seed, Date.now());
    await fx.sendTrx(gas.address, 1000n * TRX);
    const from = await funded(10_000_000n, 0n);
    expect(fx.node.chain.activated(from)).toBe(false);
    const to = dest();
    const gasBefore = fx.node.chain.trx(gas.address);
    const o = await payout({ fromAddress: from, toAddress: to, amount: "10" });
    expect(o.status).toBe("broadcasted");
    const topups = gw.ctx.db.select().from(gasTopups).where(eq(gasTopups.payoutOrderId, row(o.orderNo).id)).all();
    expect(topups).toHaveLength(1);
    const needed = await tron.trxNeeded({ txHash: o.txHash, raw: row(o.orderNo).signedTx!, meta: JSON.parse(row(o.orderNo).signedMeta!) });
    expect(topups[0]).toMatchObject({ status: "confirmed", fromAddress: gas.address, toAddress: from, amount: needed.toString() });
    expect(await settle(o.orderNo)).toMatchObject({ status: "confirmed" });
    expect(fx.node.chain.usdt(to)).toBe(10_000_000n);
    expect(fx.node.chain.activated(from)).toBe(true);
    // The gas wallet paid the top-up plus the 1 TRX activation (and maybe bandwidth).
    expect(gasBefore - fx.node.chain.trx(gas.address)).toBeGreaterThanOrEqual(needed + TRX);
    expect(sentBy(gas.address)).toHaveLength(1);
    expect(sentBy(from)).toHaveLength(1);
  });

  test("an empty gas wallet leaves the payout submitted with an error and a retry time; funded, the job finishes it", async () => {
    const gas = gasWallet(gw.ctx.db, tron, gw.ctx.seed, Date.now());
    const keep = fx.node.chain.trx(gas.address);
    fx.node.chain.setTrx(gas.address, 0n);
    const from = await funded(5_000_000n, 0n);
    const o = await payout({ fromAddress: from, toAddress: dest(), amount: "5" });
    expect(o.status).toBe("submitted");
    expect(row(o.orderNo)).toMatchObject({ lastError: expect.stringContaining("gas top-up not sent") });
    expect(row(o.orderNo).retryAt).not.toBeNull();
    fx.node.chain.setTrx(gas.address, keep);
    gw.ctx.db.update(payoutOrders).set({ retryAt: 0 }).where(eq(payoutOrders.orderNo, o.orderNo)).run();
    expect(await settle(o.orderNo)).toMatchObject({ status: "confirmed" });
    const topups = gw.ctx.db.select().from(gasTopups).where(eq(gasTopups.payoutOrderId, row(o.orderNo).id)).all();
    expect(topups.map((t) => t.status)).toEqual(["confirmed"]);
  });

  test("a transfer that runs out of energy on chain fails at stage confirm; the ledger keeps the tokens", async () => {
    const from = await funded(4_000_000n, 50n * TRX);
    const to = dest();
    fx.node.setAutoMine(false);
    let o: Obj;
    try {
      o = await payout({ fromAddress: from, toAddress: to, amount: "4" });
      expect(o.status).toBe("broadcasted");
      // The TRX for energy leaves the source while the transfer waits to be mined.
      fx.node.chain.setTrx(from, 1n);
      fx.node.mine(1);
    } finally {
      fx.node.setAutoMine(true);
    }
    const y = await settle(o.orderNo);
    expect(y).toMatchObject({ status: "failed", failedStage: "confirm", txHash: o.txHash });
    expect(fx.node.chain.usdt(to)).toBe(0n);
    expect(fx.node.chain.usdt(from)).toBe(4_000_000n);
    const addrId = (gw.ctx.db.$client.query("SELECT id FROM addresses WHERE address = ?").get(from) as { id: string }).id;
    expect(gw.ctx.db.select().from(ledgerEntries).where(eq(ledgerEntries.addressId, addrId)).all().map((l) => l.kind)).toEqual(["deposit"]);
  });
});
