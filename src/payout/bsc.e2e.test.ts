// BSC payouts through the gateway on anvil (chain id 56): BEP20 transfers signed
// with the source's HD key, nonces per address, BNB top-ups from the gas wallet,
// receipt status deciding confirmed or failed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { startBscFixture, someAddresses, type BscFixture } from "../testing/bsc-fixture";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { gasTopups, ledgerEntries, payoutOrders } from "../db/schema";
import { gasWallet } from "../wallet/addresses";
import type { BscAdapter } from "../chains/bsc/adapter";
import { encodeAbiParameters, keccak256, type Hex } from "viem";
import { TOKEN_ADDRESSES } from "../testing/anvil";

const E18 = 10n ** 18n;
type Obj = Record<string, any>;
let fx: BscFixture;
let gw: TestGateway;
let bsc: BscAdapter;

beforeAll(async () => {
  fx = await startBscFixture();
  gw = await startTestGateway({ jobs: false, config: { sandbox: { allow_mixed: true }, chains: { BSC: { mode: "rpc", rpc_urls: [fx.proxy.url], confirmations: 3 } } } });
  bsc = gw.ctx.chains.get("BSC") as BscAdapter;
});
afterAll(async () => {
  await gw?.stop();
  await fx?.stop();
});

const tick = () => gw.gateway.runtime.afterChainChange("BSC");
let n = 0;
async function funded(tokens: bigint, bnb: bigint): Promise<string> {
  const b = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "BSC", tokenSymbol: "USDT", bindKey: `bsc-src-${++n}` } });
  await tick();
  await fx.node.mint("USDT", b.address, tokens);
  if (bnb > 0n) await fx.node.setBalance(b.address, bnb);
  await fx.node.mine(2);
  await tick();
  return b.address;
}
const payout = (body: Obj) =>
  gw.client.request<Obj>("POST", "/openapi/payout/orders", {
    body: { chainCode: "BSC", tokenSymbol: "USDT", merchantOrderNo: `BPO-${++n}`, notifyUrl: "https://shop.example/po", ...body },
  });
const get = (orderNo: string) => gw.client.request<Obj>("GET", `/openapi/payout/orders/${orderNo}`);
const row = (orderNo: string) => gw.ctx.db.select().from(payoutOrders).where(eq(payoutOrders.orderNo, orderNo)).get()!;
const nonce = async (address: string) => Number(BigInt(await fx.node.rpc<string>("eth_getTransactionCount", [address, "latest"])));

async function settle(orderNo: string): Promise<Obj> {
  let o = await get(orderNo);
  for (let i = 0; i < 50 && (o.status === "submitted" || o.status === "broadcasted"); i++) {
    await fx.node.mine(1);
    await tick();
    o = await get(orderNo);
  }
  return o;
}

describe("BSC payouts on anvil", () => {
  test("a payout is signed with the source's key, sent, and confirmed; token balances move by exactly the amount", async () => {
    const from = await funded(100n * E18, E18 / 100n);
    const [to] = someAddresses(1, "bsc-payout-1");
    const o = await payout({ fromAddress: from, toAddress: to, amount: "12.345678" });
    expect(o).toMatchObject({ status: "broadcasted", amount: "12.345678" });
    expect(o.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(JSON.parse(row(o.orderNo).signedMeta!)).toMatchObject({ chainId: 56, from, nonce: 0 });
    expect(await settle(o.orderNo)).toMatchObject({ status: "confirmed", txHash: o.txHash });
    expect(await fx.node.tokenBalance("USDT", to)).toBe(12_345_678n * 10n ** 12n);
    expect(await fx.node.tokenBalance("USDT", from)).toBe(100n * E18 - 12_345_678n * 10n ** 12n);
    expect(gw.ctx.db.select().from(gasTopups).where(eq(gasTopups.toAddress, from)).all()).toEqual([]);
  });

  test("a source without BNB gets a top-up from the gas wallet first, stored before it is sent", async () => {
    const gas = gasWallet(gw.ctx.db, bsc, gw.ctx.seed, Date.now());
    await fx.node.setBalance(gas.address, E18);
    const from = await funded(10n * E18, 0n);
    const [to] = someAddresses(1, "bsc-payout-2");
    const o = await payout({ fromAddress: from, toAddress: to, amount: "10" });
    expect(o.status).toBe("broadcasted");
    const topups = gw.ctx.db.select().from(gasTopups).where(eq(gasTopups.payoutOrderId, row(o.orderNo).id)).all();
    expect(topups).toHaveLength(1);
    const meta = JSON.parse(row(o.orderNo).signedMeta!);
    expect(topups[0]).toMatchObject({ status: "confirmed", fromAddress: gas.address, toAddress: from, amount: (BigInt(meta.gasLimit) * BigInt(meta.gasPrice)).toString() });
    expect(await settle(o.orderNo)).toMatchObject({ status: "confirmed" });
    expect(await fx.node.tokenBalance("USDT", to)).toBe(10n * E18);
    expect(await nonce(gas.address)).toBe(1);
    expect(await bsc.nativeBalance(from)).toBeGreaterThanOrEqual(0n);
  });

  test("payouts from one address take consecutive nonces and all confirm", async () => {
    const from = await funded(30n * E18, E18 / 10n);
    const targets = someAddresses(3, "bsc-nonces");
    const orders = await Promise.all(targets.map((to) => payout({ fromAddress: from, toAddress: to, amount: "10" })));
    const nonces = orders.map((o) => JSON.parse(row(o.orderNo).signedMeta!).nonce as number).sort();
    expect(nonces).toEqual([0, 1, 2]);
    for (const o of orders) expect((await settle(o.orderNo)).status).toBe("confirmed");
    for (const to of targets) expect(await fx.node.tokenBalance("USDT", to)).toBe(10n * E18);
    expect(await fx.node.tokenBalance("USDT", from)).toBe(0n);
  });

  test("a transfer that reverts on chain fails at stage confirm; the ledger keeps the tokens", async () => {
    const from = await funded(5n * E18, E18 / 10n);
    const [to] = someAddresses(1, "bsc-revert");
    await fx.node.setAutomine(false);
    let o: Obj;
    try {
      o = await payout({ fromAddress: from, toAddress: to, amount: "4" });
      expect(o.status).toBe("broadcasted");
      // The tokens leave the source while the transfer waits in the mempool (balanceOf is slot 0 of the test token).
      const slot = keccak256(encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [from as Hex, 0n]));
      await fx.node.rpc("anvil_setStorageAt", [TOKEN_ADDRESSES.USDT, slot, "0x" + "0".repeat(64)]);
      await fx.node.mine(1);
    } finally {
      await fx.node.setAutomine(true);
    }
    const y = await settle(o.orderNo);
    expect(y).toMatchObject({ status: "failed", failedStage: "confirm", txHash: o.txHash });
    expect(y.lastError).toContain("reverted");
    expect(await fx.node.tokenBalance("USDT", to)).toBe(0n);
    const ledger = gw.ctx.db.select().from(ledgerEntries).where(eq(ledgerEntries.addressId, row0(from))).all();
    expect(ledger.map((l) => l.kind)).toEqual(["deposit"]);
  });
});

function row0(address: string): string {
  return (gw.ctx.db.$client.query("SELECT id FROM addresses WHERE address = ?").get(address) as { id: string }).id;
}
