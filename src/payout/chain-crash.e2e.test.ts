// Crash safety on every chain: a child gateway in rpc mode on the chain's test node kills itself
// between signing (stored) and sending the payout, or its gas top-up, is restarted, and the chain
// carries each transaction exactly once. A refund (DESIGN 20) is a payout: on BSC and on TRON it
// is killed after its signed transaction is stored and after its broadcast (the newer EVM chains
// at one of the two each), and the payer
// is paid back once, the refund and its callbacks following the payout to confirmed.
// The sandbox chain's version, at every step, is crash.e2e.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PublicKey } from "@solana/web3.js";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import type { ChainCode } from "../chains/types";
import type { ApiError } from "../sdk/client";
import { chainFixtures, solSuiteCase, startEvmChain, startSolChain, startTonChain, startTronChain, type ChainFixture, type ChainSuiteCase, type SolChainFixture } from "../testing/chain-fixture";
import { addresses, payoutOrders, refunds as refundRows, transferCosts } from "../db/schema";
import { crashGateway, disposeCrashGateways, killedAt, payoutSettled, rowsOf, solTokenAccountOf, solTokenAccountMade, type CrashGateway } from "../testing/crash";
import { startReceiver, type Receiver } from "../testing/receiver";
import { SOL_MINTS } from "../testing/solana-rpc";
import type { SolTestToken } from "../testing/sol-fixture";
import { eventually } from "../testing/wait";

type Obj = Record<string, any>;

interface CrashCase extends ChainSuiteCase {
  /** Crash points, and whether the source holds native coin (without it the gas wallet tops it up first). */
  points: Array<[point: string, sourceHasNative: boolean]>;
  /** Native coin for a source that pays its own fees. */
  sourceNative: bigint;
  /** The gas wallet pays every fee (SOL: fee payer), so the operator funds it before paying out. */
  gasPaysFees: boolean;
  gasFunding: bigint;
  /** The watcher's cursor must pass the binding's creation before the deposit lands. */
  settleMs?: number;
  /** Transactions the gas wallet signs in the case (default 1: the top-up, or the fee of the payout). */
  gasTxs?: number;
  /** Waits for what the chain's gateway does on its own once a receiving address exists. */
  afterBinding?(c: CrashGateway, address: string): Promise<void>;
  /** Waits, before the restarted gateway stops, for what it records on its own after the payout. */
  beforeStop?(c: CrashGateway): Promise<void>;
  /** Chain-specific checks once the payout confirmed. */
  after?(fx: ChainFixture, at: { source: string; gas: string; c: CrashGateway }): Promise<void>;
  /** Where a refund's child gateway is killed (DESIGN 20): BSC and TRON at both points, the DESIGN 23 EVM chains at one each. */
  refundPoints?: string[];
}

/**
 * An EVM chain on anvil with its chain id; `points`: where its child gateway is killed. `shared`:
 * the row takes its turn on one of two anvil processes with the other shared rows (chainFixtures `use`).
 */
const evmCase = (chain: ChainCode, points: CrashCase["points"], shared = false): CrashCase => ({
  chain,
  shared,
  start: () => startEvmChain(chain, { shared }),
  confirmations: 3,
  pollInterval: "200ms",
  blockMs: 100,
  points,
  sourceNative: 10n ** 16n,
  gasPaysFees: false,
  gasFunding: 10n ** 18n,
});
const BOTH: CrashCase["points"] = [
  ["payout:after-sign-commit", true],
  ["payout:after-topup-sign-commit", false],
];

/** A refund's payout killed once its signed transaction is stored, and once it is on the chain. */
const REFUND_POINTS = ["payout:after-sign-commit", "payout:after-broadcast"];

const CASES: CrashCase[] = [
  { ...evmCase("BSC", BOTH), refundPoints: REFUND_POINTS },
  // DESIGN 17: a row per new EVM network. Their steps are BSC's (one EVM implementation), so each
  // takes one of the two points, alternating, to keep the concurrent child gateways few.
  evmCase("ETH", [BOTH[0]]),
  evmCase("POLYGON", [BOTH[1]]),
  evmCase("ARBITRUM", [BOTH[0]]),
  evmCase("BASE", [BOTH[1]]),
  // DESIGN 23, the same way; each also takes one of the two refund points, alternating. They need
  // no fresh chain: their rows take turns on two anvil processes (each under its own chain id).
  { ...evmCase("OPTIMISM", [BOTH[0]], true), refundPoints: [REFUND_POINTS[0]!] },
  { ...evmCase("AVALANCHE", [BOTH[1]], true), refundPoints: [REFUND_POINTS[1]!] },
  { ...evmCase("XLAYER", [BOTH[0]], true), refundPoints: [REFUND_POINTS[0]!] },
  { ...evmCase("PLASMA", [BOTH[1]], true), refundPoints: [REFUND_POINTS[1]!] },
  {
    chain: "TRON",
    // Solidified 3 behind; a block after each broadcast too.
    start: () => startTronChain({ solidLag: 3, autoMine: true }),
    confirmations: 3,
    pollInterval: "200ms",
    blockMs: 100,
    points: [
      ["payout:after-sign-commit", true],
      ["payout:after-topup-sign-commit", false],
    ],
    sourceNative: 50_000_000n,
    gasPaysFees: false,
    gasFunding: 1_000_000_000n,
    settleMs: 300,
    refundPoints: REFUND_POINTS,
  },
  solCase("USDC"),
  solCase("USDT"),
  {
    // DESIGN 23: the wallet v5r1 is deployed by the payout; its seqno lets a stored message land once.
    chain: "TON",
    start: () => startTonChain(),
    confirmations: 2,
    pollInterval: "200ms",
    blockMs: 200,
    points: BOTH,
    sourceNative: 100_000_000n,
    gasPaysFees: false,
    gasFunding: 1_000_000_000n,
    settleMs: 300,
    // One refund point, as the DESIGN 23 EVM rows (fewer child gateways at once): after the
    // broadcast, the path a payout row does not take (the stored message sent again, refused, found).
    refundPoints: [REFUND_POINTS[1]!],
  },
];

const fixtures = chainFixtures(CASES);
const notifyEndpoints: Receiver[] = [];
beforeAll(() => fixtures.start());
afterAll(() => fixtures.stop(async () => {
  await disposeCrashGateways();
  for (const r of notifyEndpoints) await r.stop();
}));

const ROWS = CASES.flatMap((k) => k.points.map(([point, sourceHasNative]) => [k.name ?? k.chain, point, sourceHasNative, k] as const));
const REFUND_ROWS = CASES.flatMap((k) => (k.refundPoints ?? []).map((point) => [k.name ?? k.chain, point, k] as const));

/** A row's child gateway: one merchant, only the row's chain, in rpc mode on its node. */
const rowGateway = (k: CrashCase, fx: ChainFixture, merchantName: string) =>
  crashGateway({ merchantName, rpc: { chain: fx.chain, url: fx.nodeUrl, confirmations: k.confirmations, pollInterval: k.pollInterval } });

/** A payout row: its child gateway killed at `point`, restarted; the chain carries the payout once. */
const payoutCrashRow = (_chain: string, point: string, sourceHasNative: boolean, k: CrashCase) =>
  fixtures.use(k, async (fx) => {
      const units = (whole: bigint) => whole * 10n ** BigInt(fx.decimals);
      const c = await rowGateway(k, fx, `${k.chain.toLowerCase()}-crash`);
      const { client } = c;
      const gasRow = async () => (await rowsOf(c, addresses, { chain: fx.chain, kind: "gas" }))[0]?.address ?? null;

      let g = await c.start(point);
      let gas: string | null = null;
      if (k.gasPaysFees) {
        // The gas wallet (index 0) pays the fees: the operator funds it (`wallet gas` shows it).
        const shown = await c.cli("wallet", "gas", "--json");
        expect(shown.code).toBe(0);
        gas = (JSON.parse(shown.stdout) as Array<{ chainCode: string; address: string }>).find((r) => r.chainCode === fx.chain)!.address;
        await fx.sendNative(gas, k.gasFunding);
      }
      const bindKey = `crash-${point}`;
      const binding = { chainCode: fx.chain, tokenSymbol: fx.token };
      const b = await client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { ...binding, bindKey } });
      if (k.settleMs) await Bun.sleep(k.settleMs);
      await k.afterBinding?.(c, b.address);
      await fx.pay(b.address, units(50n));
      if (sourceHasNative) await fx.sendNative(b.address, k.sourceNative);
      await eventually(
        async () => (await client.request<Obj>("GET", `/openapi/payin/exclusive-bindings/${bindKey}`, { query: binding })).stats.completedOrders === 1,
        40_000,
        "the deposit completed",
        50,
      );
      const [to] = fx.receivers(1, point);
      const body = { ...binding, fromAddress: b.address, toAddress: to, amount: "20", merchantOrderNo: `${k.chain}-CRASH-1`, notifyUrl: "https://shop.example/po" };
      expect(await client.request("POST", "/openapi/payout/orders", { body }).catch((e: Error) => e)).toBeInstanceOf(Error);
      await killedAt(g, point);
      expect(await fx.tokenBalance(to!)).toBe(0n);

      if (!sourceHasNative && !k.gasPaysFees) {
        // The top-up was signed and stored, then the process died: fund the gas wallet now.
        gas = await gasRow();
        expect(gas).not.toBeNull();
        await fx.sendNative(gas!, k.gasFunding);
      }
      g = await c.start();
      const first = await client.request<Obj>("POST", "/openapi/payout/orders", { body });
      const o = await payoutSettled(client, first.orderNo);
      expect(o).toMatchObject({ status: "confirmed", fromAddress: b.address });
      await k.beforeStop?.(c);
      expect(await g.kill("SIGTERM")).toBe(0);

      expect(await fx.tokenBalance(to!)).toBe(units(20n));
      expect(await fx.tokenBalance(b.address)).toBe(units(30n));
      expect(await fx.sentBy(b.address)).toBe(1);
      if (gas) expect(await fx.sentBy(gas)).toBe(k.gasTxs ?? 1);
      await k.after?.(fx, { source: b.address, gas: gas!, c });
  });
// They share two cores with everything else: generous, as each waits on child processes.
const ROW_MS = 120_000;
/** A shared chain's payout and refund rows both wait in its lane: twice the turns. */
const LANE_ROW_MS = 2 * ROW_MS;

describe("payout crash safety on every chain", () => {
  test.concurrent.each(ROWS.filter((r) => !r[3].shared))("%s: killed at %s, restarted: sent exactly once", payoutCrashRow, ROW_MS);
  // The shared rows take turns on two anvil processes (two lanes), beside the others.
  test.concurrent.each(ROWS.filter((r) => r[3].shared))("%s: killed at %s, restarted: sent exactly once", payoutCrashRow, fixtures.timeout({ shared: true }, LANE_ROW_MS));
});

// What a refund's crash leaves: the refund and its payout still submitted, the transaction stored
// (signed), and on the chain (sent) only after the broadcast.
const REFUND_LEFT: Record<string, { refund: typeof refundRows.$inferSelect.status; payout: typeof payoutOrders.$inferSelect.status; signed: boolean; sent: number }> = {
  "payout:after-sign-commit": { refund: "submitted", payout: "submitted", signed: true, sent: 0 },
  "payout:after-broadcast": { refund: "submitted", payout: "submitted", signed: true, sent: 1 },
};

/** A refund row (DESIGN 20): its payout's child gateway killed at `point`, restarted; the payer is paid back once. */
const refundCrashRow = (_chain: string, point: string, k: CrashCase) =>
  fixtures.use(k, async (fx) => {
      const units = (whole: bigint) => whole * 10n ** BigInt(fx.decimals);
      const notify = startReceiver();
      notifyEndpoints.push(notify);
      const c = await rowGateway(k, fx, `${k.chain.toLowerCase()}-refund-crash`);
      const { client } = c;

      let g = await c.start(point);
      const order = await client.createPayinOrder({ chainCode: fx.chain, tokenSymbol: fx.token as "USDT", merchantOrderNo: `${k.chain}-REFUND-PI`, amount: "30", notifyUrl: `${notify.url}/pi` });
      if (k.settleMs) await Bun.sleep(k.settleMs);
      await fx.pay(order.address, units(30n));
      // The receiving address sends the refund and pays its own fee.
      await fx.sendNative(order.address, k.sourceNative);
      const paid = await eventually(
        async () => {
          const o = await client.getPayinOrder(order.orderNo);
          return o.status === "completed" ? o : null;
        },
        40_000,
        "the order paid",
        50,
      );
      expect(paid.paidAmount).toBe("30.000000");
      // The payer's address, as the merchant gives it.
      const [to] = fx.receivers(1, `refund:${point}`);
      const body = { refundNo: `${k.chain}-CRASH-R`, amount: "12", toAddress: to!, notifyUrl: `${notify.url}/rf` };
      expect(await client.createRefund(order.orderNo, body).catch((e: Error) => e)).toBeInstanceOf(Error);
      await killedAt(g, point);
      const [refund] = await rowsOf(c, refundRows);
      const [payout] = await rowsOf(c, payoutOrders, { id: refund!.payoutOrderId! });
      const { sent, ...stored } = REFUND_LEFT[point]!;
      expect({ refund: refund!.status, payout: payout!.status, signed: payout!.signedTx !== null }).toEqual(stored);
      expect(await fx.sentBy(order.address)).toBe(sent);

      g = await c.start();
      // The merchant retries the request it never got an answer to: the same refund comes back.
      const again = await client.createRefund(order.orderNo, body);
      expect(again).toMatchObject({ refundNo: body.refundNo, amount: "12.000000", toAddress: to });
      const p = await payoutSettled(client, again.payoutOrderNo!);
      expect(p).toMatchObject({ status: "confirmed", fromAddress: order.address, toAddress: to });
      const refunds = (await client.listRefunds(order.orderNo)).refunds;
      expect(refunds).toEqual([{ ...again, status: "confirmed", txHash: p.txHash }]);
      // Each refund event reaches the merchant once, in order, ending confirmed. A delivery the kill
      // cut off may come again (spec 6.1: deliveries may repeat) with its own eventId: events count.
      const events = () => {
        const seen = new Map<string, Obj>();
        for (const r of notify.requests) {
          const b = JSON.parse(r.text) as Obj;
          if (b.businessType === "refund" && !seen.has(b.eventId)) seen.set(b.eventId, b);
        }
        return [...seen.values()];
      };
      await eventually(() => events().at(-1)?.status === "confirmed", 20_000, "the confirmed refund callback delivered", 50);
      // What is still refundable: paid minus the refund (one unit more is 55001 and writes nothing).
      const over = await client.createRefund(order.orderNo, { ...body, refundNo: `${k.chain}-CRASH-R2`, amount: "18.000001" }).catch((e: ApiError) => e);
      expect(over).toMatchObject({ code: 55001, data: { orderNo: order.orderNo, refundable: "18.000000" } });
      expect(await g.kill("SIGTERM")).toBe(0);
      const delivered = events();
      expect(delivered.map((e) => e.status)).toEqual(["submitted", "broadcasted", "confirmed"]);
      expect(delivered.at(-1)).toMatchObject({ refundNo: body.refundNo, orderNo: order.orderNo, status: "confirmed", txHash: p.txHash, payoutOrderNo: p.orderNo, merchantUid: c.merchantUid });

      // On the chain: the payer's address got the refund once, from the receiving address.
      expect(await fx.tokenBalance(to!)).toBe(units(12n));
      expect(await fx.tokenBalance(order.address)).toBe(units(18n));
      expect(await fx.sentBy(order.address)).toBe(1);
      expect(await rowsOf(c, payoutOrders)).toHaveLength(1);
      expect(await rowsOf(c, refundRows)).toHaveLength(1);
  });

describe("refund crash safety (DESIGN 20)", () => {
  const name = "%s: a refund killed at %s, restarted: paid back exactly once, the refund and its callbacks end confirmed";
  test.concurrent.each(REFUND_ROWS.filter((r) => !r[2].shared))(name, refundCrashRow, ROW_MS);
  test.concurrent.each(REFUND_ROWS.filter((r) => r[2].shared))(name, refundCrashRow, fixtures.timeout({ shared: true }, LANE_ROW_MS));
});

/** The SOL row of one SPL token (USDC, USDT): the same crash on its own node. */
function solCase(token: SolTestToken): CrashCase {
  return {
    ...solSuiteCase(token),
    // A blockhash valid for 1,200 of the node's 50 ms slots: the 60 s mainnet gives it (150 slots
    // of 400 ms), not 7.5 s. A restart on loaded cores took longer than 7.5 s, and the stored
    // payout then failed as expired (right, but not the path this row checks).
    start: () => startSolChain({ confirmedLag: 1, finalizedLag: 4, token, blockhashValidity: 1200 }),
    points: [["payout:after-sign-commit", false]],
    sourceNative: 0n,
    gasPaysFees: true,
    gasFunding: 1_000_000_000n,
    // The gas wallet signs two: the source's token account (the token-accounts job gives every
    // receiving address one up front) and the payout. Waiting for the first to land before the
    // deposit fixes the order; otherwise the job's run could fall before or after the payer's
    // idempotent create, and what the gas wallet pays would vary.
    gasTxs: 2,
    async afterBinding(c, address) {
      await solTokenAccountMade(c, address);
    },
    // The token-account creation's and the payout's costs are recorded (DESIGN 21).
    async beforeStop(c) {
      await eventually(async () => (await rowsOf(c, transferCosts, { chain: "SOL" })).length === 2, 60_000, "both SOL costs recorded", 50);
    },
    async after(fx, { source, gas, c }) {
      const sol = (fx as SolChainFixture).raw;
      // The source's token account: created by the gas wallet, paid into once, paid out of exactly once.
      const ata = getAssociatedTokenAddressSync(new PublicKey(SOL_MINTS[token]), new PublicKey(source), true);
      expect(await sol.conn.getSignaturesForAddress(ata, { limit: 100 }, "confirmed")).toHaveLength(3);
      const created = await solTokenAccountOf(c, source);
      const account = JSON.parse(created!.signedMeta!) as { rentLamports: string; feeLamports: string };
      // The gas wallet paid that account (USDC's and USDT's: both made in one transaction), then one
      // payout fee and the recipient's token-account rent.
      expect(BigInt(account.rentLamports)).toBe(2n * 2_039_280n);
      expect(sol.node.lamports(gas)).toBe(1_000_000_000n - BigInt(account.rentLamports) - BigInt(account.feeLamports) - 10_000n - 2_039_280n);
      // The fee ledger holds exactly that: one token_account row, one payout row (recorded in
      // whichever order their confirmations are seen: the token account's job and the payout's
      // executor each record their own).
      const costs = await rowsOf(c, transferCosts, { chain: "SOL" });
      expect(costs.map((r) => r.kind).sort()).toEqual(["payout", "token_account"]);
      expect(1_000_000_000n - costs.reduce((t, r) => t + BigInt(r.nativeBurned), 0n)).toBe(sol.node.lamports(gas));
    },
  };
}
