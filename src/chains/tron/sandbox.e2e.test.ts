// The sandbox TRON chain rehearses TRON's costs and every [chains.TRON.energy] setting over HTTP
// (DESIGN 21), as `make run` does: gas wallets start funded, so a payout needs no set-up; a
// TRC20 payout burns mainnet's figures (130,285 energy × 100 sun to a new holder, 1 TRX to
// activate the source); POST /sandbox/transfers sends TRX to the energy wallet, which stakes;
// in stake mode the energy is delegated before the payout and reclaimed once it is final; with
// too little stake free, fallback "burn" burns and "wait" waits until the stake can cover it.
// The pay-in order page shows what its refund cost.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { startTestGateway, type TestGateway } from "../../testing/harness";
import { sandboxClient } from "../../testing/sandbox";
import { seedRows } from "../../testing/seed";
import { SANDBOX_GAS_FUNDING, type SandboxChain } from "../sandbox/chain";
import { energyDelegations, payoutOrders, transferCosts } from "../../db/schema";
import { writeTx } from "../../db/client";
import { addressBook, gasWallet } from "../../wallet/addresses";
import { payoutStore } from "../../payout/store";
import { randomAddress } from "../../wallet/hd";
import { chainBundle } from "../factory";
import { chainModule } from "../registry";
import type { StakingControl } from "../module";
import type { TronEnergyConfig } from "./adapter";
import { ENERGY_WALLET_INDEX } from "./energy";
import { ENERGY_EXISTING_HOLDER, ENERGY_NEW_HOLDER } from "./resources";
import { addUser } from "../../testing/backoffice-browser";
import { backofficeSignIn } from "../../testing/backoffice-client";
import { fromBaseUnits } from "../../lib/money";
import { confirmCollection, previewCollection, runCollection, runLegs, setCollectionSetting } from "../../treasury/collection";

type Obj = Record<string, any>;
const TRX = 1_000_000n;
let gw: TestGateway;
let sb: ReturnType<typeof sandboxClient>;
let tron: SandboxChain;
let control: StakingControl;
let energy: TronEnergyConfig;

beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { chains: { TRON: { confirmations: 3, energy: { mode: "burn", fallback: "burn" } }, BSC: { confirmations: 3 } } } });
  sb = sandboxClient(gw.url);
  tron = gw.ctx.chains.get("TRON") as SandboxChain;
  control = chainBundle(tron).staking!(gw.ctx)!;
  // The section as the chain's bundle read it: switching its keys rehearses each setting without a restart.
  energy = (gw.ctx.config.chains.TRON as unknown as { energy: TronEnergyConfig }).energy;
});
afterAll(() => gw?.stop());

let n = 0;
async function funded(tokens: string): Promise<string> {
  const b = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: `sbx-energy-${++n}` } });
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount: tokens });
  await sb.mine("TRON", 3);
  return b.address;
}
const payout = (body: Obj) => gw.client.request<Obj>("POST", "/openapi/payout/orders", { body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `SE-${++n}`, notifyUrl: "https://shop.example/po", ...body } });
const get = (orderNo: string) => gw.client.request<Obj>("GET", `/openapi/payout/orders/${orderNo}`);
const row = (orderNo: string) => gw.ctx.db.select().from(payoutOrders).where(eq(payoutOrders.orderNo, orderNo)).get()!;
const delegationsOf = (orderNo: string) => gw.ctx.db.select().from(energyDelegations).where(eq(energyDelegations.payoutOrderId, row(orderNo).id)).all();
const costsOf = (orderNo: string) => gw.ctx.db.select().from(transferCosts).where(eq(transferCosts.payoutOrderId, row(orderNo).id)).all();
const burned = (orderNo: string) => costsOf(orderNo).reduce((s, c) => s + BigInt(c.nativeBurned), 0n);
const reclaim = () => chainBundle(tron).jobs!(gw.ctx, addressBook, payoutStore)[0]!.run();
const gasAddress = async () => (await writeTx(gw.ctx.db, async (tx) => await gasWallet(tx, tron, gw.ctx.seed, Date.now()))).address;
/** Sun an address holds, its stake (held or delegated) included. */
const holds = async (a: string) =>
  await tron.read(async (v) => {
    const s = await v.account<{ frozen: string; delegatedOut: string }>(a);
    return await v.balance(a, "TRX") + BigInt(s?.frozen ?? 0) + BigInt(s?.delegatedOut ?? 0);
  });
async function confirmed(orderNo: string): Promise<Obj> {
  await sb.mine("TRON", 3);
  return get(orderNo);
}

describe("sandbox TRON: costs and energy rehearsed over HTTP", () => {
  let wallet: string;

  test("every sandbox chain's gas wallet starts funded: a payout needs no set-up and burns mainnet's figures", async () => {
    for (const [code, adapter] of gw.ctx.chains) {
      const gas = (await writeTx(gw.ctx.db, async (tx) => await gasWallet(tx, adapter, gw.ctx.seed, Date.now()))).address;
      expect(await (adapter as SandboxChain).nativeBalance(gas)).toBe(SANDBOX_GAS_FUNDING * 10n ** BigInt(chainModule(code).native.decimals));
    }
    await gw.gateway.runtime.ops.gas.refresh("TRON");
    expect((await gw.gateway.runtime.ops.gas.get("TRON"))!.balance).toBe(String(SANDBOX_GAS_FUNDING));

    const from = await funded("30");
    const before = await holds(await gasAddress());
    const o = await payout({ fromAddress: from, toAddress: randomAddress("TRON"), amount: "10" });
    expect(o.status).toBe("broadcasted");
    expect(await confirmed(o.orderNo)).toMatchObject({ status: "confirmed" });
    const costs = costsOf(o.orderNo);
    expect(costs.map((c) => c.kind).sort()).toEqual(["gas_topup", "payout"]);
    // 130,285 energy to a new holder at 100 sun, the day's free bandwidth; the top-up paid the source's activation.
    expect(costs.find((c) => c.kind === "payout")).toMatchObject({ nativeBurned: String(ENERGY_NEW_HOLDER * 100n), energyBurned: String(ENERGY_NEW_HOLDER), energyDelegated: "0", bandwidth: "345" });
    expect(costs.find((c) => c.kind === "gas_topup")!.nativeBurned).toBe(String(1n * TRX));
    // The fee ledger sums exactly what the gateway's addresses lost.
    expect(before - (await holds(await gasAddress()) + await holds(from))).toBe(burned(o.orderNo));
  });

  test("POST /sandbox/transfers sends TRX (the native coin), e.g. to fund the energy wallet; bad input is refused", async () => {
    wallet = gw.ctx.chains.get("TRON")!.deriveKey(gw.ctx.seed, ENERGY_WALLET_INDEX).address;
    expect((await control.status()).address).toBe(wallet);
    await expect(control.stake("100")).rejects.toThrow(/holds 0 TRX; send it TRX first/);
    const r = await sb.transfer({ chainCode: "TRON", tokenSymbol: "TRX", toAddress: wallet, amount: "25000" });
    expect(r.txHash).toMatch(/^[0-9a-f]{64}$/);
    expect(await tron.nativeBalance(wallet)).toBe(25_000n * TRX);
    const tooFine = await sb.raw("/transfers", { chainCode: "TRON", tokenSymbol: "TRX", toAddress: wallet, amount: "1.0000001" });
    expect(tooFine.status).toBe(400);
    const wrongChain = await sb.raw("/transfers", { chainCode: "BSC", tokenSymbol: "TRX", toAddress: randomAddress("BSC"), amount: "1" });
    expect(wrongChain.status).toBe(400);
    expect(await tron.nativeBalance(wallet)).toBe(25_000n * TRX);
  });

  test("stake mode: the energy wallet stakes; a payout gets its energy delegated, burns none, and the delegation comes back once final", async () => {
    energy.mode = "stake";
    await control.stake("20000");
    expect(await control.status()).toEqual({ address: wallet, stakedTrx: "20000", energyAvailable: "200000", energyDelegated: "0", transfersServed: "0", trxSaved: "0" });
    const from = await funded("50");
    const to = randomAddress("TRON");
    const before = await holds(await gasAddress()) + await holds(wallet);
    const o = await payout({ fromAddress: from, toAddress: to, amount: "10" });
    expect(o.status).toBe("broadcasted");
    // 130,285 × 1.2 = 156,342 energy → 15,635 TRX of stake at 10 energy per TRX.
    expect(delegationsOf(o.orderNo)[0]).toMatchObject({ status: "delegated", owner: wallet, receiver: from, amount: String(15_635n * TRX), energy: "156350" });
    expect(await reclaim()).toBe(0); // not final yet
    expect(await confirmed(o.orderNo)).toMatchObject({ status: "confirmed" });
    expect(await reclaim()).toBe(1);
    expect(delegationsOf(o.orderNo)[0]).toMatchObject({ status: "reclaimed", energyUsed: String(ENERGY_NEW_HOLDER), sunSaved: String(ENERGY_NEW_HOLDER * 100n) });
    const s = await control.status();
    expect(s).toMatchObject({ stakedTrx: "20000", energyDelegated: "0", transfersServed: "1", trxSaved: "13.0285" });
    // What was used recovers linearly over 24 h from its use: a few units per second of test time
    // (a loaded CI run read 5 more than the exact figure). At most a minute's worth here.
    const available = BigInt(s.energyAvailable as string);
    expect(available).toBeGreaterThanOrEqual(200_000n - ENERGY_NEW_HOLDER);
    expect(available).toBeLessThanOrEqual(200_000n - ENERGY_NEW_HOLDER + (ENERGY_NEW_HOLDER * 60n) / 86_400n);
    const costs = costsOf(o.orderNo);
    expect(costs.map((c) => c.kind).sort()).toEqual(["delegate", "gas_topup", "payout", "reclaim"]);
    expect(costs.find((c) => c.kind === "payout")).toMatchObject({ nativeBurned: "0", energyDelegated: String(ENERGY_NEW_HOLDER), energyBurned: "0" });
    expect(before - (await holds(await gasAddress()) + await holds(wallet) + await holds(from))).toBe(burned(o.orderNo));
  });

  test("fallback burn: too little stake free → the payout burns TRX, nothing delegated", async () => {
    const from = await funded("20");
    const to = randomAddress("TRON");
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: to, amount: "1" }); // an existing holder: 64,285 × 1.2 = 77,142 > 69,715 free
    const o = await payout({ fromAddress: from, toAddress: to, amount: "5" });
    expect(o.status).toBe("broadcasted");
    expect(delegationsOf(o.orderNo)).toEqual([]);
    expect(await confirmed(o.orderNo)).toMatchObject({ status: "confirmed" });
    expect(costsOf(o.orderNo).find((c) => c.kind === "payout")).toMatchObject({ nativeBurned: String(ENERGY_EXISTING_HOLDER * 100n), energyDelegated: "0", energyBurned: String(ENERGY_EXISTING_HOLDER) });
  });

  test("fallback wait: the payout waits unsigned while the stake is short; staking more lets it out on delegated energy", async () => {
    energy.fallback = "wait";
    try {
      const from = await funded("20");
      const to = randomAddress("TRON");
      await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: to, amount: "1" });
      const o = await payout({ fromAddress: from, toAddress: to, amount: "7" });
      expect(o.status).toBe("submitted");
      expect(row(o.orderNo)).toMatchObject({ signedTx: null });
      expect(row(o.orderNo).lastError).toContain("waiting for the energy stake to regenerate");
      expect(await tron.outgoingCount(from)).toBe(0);
      await control.stake("1000"); // +10,000 energy: 79,715 free ≥ 77,142
      await seedRows(gw.ctx.db, (tx) => void tx.update(payoutOrders).set({ retryAt: 0 }).where(eq(payoutOrders.orderNo, o.orderNo)).run());
      await gw.gateway.runtime.afterChainChange("TRON"); // the payout run retries it
      expect(await get(o.orderNo)).toMatchObject({ status: "broadcasted" });
      expect(await confirmed(o.orderNo)).toMatchObject({ status: "confirmed" });
      expect(delegationsOf(o.orderNo)[0]).toMatchObject({ amount: String(7_715n * TRX) });
      expect(costsOf(o.orderNo).find((c) => c.kind === "payout")).toMatchObject({ nativeBurned: "0", energyDelegated: String(ENERGY_EXISTING_HOLDER) });
      expect(await reclaim()).toBe(1);
      expect(await tron.outgoingCount(from)).toBe(1);
    } finally {
      energy.fallback = "burn";
      energy.mode = "burn";
    }
  });

  test("the pay-in order page shows what its refund cost; the Fees page sums the day", async () => {
    const o = await gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `SE-${++n}`, amount: "12", notifyUrl: "https://shop.example/pi" });
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "12" });
    await sb.mine("TRON", 4);
    const r = await gw.client.createRefund(o.orderNo, { refundNo: "SE-R1", amount: "5", toAddress: randomAddress("TRON"), notifyUrl: "https://shop.example/rf" });
    expect(r.status).toBe("broadcasted");
    await sb.mine("TRON", 3);
    const [pay] = costsOf(r.payoutOrderNo!).filter((c) => c.kind === "payout");
    expect(pay).toMatchObject({ txHash: r.txHash, nativeBurned: String(ENERGY_NEW_HOLDER * 100n) });
    const op = await backofficeSignIn(gw.url, await addUser(gw, "sbx-fees-op", "operator"));
    const page = await (await op.get(`/backoffice/orders/${o.orderNo}`)).text();
    expect(page).toContain("Network cost");
    expect(page).toContain(r.txHash!);
    expect(page).toContain(`${fromBaseUnits(ENERGY_NEW_HOLDER * 100n, 6, 0)} TRX`);
    // A deposit order's page shows the collection leg that swept its money.
    const b = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: "sbx-swept" } });
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount: "45" });
    await sb.mine("TRON", 4);
    const deposit = gw.ctx.db.$client.query<{ orderNo: string }, [string]>("SELECT p.order_no AS orderNo FROM payin_orders p JOIN addresses a ON a.id = p.address_id WHERE a.address = ?").get(b.address)!;
    const user = { actor: "sbx", role: "merchant" as const, ip: "127.0.0.1" };
    await setCollectionSetting(gw.ctx, gw.merchant.id, { chainCode: "TRON", tokenSymbol: "USDT", destination: randomAddress("TRON"), minimum: "41" }, user); // the other addresses hold at most 40
    const run = await previewCollection(gw.ctx, gw.merchant.id, "TRON", "USDT", user);
    const legs = await runLegs(gw.ctx.db, run.id);
    expect(legs.map((l) => l.leg.fromAddress)).toEqual([b.address]);
    await confirmCollection({ db: gw.ctx.db, now: () => Date.now() }, gw.merchant.id, run.id, user);
    await runCollection(gw.ctx, run.id, gw.gateway.runtime.treasury);
    await sb.mine("TRON", 3);
    const leg = (await runLegs(gw.ctx.db, run.id))[0]!.order!;
    expect(leg.status).toBe("confirmed");
    const swept = await (await op.get(`/backoffice/orders/${deposit.orderNo}`)).text();
    expect(swept).toContain("Network cost");
    expect(swept).toContain(leg.txHash!);

    const all = gw.ctx.db.select().from(transferCosts).where(eq(transferCosts.chain, "TRON")).all();
    const fees = await (await op.get("/backoffice/fees")).text();
    expect(fees).toContain(`${fromBaseUnits(all.reduce((s, c) => s + BigInt(c.nativeBurned), 0n), 6, 0)} TRX`);
  });
});
