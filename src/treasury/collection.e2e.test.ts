// Collection over 50 funded deposit addresses on BSC (anvil), on TRON (the
// fake node) and of USDT on SOL (LiteSVM), and over a few on each EVM network of
// DESIGN 23 (anvil with the chain's id): every leg is an ordinary payout,
// confirmed; the sources end at zero on chain and in the ledger, the destination
// holds the sum, and the gas wallet paid the gas (the sources held no native
// coin): by top-ups on BSC and TRON, as every leg's fee payer on SOL, where the
// fee ledger (transfer_costs) sums exactly to what the gas wallet spent.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { mnemonicToSeedSync } from "@scure/bip39";
import { startBscFixture, someAddresses, type BscFixture } from "../testing/bsc-fixture";
import { startTronFixture, TRX, type TronFixture } from "../testing/tron-fixture";
import { startSolFixture, someSolAddresses, type SolFixture } from "../testing/sol-fixture";
import { USDT_MINT } from "../testing/solana-rpc";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { writeTx } from "../db/client";
import { startEvmChain, startTonChain, type EvmChainFixture, type TonChainFixture } from "../testing/chain-fixture";
import { stopSharedAnvils } from "../testing/anvil";
import { chainModule } from "../chains/registry";
import { deriveTronKey } from "../chains/tron/address";
import type { ChainAdapter, ChainCode } from "../chains/types";
import { addresses, gasTopups, transferCosts } from "../db/schema";
import { tableRow, tableRows } from "../testing/engine-rows";
import { testSql } from "../testing/engine-rows";
import { gasWallet } from "../wallet/addresses";
import { addressBalance, reconcileChain } from "../payout/balances";
import { balanceSheet } from "./balances";
import { collectedTotal, confirmCollection, previewCollection, runCollection, runLegs, runProgress, setCollectionSetting } from "./collection";

type Obj = Record<string, any>;
const E18 = 10n ** 18n;
const LEGS = 50;
const USER = { actor: "demo", role: "merchant", ip: "127.0.0.1" };
let bscFx: BscFixture;
let tronFx: TronFixture;
let solFx: SolFixture;
let gw: TestGateway;

beforeAll(async () => {
  [bscFx, tronFx, solFx] = await Promise.all([startBscFixture(), startTronFixture({ solidLag: 3, autoMine: true }), startSolFixture({ confirmedLag: 1, finalizedLag: 4 })]);
  tronFx.node.mine(5);
  gw = await startTestGateway({
    jobs: false,
    config: {
      chains: {
        BSC: { mode: "rpc", rpc_urls: [bscFx.proxy.url], confirmations: 2 },
        TRON: { mode: "rpc", rpc_urls: [tronFx.node.url], confirmations: 3 },
        SOL: { mode: "rpc", rpc_urls: [solFx.proxy.url], confirmations: 4 },
      },
    },
  });
});
afterAll(async () => {
  await gw?.stop();
  await bscFx?.stop();
  await tronFx?.stop();
  await solFx?.stop();
});

interface ChainKit {
  chain: ChainCode;
  unit: bigint;
  /** The native coin the gas estimate names. */
  nativeSymbol: string;
  /** SOL: the gas wallet pays every leg's fee as fee payer (no top-ups). */
  gasPaysFees?: boolean;
  fund(address: string, tokens: bigint): Promise<void>;
  fundGas(address: string): Promise<void>;
  mine(n: number): Promise<void>;
  token(address: string): Promise<bigint>;
  native(address: string): Promise<bigint>;
  destination: string;
  /** Chain-specific checks once every leg confirmed: the gas wallet's and the sources' native coin before the run. */
  after?(at: { gas: string; gasBefore: bigint; sourcesBefore: Map<string, bigint>; orderIds: number[] }): Promise<void>;
}

const kits = (): ChainKit[] => [
  {
    chain: "BSC",
    unit: E18,
    nativeSymbol: "BNB",
    fund: async (a, t) => void (await bscFx.node.mint("USDT", a, t)),
    fundGas: (a) => bscFx.node.setBalance(a, E18),
    mine: (n) => bscFx.node.mine(n).then(() => {}),
    token: (a) => bscFx.node.tokenBalance("USDT", a),
    native: async (a) => BigInt(await bscFx.node.rpc<string>("eth_getBalance", [a, "latest"])),
    destination: someAddresses(1, "cold-wallet")[0]!,
  },
  {
    chain: "TRON",
    unit: 1_000_000n,
    nativeSymbol: "TRX",
    fund: async (a, t) => void (await tronFx.sendUsdt(a, t)),
    fundGas: async (a) => void (await tronFx.sendTrx(a, 100_000n * TRX)),
    mine: async (n) => void tronFx.node.mine(n),
    token: async (a) => tronFx.node.chain.usdt(a),
    native: async (a) => tronFx.node.chain.trx(a),
    destination: deriveTronKey(mnemonicToSeedSync("zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong"), 7).address,
  },
  {
    chain: "SOL",
    unit: 1_000_000n,
    nativeSymbol: "SOL",
    gasPaysFees: true,
    fund: async (a, t) => void solFx.node.mint(a, t, USDT_MINT),
    fundGas: async (a) => solFx.node.airdrop(a, 1_000_000_000n),
    mine: async (n) => solFx.node.advance(n),
    token: async (a) => solFx.node.tokenBalance(a, USDT_MINT),
    native: async (a) => solFx.node.lamports(a),
    destination: someSolAddresses(1, "cold-wallet")[0]!,
  },
];

/** `legs` funded deposit addresses of `k.chain` swept by one collection run of `gw`. */
async function collects(gw: TestGateway, k: ChainKit, legs: number): Promise<void> {
    const tick = () => gw.gateway.runtime.afterChainChange(k.chain);
    const adapter = gw.ctx.chains.get(k.chain) as ChainAdapter;
    const m = await gw.newMerchant(`collector-${k.chain}`);
    const gas = await writeTx(gw.ctx.db, async (tx) => await gasWallet(tx, adapter, gw.ctx.seed, Date.now()));
    await k.fundGas(gas.address);

    // `legs` exclusive deposit addresses with 10, 11, … USDT each, and one below the minimum.
    const sources: Array<{ address: string; amount: bigint }> = [];
    for (let i = 0; i < legs + 1; i++) {
      const b = await m.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: k.chain, tokenSymbol: "USDT", bindKey: `user-${i}` } });
      sources.push({ address: b.address, amount: i < legs ? BigInt(10 + i) * k.unit + 250_000n * (k.unit / 1_000_000n) : 2n * k.unit });
    }
    await tick();
    for (const s of sources) await k.fund(s.address, s.amount);
    await k.mine(5);
    await tick();
    const ledgerOf = async (a: string) => await addressBalance(gw.ctx.db, (await tableRow(gw.ctx.db, addresses, { address: a }))!.id, "USDT");
    for (const s of sources) expect((await ledgerOf(s.address)).available).toBe(s.amount);

    await setCollectionSetting(gw.ctx, m.id, { chainCode: k.chain, tokenSymbol: "USDT", destination: k.destination, minimum: "5" }, USER);
    const run = await previewCollection(gw.ctx, m.id, k.chain, "USDT", USER);
    const swept = sources.slice(0, legs);
    const sum = swept.reduce((t, s) => t + s.amount, 0n);
    expect(run).toMatchObject({ status: "preview", legCount: legs, total: sum.toString(), destination: k.destination });
    expect(JSON.parse(run.gas)).toMatchObject({ transfers: legs, native: k.nativeSymbol });
    expect(BigInt(JSON.parse(run.gas).total)).toBeGreaterThan(0n);
    // The same legs (source and amount), compared as a set: the legs' order follows the funded
    // addresses' scan, which is the engine's (PostgreSQL's TRON legs come out in another order).
    const byAddress = (a: [string, bigint], b: [string, bigint]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
    const legsOf = (await runLegs(gw.ctx.db, run.id)).map((l): [string, bigint] => [l.leg.fromAddress, BigInt(l.leg.amount)]);
    expect(legsOf.sort(byAddress)).toEqual(swept.map((s): [string, bigint] => [s.address, s.amount]).sort(byAddress));

    const destBefore = await k.token(k.destination);
    const gasBefore = await k.native(gas.address);
    const sourcesBefore = new Map<string, bigint>();
    if (k.after) for (const s of swept) sourcesBefore.set(s.address, await k.native(s.address));
    await confirmCollection({ db: gw.ctx.db, now: () => Date.now() }, m.id, run.id, USER);
    await runCollection(gw.ctx, run.id, gw.gateway.runtime.treasury);
    let p = await runProgress(gw.ctx.db, run.id);
    for (let i = 0; i < 200 && p.confirmed + p.failed + p.rejected < legs; i++) {
      // Legs waiting for their top-up retry on the job's schedule; make them due now.
      await testSql(gw.ctx.db, sql`UPDATE payout_orders SET retry_at = 0 WHERE merchant_id = ${m.id} AND status = 'submitted'`);
      await k.mine(1);
      await tick();
      p = await runProgress(gw.ctx.db, run.id);
    }
    expect(p).toMatchObject({ confirmed: legs, failed: 0, rejected: 0, planned: 0 });

    // Sources at zero on chain and in the ledger; the destination holds exactly the sum.
    for (const s of swept) {
      expect(await k.token(s.address)).toBe(0n);
      expect(await ledgerOf(s.address)).toEqual({ ledger: 0n, reserved: 0n, available: 0n });
    }
    expect(await k.token(sources[legs]!.address)).toBe(2n * k.unit);
    expect((await k.token(k.destination)) - destBefore).toBe(sum);
    expect(await collectedTotal(gw.ctx.db, run.id)).toBe(sum);
    expect(await reconcileChain(gw.ctx, adapter)).toEqual([]);
    const sheet = await balanceSheet(gw.ctx.db, { merchantId: m.id, chain: k.chain });
    expect(sheet.filter((l) => l.status !== "ok")).toEqual([]);
    expect(sheet.filter((l) => l.available !== "0").map((l) => l.address)).toEqual([sources[legs]!.address]);

    // Every leg's gas came from the gas wallet (the sources had no native coin of their own).
    const orderIds = (await runLegs(gw.ctx.db, run.id)).map((l) => l.order!.id);
    const ofOrders = async <T extends typeof gasTopups | typeof transferCosts>(table: T) =>
      (await Promise.all(orderIds.map((payoutOrderId) => tableRows(gw.ctx.db, table, { payoutOrderId } as Partial<T["$inferSelect"]>)))).flat();
    if (k.gasPaysFees) {
      // The gas wallet signed every leg as fee payer; each leg's cost is recorded, and the fee
      // ledger sums exactly to what the gas wallet spent: a fee per leg, the destination's rent once.
      for (const l of await runLegs(gw.ctx.db, run.id)) expect(JSON.parse(l.order!.signedMeta!)).toMatchObject({ feePayer: gas.address, from: l.leg.fromAddress });
      expect(await ofOrders(gasTopups)).toEqual([]);
      const costs = await ofOrders(transferCosts);
      expect(costs).toHaveLength(legs);
      expect(costs.every((c) => c.kind === "payout" && c.chain === k.chain)).toBe(true);
      const spent = costs.reduce((t, c) => t + BigInt(c.nativeBurned), 0n);
      expect(gasBefore - (await k.native(gas.address))).toBe(spent);
      expect(spent).toBe(BigInt(legs) * 10_000n + 2_039_280n);
      return;
    }
    const topups = await ofOrders(gasTopups);
    expect(new Set(topups.filter((t) => t.status === "confirmed").map((t) => t.toAddress))).toEqual(new Set(swept.map((s) => s.address)));
    expect(topups.every((t) => t.fromAddress === gas.address)).toBe(true);
    const paid = topups.filter((t) => t.status === "confirmed").reduce((t, r) => t + BigInt(r.amount), 0n);
    expect(gasBefore - (await k.native(gas.address))).toBeGreaterThanOrEqual(paid);
    await k.after?.({ gas: gas.address, gasBefore, sourcesBefore, orderIds });
}

describe.each(kits().map((k) => [k.chain, k] as const))("collection on %s", (_name, k) => {
  // 50 legs each: a generous deadline (PostgreSQL's TRON row passed 120 s on the shared 2-core machine under load).
  test(`${LEGS} funded deposit addresses are swept into the destination; the gas wallet pays the gas`, () => collects(gw, k, LEGS), 300_000);
});

// The anvil processes the shared rows took turns on.
afterAll(() => stopSharedAnvils());

// DESIGN 23's EVM networks: their legs are BSC's steps (one EVM implementation, 50 legs above),
// so a few legs each, on one anvil process each row takes in turn under its own chain id, with
// a gateway of its own running only that chain.
const NEW_EVM_LEGS = 5;
describe.each(["OPTIMISM", "AVALANCHE", "XLAYER", "PLASMA"] as const)("collection on %s", (chain) => {
  let fx: EvmChainFixture;
  let own: TestGateway;
  beforeAll(async () => {
    fx = await startEvmChain(chain, { shared: true });
    own = await startTestGateway({ jobs: false, config: { chains: { TRON: { enabled: false }, BSC: { enabled: false }, SOL: { enabled: false }, [chain]: fx.gatewayConfig(2) } } });
  });
  afterAll(async () => {
    await own?.stop();
    await fx?.stop();
  });
  test(`${NEW_EVM_LEGS} funded deposit addresses are swept into the destination; the gas wallet pays the gas`, () => collects(own, evmKit(fx), NEW_EVM_LEGS), 120_000);
});

// DESIGN 23's TON on @ton/sandbox: each leg is a jetton transfer from a wallet v5r1 deployed by
// it, after a TON top-up from the gas wallet; the fee ledger (both kinds) sums exactly to the TON
// the gas wallet spent less what the legs' excesses left on the sources.
const TON_LEGS = 5;
describe("collection on TON", () => {
  let fx: TonChainFixture;
  let own: TestGateway;
  beforeAll(async () => {
    fx = await startTonChain();
    own = await startTestGateway({ jobs: false, config: { chains: { TRON: { enabled: false }, BSC: { enabled: false }, SOL: { enabled: false }, TON: fx.gatewayConfig(2) } } });
  });
  afterAll(async () => {
    await own?.stop();
    await fx?.stop();
  });
  const kit = (): ChainKit => ({
    chain: "TON",
    unit: 1_000_000n,
    nativeSymbol: "TON",
    // A payer's jetton transfer (a mint sends no transfer_notification: nothing a gateway would see).
    fund: async (a, t) => void (await fx.pay(a, t)),
    fundGas: (a) => fx.setNative(a, 10n ** 10n),
    mine: (n) => fx.advance(n),
    token: (a) => fx.tokenBalance(a),
    native: (a) => fx.nativeBalance(a),
    destination: fx.receivers(1, "cold-wallet-TON")[0]!,
    async after({ gas, gasBefore, sourcesBefore, orderIds }) {
      const costs = await tableRows(own.ctx.db, transferCosts, { chain: "TON" });
      expect(costs.filter((c) => c.kind === "payout").map((c) => c.payoutOrderId).sort()).toEqual([...orderIds].sort());
      expect(costs.filter((c) => c.kind === "gas_topup")).toHaveLength(TON_LEGS);
      let kept = 0n;
      for (const [a, before] of sourcesBefore) kept += (await fx.nativeBalance(a)) - before;
      expect(costs.reduce((t, c) => t + BigInt(c.nativeBurned), 0n)).toBe(gasBefore - (await fx.nativeBalance(gas)) - kept);
    },
  });
  test(`${TON_LEGS} funded deposit addresses are swept into the destination; the gas wallet pays the gas, every nanoton in the fee ledger`, () => collects(own, kit(), TON_LEGS), 120_000);
});

/** A product EVM chain's kit on its fixture (6-decimal USDT, the chain's native coin). */
function evmKit(fx: EvmChainFixture): ChainKit {
  const node = fx.raw.node;
  return {
    chain: fx.chain,
    unit: 10n ** BigInt(fx.decimals),
    nativeSymbol: chainModule(fx.chain).native.symbol,
    fund: async (a, t) => void (await node.mint("USDT", a, t)),
    fundGas: (a) => node.setBalance(a, E18),
    mine: (n) => node.mine(n).then(() => {}),
    token: (a) => node.tokenBalance("USDT", a),
    native: async (a) => BigInt(await node.rpc<string>("eth_getBalance", [a, "latest"])),
    destination: someAddresses(1, `cold-wallet-${fx.chain}`)[0]!,
  };
}
