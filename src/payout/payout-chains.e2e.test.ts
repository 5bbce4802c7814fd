// Payouts through the gateway on each chain's test node: the token transfer signed with the
// source's HD key, sent and confirmed once final; gas from the gas wallet (EVM chains and TRON: a
// top-up stored before it is sent, with TRON's activation; SOL: the gas wallet is fee payer and
// pays the recipient's token-account rent); an empty gas wallet; a transfer failing on chain.
// One table row per chain.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { encodeAbiParameters, keccak256, type Hex } from "viem";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { writeTx } from "../db/client";
import { startEvmChain, startSolChain, startTonChain, startTronChain, type BscChainFixture, type ChainFixture, type SolChainFixture, type TronChainFixture } from "../testing/chain-fixture";
import { EVM_PROFILES, stopSharedAnvils } from "../testing/anvil";
import { addresses, gasTopups, ledgerEntries, payoutOrders, transferCosts } from "../db/schema";
import { allRows, tableRow, tableRows, updateRows } from "../testing/engine-rows";
import { TEST_ENGINE } from "../testing/engines";
import type { SolTestToken } from "../testing/sol-fixture";
import { gasWallet } from "../wallet/addresses";
import { toBaseUnits } from "../lib/money";
import { maxCostOf } from "../chains/evm/payout-steps";
import type { ChainAdapter, ChainCode, TokenSymbol } from "../chains/types";
import type { TronAdapter } from "../chains/tron/adapter";
import type { SolAdapter, SolTxMeta } from "../chains/sol/adapter";
import type { TonAdapter } from "../chains/ton/adapter";
import { tonNeededFor } from "../chains/ton/payout-steps";
import { tonCore } from "../chains/ton/address";
import { storedTx } from "../chains/payout-steps";

type Obj = Record<string, any>;
type Row = typeof payoutOrders.$inferSelect;
const RENT = 2_039_280n;

/** What a test sees: the chain, its gateway, and the calls every case makes. */
interface Paying {
  fx: ChainFixture;
  gw: TestGateway;
  adapter: ChainAdapter;
  tick(): Promise<void>;
  /** An exclusive-wallet address that received `tokens` whole tokens (and `native` base units), final. */
  funded(tokens: bigint, native: bigint): Promise<string>;
  payout(body: Obj): Promise<Obj>;
  get(orderNo: string): Promise<Obj>;
  row(orderNo: string): Promise<Row>;
  settle(orderNo: string): Promise<Obj>;
  units(amount: string): bigint;
}
interface At {
  from: string;
  to: string;
  gas: string;
  o: Obj;
}

interface PayoutCase {
  chain: string;
  /** The describe's name when the chain has more than one row (SOL USDT). */
  name?: string;
  node: string;
  start(): Promise<ChainFixture>;
  confirmations: number;
  /** Blocks after a deposit until it is final. */
  fundBlocks: number;
  /** Native coin a source holds to pay its own fees (0: the gas wallet pays them). */
  sourceNative: bigint;
  gasFunding: bigint;
  /** SOL: the gas wallet pays every fee, so it is funded before any payout. */
  gasPaysFees: boolean;
  /** What the stored signed transaction says. */
  signedMeta(at: { from: string; to: string; gas: string }): Obj;
  afterPayout?(w: Paying, at: At): Promise<void>;
  /** BSC, TRON: a source without native coin is topped up from the gas wallet first. */
  topup?: {
    amount(w: Paying, row: Row): Promise<bigint>;
    /** Paid by the gas wallet on top of the top-up (TRON: 1 TRX to activate a new account). */
    activation: bigint;
    before?(w: Paying, from: string): Promise<void>;
    after?(w: Paying, from: string): Promise<void>;
  };
  /** The error a payout waits with while the gas wallet is empty. */
  emptyGasError: string;
  /** Makes the payout's transaction fail on chain while it waits to be mined. */
  onChainFailure?: { tokens: bigint; cause(fx: ChainFixture, from: string): Promise<void>; error?: string; sourceKeepsTokens: boolean };
  /** Chain-specific cases, run after the shared ones on the same gateway. */
  extra?: Array<[name: string, run: (w: Paying) => Promise<void>]>;
}

/**
 * An EVM chain on anvil with its chain id (BSC, and the networks of DESIGN 17 with their 6-decimal
 * tokens): the same steps, nonces and gas top-ups for every profile.
 */
/** `shared`: on an anvil process an earlier row handed back, set to this chain's id (testing/anvil.ts shareAnvil). */
function evmCase(chain: ChainCode, opts: { shared?: boolean } = {}): PayoutCase {
  const { chainId } = EVM_PROFILES[chain]!;
  return {
    chain,
    node: `${opts.shared ? "a shared " : ""}anvil (chain id ${chainId})`,
    start: () => startEvmChain(chain, { shared: opts.shared }),
    confirmations: 3,
    fundBlocks: 2,
    sourceNative: 10n ** 16n,
    gasFunding: 10n ** 18n,
    gasPaysFees: false,
    signedMeta: ({ from }) => ({ chainId, from, nonce: 0 }),
    topup: {
      amount: async (_w, row) => {
        // Gas limit × highest price per gas, + the L1 data fee allowance on an OP-stack chain (BASE).
        return maxCostOf(JSON.parse(row.signedMeta!));
      },
      activation: 0n,
      after: async (w, from) => expect(await w.fx.nativeBalance(from)).toBeGreaterThanOrEqual(0n),
    },
    emptyGasError: "gas top-up not sent",
    onChainFailure: {
      tokens: 5n,
      // The tokens leave the source while the transfer waits in the mempool (balanceOf is slot 0 of the test token).
      cause: async (fx, from) => {
        const slot = keccak256(encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [from as Hex, 0n]));
        const node = (fx as BscChainFixture).raw.node;
        await node.rpc("anvil_setStorageAt", [node.tokenAddresses[fx.token as TokenSymbol], slot, "0x" + "0".repeat(64)]);
      },
      error: "reverted",
      sourceKeepsTokens: false,
    },
    extra: [
      [
        "payouts from one address take consecutive nonces and all confirm",
        async ({ fx, funded, payout, row, settle }) => {
          const from = await funded(30n, 10n ** 17n);
          const targets = fx.receivers(3, `${chain.toLowerCase()}-nonces`);
          const orders = await Promise.all(targets.map((to) => payout({ fromAddress: from, toAddress: to, amount: "10" })));
          const nonces = (await Promise.all(orders.map(async (o) => JSON.parse((await row(o.orderNo)).signedMeta!).nonce as number))).sort();
          expect(nonces).toEqual([0, 1, 2]);
          for (const o of orders) expect((await settle(o.orderNo)).status).toBe("confirmed");
          for (const to of targets) expect(await fx.tokenBalance(to)).toBe(10n * 10n ** BigInt(fx.decimals));
          expect(await fx.tokenBalance(from)).toBe(0n);
        },
      ],
    ],
  };
}

const CASES: PayoutCase[] = [
  evmCase("BSC"),
  {
    chain: "TRON",
    node: "the fake node",
    // Solidified 3 behind; a block after each broadcast.
    start: async () => {
      const fx = await startTronChain({ solidLag: 3, autoMine: true });
      await fx.advance(5);
      return fx;
    },
    confirmations: 3,
    fundBlocks: 4,
    sourceNative: 50_000_000n,
    gasFunding: 1_000_000_000n,
    gasPaysFees: false,
    signedMeta: ({ from, to }) => ({ kind: "TRC20", from, to, amount: "12345678" }),
    topup: {
      amount: (w, row) => (w.adapter as TronAdapter).trxNeeded({ txHash: row.txHash!, raw: row.signedTx!, meta: JSON.parse(row.signedMeta!) }),
      // The gas wallet pays the top-up plus the 1 TRX activation (and maybe bandwidth).
      activation: 1_000_000n,
      before: async (w, from) => expect((w.fx as TronChainFixture).raw.node.chain.activated(from)).toBe(false),
      after: async (w, from) => expect((w.fx as TronChainFixture).raw.node.chain.activated(from)).toBe(true),
    },
    emptyGasError: "gas top-up not sent",
    onChainFailure: {
      tokens: 4n,
      // The TRX for energy leaves the source while the transfer waits to be mined: out of energy.
      cause: async (fx, from) => fx.setNative(from, 1n),
      sourceKeepsTokens: true,
    },
  },
  solCase("USDC"),
  solCase("USDT"),
  tonCase(),
  // DESIGN 17: a row per new EVM network.
  evmCase("ETH"),
  evmCase("POLYGON"),
  evmCase("ARBITRUM"),
  evmCase("BASE"),
  // DESIGN 23: one anvil process serves these four in turn, each under its own chain id.
  evmCase("OPTIMISM", { shared: true }),
  evmCase("AVALANCHE", { shared: true }),
  evmCase("XLAYER", { shared: true }),
  evmCase("PLASMA", { shared: true }),
];

// The anvil processes the shared rows took turns on.
afterAll(() => stopSharedAnvils());

/**
 * The PostgreSQL pass (docs/testing.md "Both engines") runs one EVM row and one SOL row: the other
 * rows go through the same stores and steps (per-chain code is the adapters', checked on SQLite).
 */
const PG_ROWS = new Set(["BSC", "SOL"]);
const ROWS = TEST_ENGINE === "pg" ? CASES.filter((k) => PG_ROWS.has(k.chain) && !k.name) : CASES;

for (const k of ROWS) {
  describe(`${k.name ?? k.chain} payouts on ${k.node}`, () => {
    let fx: ChainFixture;
    let gw: TestGateway;
    let adapter: ChainAdapter;
    beforeAll(async () => {
      fx = await k.start();
      gw = await startTestGateway({ jobs: false, config: { sandbox: { allow_mixed: true }, chains: { [k.chain]: fx.gatewayConfig(k.confirmations) } } });
      adapter = gw.ctx.chains.get(fx.chain)!;
    });
    afterAll(async () => {
      await gw?.stop();
      await fx?.stop();
    });

    const tick = () => gw.gateway.runtime.afterChainChange(fx.chain);
    const units = (amount: string) => toBaseUnits(amount, fx.decimals);
    let n = 0;
    async function funded(tokens: bigint, native: bigint): Promise<string> {
      const b = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: fx.chain, tokenSymbol: fx.token, bindKey: `${k.chain.toLowerCase()}-src-${++n}` } });
      await tick();
      await fx.pay(b.address, tokens * 10n ** BigInt(fx.decimals));
      if (native > 0n) await fx.sendNative(b.address, native);
      await fx.advance(k.fundBlocks);
      await tick();
      return b.address;
    }
    const payout = (body: Obj) =>
      gw.client.request<Obj>("POST", "/openapi/payout/orders", {
        body: { chainCode: fx.chain, tokenSymbol: fx.token, merchantOrderNo: `${k.chain}PO-${++n}`, notifyUrl: "https://shop.example/po", ...body },
      });
    const get = (orderNo: string) => gw.client.request<Obj>("GET", `/openapi/payout/orders/${orderNo}`);
    const row = async (orderNo: string) => (await tableRow(gw.ctx.db, payoutOrders, { orderNo }))!;
    async function settle(orderNo: string): Promise<Obj> {
      let o = await get(orderNo);
      for (let i = 0; i < 50 && (o.status === "submitted" || o.status === "broadcasted"); i++) {
        await fx.advance(1);
        await tick();
        o = await get(orderNo);
      }
      return o;
    }
    const w = (): Paying => ({ fx, gw, adapter, tick, funded, payout, get, row, settle, units });
    const gas = async () => (await writeTx(gw.ctx.db, async (tx) => await gasWallet(tx, adapter, gw.ctx.seed, Date.now()))).address;
    const topupsOf = async (orderNo: string) => await tableRows(gw.ctx.db, gasTopups, { payoutOrderId: (await row(orderNo)).id });

    test("a payout is signed with the source's key, sent, and confirmed once final; balances move by exactly the amount", async () => {
      if (k.gasPaysFees) await fx.sendNative(await gas(), k.gasFunding);
      const from = await funded(100n, k.sourceNative);
      if (k.sourceNative === 0n) expect(await fx.nativeBalance(from)).toBe(0n);
      const [to] = fx.receivers(1, `${k.chain}-payout-1`);
      const o = await payout({ fromAddress: from, toAddress: to, amount: "12.345678" });
      expect(o).toMatchObject({ status: "broadcasted", amount: "12.345678" });
      expect(o.txHash).toMatch(fx.txHashPattern);
      expect(o.txHash).toBe((await row(o.orderNo)).txHash);
      expect(JSON.parse((await row(o.orderNo)).signedMeta!)).toMatchObject(k.signedMeta({ from, to: to!, gas: await gas() }));
      await tick();
      expect((await get(o.orderNo)).status).toBe("broadcasted"); // included, not final yet
      expect(await settle(o.orderNo)).toMatchObject({ status: "confirmed", txHash: o.txHash });
      expect(await fx.tokenBalance(to!)).toBe(units("12.345678"));
      expect(await fx.tokenBalance(from)).toBe(units("100") - units("12.345678"));
      expect(await fx.sentBy(from)).toBe(1);
      expect(await tableRows(gw.ctx.db, gasTopups, { toAddress: from })).toEqual([]);
      await k.afterPayout?.(w(), { from, to: to!, gas: await gas(), o });
    });

    if (k.topup) {
      const t = k.topup;
      test("a source without native coin gets a top-up from the gas wallet first, stored before it is sent", async () => {
        const g = await gas();
        await fx.sendNative(g, k.gasFunding);
        const from = await funded(10n, 0n);
        await t.before?.(w(), from);
        const [to] = fx.receivers(1, `${k.chain}-payout-2`);
        const gasBefore = await fx.nativeBalance(g);
        const o = await payout({ fromAddress: from, toAddress: to, amount: "10" });
        expect(o.status).toBe("broadcasted");
        const topups = await topupsOf(o.orderNo);
        expect(topups).toHaveLength(1);
        const needed = await t.amount(w(), await row(o.orderNo));
        expect(topups[0]).toMatchObject({ status: "confirmed", fromAddress: g, toAddress: from, amount: needed.toString() });
        expect(await settle(o.orderNo)).toMatchObject({ status: "confirmed" });
        expect(await fx.tokenBalance(to!)).toBe(units("10"));
        expect(gasBefore - (await fx.nativeBalance(g))).toBeGreaterThanOrEqual(needed + t.activation);
        expect(await fx.sentBy(g)).toBe(1);
        expect(await fx.sentBy(from)).toBe(1);
        await t.after?.(w(), from);
      });
    }

    test("an empty gas wallet leaves the payout submitted with an error and a retry time; funded, the job sends it once", async () => {
      const g = await gas();
      const keep = await fx.nativeBalance(g);
      await fx.setNative(g, 0n);
      const from = await funded(5n, 0n);
      const [to] = fx.receivers(1, `${k.chain}-payout-empty-gas`);
      const o = await payout({ fromAddress: from, toAddress: to, amount: "5" });
      expect(o.status).toBe("submitted");
      expect((await row(o.orderNo)).lastError).toContain(k.emptyGasError);
      expect((await row(o.orderNo)).retryAt).not.toBeNull();
      await fx.setNative(g, keep > 0n ? keep : k.gasFunding);
      await updateRows(gw.ctx.db, payoutOrders, { retryAt: 0 }, "orderNo", o.orderNo);
      expect(await settle(o.orderNo)).toMatchObject({ status: "confirmed" });
      expect(await fx.tokenBalance(to!)).toBe(units("5"));
      expect(await fx.tokenBalance(from)).toBe(0n);
      expect(await fx.sentBy(from)).toBe(1);
      if (k.topup) expect((await topupsOf(o.orderNo)).map((x) => x.status)).toEqual(["confirmed"]);
    });

    if (k.onChainFailure) {
      const f = k.onChainFailure;
      test("a transfer that fails on chain fails at stage confirm; the ledger keeps the tokens", async () => {
        const from = await funded(f.tokens, k.sourceNative);
        const [to] = fx.receivers(1, `${k.chain}-revert`);
        await fx.setAutoMine(false);
        let o: Obj;
        try {
          o = await payout({ fromAddress: from, toAddress: to, amount: "4" });
          expect(o.status).toBe("broadcasted");
          await f.cause(fx, from);
          await fx.advance(1);
        } finally {
          await fx.setAutoMine(true);
        }
        const y = await settle(o.orderNo);
        expect(y).toMatchObject({ status: "failed", failedStage: "confirm", txHash: o.txHash });
        if (f.error) expect(y.lastError).toContain(f.error);
        expect(await fx.tokenBalance(to!)).toBe(0n);
        if (f.sourceKeepsTokens) expect(await fx.tokenBalance(from)).toBe(f.tokens * 10n ** BigInt(fx.decimals));
        const addrId = (await tableRow(gw.ctx.db, addresses, { address: from }))!.id;
        expect((await tableRows(gw.ctx.db, ledgerEntries, { addressId: addrId })).map((l) => l.kind)).toEqual(["deposit"]);
      });
    }

    test("a paid pay-in order is refunded (DESIGN 20): a payout from its receiving address, sent once and confirmed once final; the refund follows it", async () => {
      // A funded gas wallet, whatever the cases before left in it (a second airdrop can fail on LiteSVM).
      if ((await fx.nativeBalance(await gas())) < k.gasFunding) await fx.setNative(await gas(), k.gasFunding);
      const order = await gw.client.createPayinOrder({ chainCode: fx.chain as "TRON", tokenSymbol: fx.token as "USDT", merchantOrderNo: `${k.chain}-refund-${++n}`, amount: "20", notifyUrl: "https://shop.example/pi" });
      await tick();
      await fx.pay(order.address, units("20"));
      for (let i = 0; i < 30 && (await gw.client.getPayinOrder(order.orderNo)).status !== "completed"; i++) {
        await fx.advance(1);
        await tick();
      }
      expect((await gw.client.getPayinOrder(order.orderNo)).status).toBe("completed");
      const [to] = fx.receivers(1, `${k.chain}-refund-to`);
      const r = await gw.client.createRefund(order.orderNo, { refundNo: "chain-r1", amount: "7.5", toAddress: to! });
      expect(r).toMatchObject({ status: "broadcasted", toAddress: to, amount: "7.500000" });
      expect(await row(r.payoutOrderNo!)).toMatchObject({ fromAddress: order.address, txHash: r.txHash });
      expect(await settle(r.payoutOrderNo!)).toMatchObject({ status: "confirmed" });
      expect((await gw.client.listRefunds(order.orderNo)).refunds).toEqual([{ ...r, status: "confirmed" }]);
      expect(await fx.tokenBalance(to!)).toBe(units("7.5"));
      expect(await fx.tokenBalance(order.address)).toBe(units("12.5"));
      expect(await fx.sentBy(order.address)).toBe(1);
      expect((await gw.client.createRefund(order.orderNo, { refundNo: "chain-r2", amount: "12.500001", toAddress: to! }).catch((e) => e)).code).toBe(55001);
    });

    for (const [name, run] of k.extra ?? []) test(name, () => run(w()));
  });
}

/** The SOL row of one SPL token (USDC, USDT): the same cases on its own gateway and node. */
function solCase(token: SolTestToken): PayoutCase {
  return {
    chain: "SOL",
    name: token === "USDC" ? undefined : `SOL ${token}`,
    node: "LiteSVM",
    start: () => startSolChain({ confirmedLag: 1, finalizedLag: 4, token }),
    confirmations: 4,
    fundBlocks: 5,
    sourceNative: 0n,
    gasFunding: 1_000_000_000n,
    gasPaysFees: true,
    // The gas wallet is fee payer and creates the recipient's token account.
    signedMeta: ({ from, to, gas }) => ({ feePayer: gas, from, to, createsAccount: true, amount: "12345678" }),
    async afterPayout({ fx, gw, adapter, payout, row, settle }, { from, to, gas, o }) {
      expect(await fx.nativeBalance(from)).toBe(0n);
      expect(await fx.nativeBalance(gas)).toBe(1_000_000_000n - 10_000n - RENT);
      expect(await allRows(gw.ctx.db, gasTopups)).toEqual([]);
      // A second payout to the same recipient: its ATA exists, so only the fee is paid.
      const o2 = await payout({ fromAddress: from, toAddress: to, amount: "1" });
      expect(JSON.parse((await row(o2.orderNo)).signedMeta!)).toMatchObject({ createsAccount: false, feePayerLamports: "10000" });
      expect(await settle(o2.orderNo)).toMatchObject({ status: "confirmed" });
      expect(await fx.tokenBalance(to)).toBe(13_345_678n);
      expect(await (adapter as SolAdapter).tokenBalance(from, token)).toBe(100_000_000n - 13_345_678n);
      // Each payout's cost is recorded (DESIGN 21): the fee, plus the rent of the account the first one created;
      // together exactly what the gas wallet spent.
      const costs = await tableRows(gw.ctx.db, transferCosts, { chain: "SOL" });
      expect(costs.map((c) => [c.payoutOrderId, c.kind, c.nativeBurned])).toEqual([
        [(await row(o.orderNo)).id, "payout", String(10_000n + RENT)],
        [(await row(o2.orderNo)).id, "payout", "10000"],
      ]);
      expect(1_000_000_000n - costs.reduce((t, c) => t + BigInt(c.nativeBurned), 0n)).toBe(await fx.nativeBalance(gas));
    },
    emptyGasError: "lamports",
    extra: [
      [
        "a stored transaction whose blockhash expired before it could be sent fails; it is never re-signed",
        async ({ fx, gw, funded, payout, row }) => {
          const sol = (fx as SolChainFixture).raw;
          const from = await funded(3n, 0n);
          const [to] = fx.receivers(1, "sol-payout-3");
          sol.node.setFaults({ failNextSends: 1 });
          const o = await payout({ fromAddress: from, toAddress: to, amount: "3" });
          expect(o.status).toBe("submitted");
          const txHash = (await row(o.orderNo)).txHash;
          const meta = JSON.parse((await row(o.orderNo)).signedMeta!) as SolTxMeta;
          sol.node.advance(meta.lastValidBlockHeight - sol.node.blockHeight() + 6);
          const after = await gw.client.request<Obj>("POST", `/openapi/payout/orders/${o.orderNo}/submit`, { body: {} });
          expect(after).toMatchObject({ status: "failed", failedStage: "broadcast" });
          expect((await row(o.orderNo)).txHash).toBe(txHash);
          expect(await fx.tokenBalance(to!)).toBe(0n);
          expect(await fx.tokenBalance(from)).toBe(3_000_000n);
        },
      ],
    ],
  };
}

/**
 * TON (DESIGN 23) on @ton/sandbox behind the toncenter v3 test server: the jetton transfer from
 * the source's wallet v5r1, deployed by that first transfer; a source without TON gets the TON
 * the transfer attaches and the wallet's fees from the gas wallet first.
 */
function tonCase(): PayoutCase {
  let sourceTon = 0n;
  return {
    chain: "TON",
    node: "@ton/sandbox",
    start: () => startTonChain(),
    confirmations: 2,
    fundBlocks: 2,
    sourceNative: 100_000_000n,
    gasFunding: 1_000_000_000n,
    gasPaysFees: false,
    signedMeta: ({ from, to }) => ({ kind: "JETTON", from, to, amount: "12345678", token: "USDT", seqno: 0, deploy: true }),
    topup: {
      amount: async (_w, row) => tonNeededFor(storedTx(row)) - sourceTon,
      activation: 0n,
      before: async (w, from) => {
        sourceTon = await w.fx.nativeBalance(from);
        expect((await (w.adapter as TonAdapter).wallet(from)).active).toBe(false);
      },
      // Deployed by its first transfer.
      after: async (w, from) => expect((await (w.adapter as TonAdapter).wallet(from)).active).toBe(true),
    },
    emptyGasError: "gas top-up not sent",
    extra: [
      [
        "payouts from one wallet take consecutive seqnos and all confirm",
        async ({ fx, funded, payout, row, settle }) => {
          const from = await funded(30n, 500_000_000n);
          const targets = fx.receivers(3, "ton-seqnos");
          const orders = [];
          for (const to of targets) orders.push(await payout({ fromAddress: from, toAddress: to, amount: "10" }));
          expect(await Promise.all(orders.map(async (o) => JSON.parse((await row(o.orderNo)).signedMeta!).seqno))).toEqual([0, 1, 2]);
          for (const o of orders) expect((await settle(o.orderNo)).status).toBe("confirmed");
          for (const to of targets) expect(await fx.tokenBalance(to)).toBe(10n * 10n ** BigInt(fx.decimals));
          expect(await fx.tokenBalance(from)).toBe(0n);
          expect(await fx.sentBy(from)).toBe(3);
        },
      ],
      [
        "any form of a TON address is taken and stored non-bounceable (UQ…); an invalid one is a 4xx that writes nothing",
        async ({ fx, gw, funded, payout, row, settle }) => {
          const from = await funded(2n, 100_000_000n);
          const [uq] = fx.receivers(1, "ton-forms");
          const eq = tonCore().Address.parse(uq!).toString({ bounceable: true, urlSafe: true });
          expect(eq.startsWith("EQ")).toBe(true);
          const o = await payout({ fromAddress: from, toAddress: eq, amount: "1" });
          expect((await row(o.orderNo)).toAddress).toBe(uq);
          expect((await settle(o.orderNo)).status).toBe("confirmed");
          expect(await fx.tokenBalance(uq!)).toBe(10n ** BigInt(fx.decimals));
          const before = (await allRows(gw.ctx.db, payoutOrders)).length;
          for (const bad of [eq.slice(0, -1) + (eq.endsWith("A") ? "B" : "A"), "-1:" + "ab".repeat(32), "UQ-not-an-address"]) {
            const e = await payout({ fromAddress: from, toAddress: bad, amount: "1" }).catch((x) => x);
            expect(e).toBeInstanceOf(Error);
            expect(e.status).toBeGreaterThanOrEqual(400);
            expect(e.status).toBeLessThan(500);
          }
          expect((await allRows(gw.ctx.db, payoutOrders)).length).toBe(before);
        },
      ],
    ],
    async afterPayout({ gw }, { o }) {
      // The fee ledger: what the transfer consumed (fees and the forward amount), the attached TON's excess back at the source.
      const [cost] = await tableRows(gw.ctx.db, transferCosts, { txHash: o.txHash });
      expect(cost).toMatchObject({ chain: "TON", kind: "payout" });
      expect(BigInt(cost!.nativeBurned)).toBeGreaterThan(0n);
      expect(BigInt(cost!.nativeBurned)).toBeLessThan(tonNeededFor(storedTx((await tableRow(gw.ctx.db, payoutOrders, { orderNo: o.orderNo }))!)));
    },
  };
}
