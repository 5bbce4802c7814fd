// TRON energy in stake mode (DESIGN 21) through an in-process gateway on the TRON test node:
// the energy wallet stakes; a payout gets the energy it needs delegated to its source (signed
// and stored first), burns no TRX for it, and the delegation is reclaimed once the payout is
// final; with too little stake free, fallback "burn" burns as burn mode does and "wait" keeps
// the payout unsigned until the stake has regenerated.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { startTestGateway, type TestGateway } from "../../testing/harness";
import { seedRows } from "../../testing/seed";
import { writeTx } from "../../db/client";
import { startTronChain, type TronChainFixture } from "../../testing/chain-fixture";
import { TRX } from "../../testing/tron-fixture";
import { ENERGY_EXISTING_HOLDER, ENERGY_NEW_HOLDER } from "../../testing/tron-chain";
import { energyDelegations, gasTopups, payoutOrders, transferCosts } from "../../db/schema";
import { feeTotals } from "../../lib/event-metrics";
import { addressBook, gasWallet } from "../../wallet/addresses";
import { payoutStore } from "../../payout/store";
import { chainBundle } from "../factory";
import type { StakingControl } from "../module";
import type { TronAdapter } from "./adapter";
import { ENERGY_WALLET_INDEX } from "./energy";
import { addUser } from "../../testing/backoffice-browser";
import { backofficeSignIn } from "../../testing/backoffice-client";
import { fromBaseUnits } from "../../lib/money";

type Obj = Record<string, any>;
let fx: TronChainFixture;
let gw: TestGateway;
let adapter: TronAdapter;
let control: StakingControl;

beforeAll(async () => {
  fx = await startTronChain({ autoMine: true, solidLag: 3 });
  fx.raw.node.mine(5);
  gw = await startTestGateway({ jobs: false, config: { sandbox: { allow_mixed: true }, backoffice: { require_2fa: false }, chains: { TRON: { ...fx.gatewayConfig(3), energy: { mode: "stake", fallback: "burn" } } } } });
  adapter = gw.ctx.chains.get("TRON") as TronAdapter;
  control = chainBundle(adapter).staking!(gw.ctx)!;
  await fx.sendNative((await writeTx(gw.ctx.db, async (tx) => await gasWallet(tx, adapter, gw.ctx.seed, Date.now()))).address, 1_000n * TRX);
});
afterAll(async () => {
  await gw?.stop();
  await fx?.stop();
});

const chain = () => fx.raw.node.chain;
const tick = () => gw.gateway.runtime.afterChainChange("TRON");
const reclaim = () => chainBundle(adapter).jobs!(gw.ctx, addressBook, payoutStore)[0]!.run();
let n = 0;
async function funded(tokens: bigint): Promise<string> {
  const b = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: `energy-src-${++n}` } });
  await tick();
  await fx.pay(b.address, tokens * 1_000_000n);
  await fx.advance(4);
  await tick();
  return b.address;
}
const payout = (body: Obj) => gw.client.request<Obj>("POST", "/openapi/payout/orders", { body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `EN-${++n}`, notifyUrl: "https://shop.example/po", ...body } });
const get = (orderNo: string) => gw.client.request<Obj>("GET", `/openapi/payout/orders/${orderNo}`);
const row = (orderNo: string) => gw.ctx.db.select().from(payoutOrders).where(eq(payoutOrders.orderNo, orderNo)).get()!;
const delegationsOf = (orderNo: string) => gw.ctx.db.select().from(energyDelegations).where(eq(energyDelegations.payoutOrderId, row(orderNo).id)).all();
async function settle(orderNo: string): Promise<Obj> {
  let o = await get(orderNo);
  for (let i = 0; i < 30 && (o.status === "submitted" || o.status === "broadcasted"); i++) {
    await fx.advance(1);
    await tick();
    o = await get(orderNo);
  }
  return o;
}
const receipt = (txHash: string) => chain().find(txHash) as { included: { info: Obj } };
const gasAddress = async () => (await writeTx(gw.ctx.db, async (tx) => await gasWallet(tx, adapter, gw.ctx.seed, Date.now()))).address;
/** Sun an address holds, staked and delegated stake included. */
const holds = (a: string) => {
  const x = chain().accountOf(a);
  return x ? x.balance + x.frozenEnergy + x.delegatedOut : 0n;
};
const costsOf = (orderNo: string) => gw.ctx.db.select().from(transferCosts).where(eq(transferCosts.payoutOrderId, row(orderNo).id)).all();
const burned = (orderNo: string) => costsOf(orderNo).reduce((s, c) => s + BigInt(c.nativeBurned), 0n);
/** What stablegate_fees_native_total counts (ops/metrics.ts serves it in whole TRX), in sun. */
const feeMetric = (kind: string) => feeTotals.get(`TRON\u0000${kind}`) ?? 0n;

describe("TRON energy: stake mode", () => {
  let wallet: string;

  test("energy stake: the energy wallet (its own HD index) stakes TRX for energy; status says so", async () => {
    const s0 = await control.status();
    wallet = s0.address!;
    expect(wallet).toBe(adapter.deriveKey(gw.ctx.seed, ENERGY_WALLET_INDEX).address);
    expect(s0).toEqual({ address: wallet, stakedTrx: "0", energyAvailable: "0", energyDelegated: "0", transfersServed: "0", trxSaved: "0" });
    await expect(control.stake("100")).rejects.toThrow(/holds 0 TRX; send it TRX first/);
    await fx.sendNative(wallet, 25_000n * TRX);
    await control.stake("20000");
    expect(chain().accountOf(wallet)!.frozenEnergy).toBe(20_000n * TRX);
    expect(await control.status()).toEqual({ address: wallet, stakedTrx: "20000", energyAvailable: "200000", energyDelegated: "0", transfersServed: "0", trxSaved: "0" });
  });

  test("a payout: energy delegated to the source before it is sent, no TRX burned for energy, reclaimed once final", async () => {
    const from = await funded(50n);
    const [to] = fx.receivers(1, "energy-new-holder");
    const before = holds(await gasAddress()) + holds(wallet);
    const o = await payout({ fromAddress: from, toAddress: to, amount: "10" });
    expect(o.status).toBe("broadcasted");
    const meta = JSON.parse(row(o.orderNo).signedMeta!);
    const [d] = delegationsOf(o.orderNo);
    // 130,285 energy × 1.2 margin = 156,342 → 15,635 TRX of stake at 10 energy per TRX.
    expect(meta.energy).toBe(String((ENERGY_NEW_HOLDER * 12n + 9n) / 10n));
    expect(d).toMatchObject({ status: "delegated", owner: wallet, receiver: from, amount: String(15_635n * TRX), energy: "156350" });
    expect(chain().delegated(wallet, from)).toBe(15_635n * TRX);
    // The top-up only activated the source and paid its bandwidth: no fee limit's worth of TRX.
    const [t] = gw.ctx.db.select().from(gasTopups).where(eq(gasTopups.payoutOrderId, row(o.orderNo).id)).all();
    expect(BigInt(t!.amount)).toBeLessThan(1n * TRX);
    const r = receipt(o.txHash).included.info;
    expect(r.receipt).toMatchObject({ result: "SUCCESS", energy_usage: Number(ENERGY_NEW_HOLDER), energy_usage_total: Number(ENERGY_NEW_HOLDER) });
    expect(r.receipt.energy_fee).toBeUndefined();

    expect(await reclaim()).toBe(0); // not final yet: the delegation stays
    expect(await settle(o.orderNo)).toMatchObject({ status: "confirmed" });
    expect(chain().usdt(to!)).toBe(10_000_000n);
    expect(await reclaim()).toBe(1);
    expect(delegationsOf(o.orderNo)[0]).toMatchObject({ status: "reclaimed", energyUsed: String(ENERGY_NEW_HOLDER), sunSaved: String(ENERGY_NEW_HOLDER * 100n) });
    expect(chain().delegated(wallet, from)).toBe(0n);
    expect(chain().accountOf(wallet)!.frozenEnergy).toBe(20_000n * TRX); // the stake is whole again
    expect(await reclaim()).toBe(0);
    const s = await control.status();
    expect(s).toMatchObject({ stakedTrx: "20000", energyDelegated: "0", transfersServed: "1", trxSaved: "13.0285" });
    // The energy the transfer used weighs on the stake until it regenerates (linearly over 24 h of
    // the node's clock: a loaded machine's few seconds between the transfer and this read give back
    // a handful of units, so allow up to 1% of what was used, about 14 minutes' worth).
    const available = BigInt(s.energyAvailable!);
    expect(available).toBeGreaterThanOrEqual(200_000n - ENERGY_NEW_HOLDER);
    expect(available).toBeLessThanOrEqual(200_000n - ENERGY_NEW_HOLDER + ENERGY_NEW_HOLDER / 100n);
    // The fee ledger: a row per transaction sent for this payout, and what the gateway's
    // addresses lost is exactly their sum (the activation of the source included).
    const costs = costsOf(o.orderNo);
    expect(costs.map((c) => c.kind).sort()).toEqual(["delegate", "gas_topup", "payout", "reclaim"]);
    expect(costs.find((c) => c.kind === "payout")).toMatchObject({ nativeBurned: "0", energyDelegated: String(ENERGY_NEW_HOLDER), energyBurned: "0" });
    expect(costs.find((c) => c.kind === "gas_topup")!.nativeBurned).toBe(String(1n * TRX)); // the activation; bandwidth free
    expect(before - (holds(await gasAddress()) + holds(wallet) + holds(from))).toBe(burned(o.orderNo));
  });

  test("fallback burn: too little stake free → the transfer burns TRX as in burn mode, nothing delegated", async () => {
    const from = await funded(20n);
    const [to] = fx.receivers(1, "energy-new-holder"); // an existing holder now: 64,285 × 1.2 = 77,142 energy > ~69,700 free
    const before = holds(await gasAddress());
    const metricBefore = feeMetric("payout");
    const o = await payout({ fromAddress: from, toAddress: to, amount: "5" });
    expect(o.status).toBe("broadcasted");
    expect(delegationsOf(o.orderNo)).toEqual([]);
    const r = receipt(o.txHash).included.info;
    expect(r.receipt).toMatchObject({ result: "SUCCESS", energy_fee: Number(ENERGY_EXISTING_HOLDER) * 100 });
    expect(await settle(o.orderNo)).toMatchObject({ status: "confirmed" });
    const pay = costsOf(o.orderNo).find((c) => c.kind === "payout")!;
    expect(pay).toMatchObject({ nativeBurned: String(ENERGY_EXISTING_HOLDER * 100n), energyDelegated: "0", energyBurned: String(ENERGY_EXISTING_HOLDER) });
    expect(before - (holds(await gasAddress()) + holds(from))).toBe(burned(o.orderNo));
    expect(feeMetric("payout") - metricBefore).toBe(ENERGY_EXISTING_HOLDER * 100n);
  });

  test("fallback wait: the payout waits unsigned while the stake is short; once it regenerated it goes out on delegated energy", async () => {
    adapter.energy.fallback = "wait";
    try {
      const from = await funded(20n);
      const [to] = fx.receivers(1, "energy-new-holder");
      const o = await payout({ fromAddress: from, toAddress: to, amount: "7" });
      expect(o.status).toBe("submitted");
      const waiting = row(o.orderNo);
      expect(waiting.lastError).toContain("waiting for the energy stake to regenerate");
      expect(waiting.signedTx).toBeNull();
      expect(waiting.retryAt).not.toBeNull();
      expect(await fx.sentBy(from)).toBe(0);
      // A day later the stake's usage has recovered.
      chain().advanceTime(24 * 3_600_000);
      fx.raw.node.mine(1);
      await seedRows(gw.ctx.db, (tx) => void tx.update(payoutOrders).set({ retryAt: 0 }).where(eq(payoutOrders.orderNo, o.orderNo)).run());
      expect(await settle(o.orderNo)).toMatchObject({ status: "confirmed" });
      expect(delegationsOf(o.orderNo)[0]).toMatchObject({ status: "delegated", amount: String(7_715n * TRX) });
      expect(receipt(row(o.orderNo).txHash!).included.info.receipt.energy_fee).toBeUndefined();
      expect(await reclaim()).toBe(1);
      expect(chain().delegated(wallet, from)).toBe(0n);
      expect(await fx.sentBy(from)).toBe(1);
    } finally {
      adapter.energy.fallback = "burn";
    }
  });

  test("the back office shows it: the payout page lists each transaction's cost; Fees sums them per chain and day", async () => {
    const firstOrder = gw.ctx.db.select().from(payoutOrders).orderBy(payoutOrders.id).get()!;
    const op = await backofficeSignIn(gw.url, await addUser(gw, "fees-op", "operator"));
    const page = await (await op.get(`/backoffice/orders/${firstOrder.orderNo}`)).text();
    expect(page).toContain("Network cost");
    expect(page).toContain("energy delegation");
    expect(page).toContain(String(ENERGY_NEW_HOLDER)); // energy delegated to the transfer
    const all = gw.ctx.db.select().from(transferCosts).all();
    const total = all.reduce((s, c) => s + BigInt(c.nativeBurned), 0n);
    const fees = await (await op.get("/backoffice/fees")).text();
    const day = new Date().toISOString().slice(0, 10);
    expect(fees).toContain(day);
    expect(fees).toContain(`${fromBaseUnits(total, 6, 0)} TRX`);
    // A merchant user sees its payouts' costs: the stake (no payout) is the operator's alone.
    const merchant = await backofficeSignIn(gw.url, await addUser(gw, "fees-m", "merchant", gw.merchant.uid));
    const mine = all.filter((c) => c.payoutOrderId !== null).reduce((s, c) => s + BigInt(c.nativeBurned), 0n);
    expect(await (await merchant.get("/backoffice/fees")).text()).toContain(`${fromBaseUnits(mine, 6, 0)} TRX`);
  });
});
