// EVM gas top-ups replaced like payouts (issue 25 follow-up), on anvil with a base fee and
// automine off, time moved by a TestClock: a top-up from the gas wallet that has not landed
// within replace_after is replaced with the same nonce and fees raised ≥ 12.5 %, each
// replacement stored (gas_topup_attempts) before it is sent; whichever lands is the top-up's,
// and the payout then goes out exactly once. At gas_price_cap the top-up is stuck and
// payout_stuck fires (its payout waits); nothing is silent.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, asc, eq } from "drizzle-orm";
import { startAnvil, TOKEN_ADDRESSES, type AnvilNode } from "../testing/anvil";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { TestClock } from "../lib/clock";
import { toBaseUnits } from "../lib/money";
import { gasTopupAttempts, gasTopups, payoutOrders, transferCosts } from "../db/schema";
import { registerChainModule } from "../chains/registry";
import { evmChainModule, type EvmChainProfile } from "../chains/evm/module";
import { bumpFee, type EvmTxMeta } from "../chains/evm/adapter";
import { someAddresses } from "../testing/bsc-fixture";
import { deriveKey } from "../wallet/hd";
import type { ChainCode } from "../chains/types";

type Obj = Record<string, any>;
const CODE = "TOPUPTEST" as ChainCode;
const CHAIN_ID = 31341;
const GWEI = 10n ** 9n;
const CAP = 5n * GWEI;
const REPLACE_AFTER = 3 * 60_000;
const PROFILE: EvmChainProfile = {
  chain: CODE,
  name: "Top-up test",
  chainId: CHAIN_ID,
  nativeSymbol: "ETH",
  bip44Account: CHAIN_ID,
  uriScheme: "ethereum",
  label: { network: "Top-up test", standard: "ERC20" },
  color: "#0052ff",
  defaults: { confirmations: 3, blockTime: "1s", tokens: [{ chain: CODE, symbol: "USDT", contract: TOKEN_ADDRESSES.USDT, decimals: 18 }] },
  explorer: { name: "Testscan", tx: "https://testscan.example/tx/{tx}", address: "https://testscan.example/address/{address}" },
};

let node: AnvilNode;
let gw: TestGateway;
let unregister: () => void;
let gas: string;
const clock = new TestClock(Date.now());

beforeAll(async () => {
  node = await startAnvil({ chainId: CHAIN_ID, baseFee: GWEI });
  unregister = registerChainModule(evmChainModule(PROFILE));
  gw = await startTestGateway({
    jobs: false,
    clock,
    config: {
      chains: {
        TRON: { enabled: false },
        BSC: { enabled: false },
        SOL: { enabled: false },
        [CODE]: { mode: "rpc", rpc_urls: [node.url], confirmations: 3, gas_price_cap: CAP.toString(), replace_after: "3m" },
      },
    },
  });
  gas = deriveKey(CODE, gw.ctx.seed, 0).address;
  await node.setBalance(gas, 10n ** 18n);
});
afterAll(async () => {
  await gw?.stop();
  unregister?.();
  await node?.stop();
});

const tick = () => gw.gateway.runtime.afterChainChange(CODE);
const row = (orderNo: string) => gw.ctx.db.select().from(payoutOrders).where(eq(payoutOrders.orderNo, orderNo)).get()!;
const topupsOf = (orderNo: string) => gw.ctx.db.select().from(gasTopups).where(eq(gasTopups.payoutOrderId, row(orderNo).id)).orderBy(asc(gasTopups.id)).all();
const attemptsOf = (topupId: number) => gw.ctx.db.select().from(gasTopupAttempts).where(eq(gasTopupAttempts.gasTopupId, topupId)).orderBy(asc(gasTopupAttempts.id)).all();
const get = (orderNo: string) => gw.client.request<Obj>("GET", `/openapi/payout/orders/${orderNo}`);
const receipt = (hash: string) => node.rpc<Obj | null>("eth_getTransactionReceipt", [hash]);
const inPool = async (hash: string) => (await node.rpc<Obj | null>("eth_getTransactionByHash", [hash])) !== null;
const sentBy = async (a: string) => Number(BigInt(await node.rpc<string>("eth_getTransactionCount", [a, "latest"])));
const meta = (m: string) => JSON.parse(m) as EvmTxMeta;
let n = 0;

/** A source holding `tokens` USDT and no native coin: its payout needs a gas top-up first. */
async function source(): Promise<string> {
  const b = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: CODE, tokenSymbol: "USDT", bindKey: `topup-src-${++n}` } });
  await tick();
  await node.mint("USDT", b.address, toBaseUnits("5", 18));
  await node.mine(3);
  await tick();
  return b.address;
}
const payout = (body: Obj) =>
  gw.client.request<Obj>("POST", "/openapi/payout/orders", { body: { chainCode: CODE, tokenSymbol: "USDT", merchantOrderNo: `TU-${++n}`, notifyUrl: "https://shop.example/po", amount: "5", ...body } });
/** Mines and tracks until the payout is final. */
async function settle(orderNo: string): Promise<Obj> {
  let o = await get(orderNo);
  for (let i = 0; i < 20 && (o.status === "submitted" || o.status === "broadcasted"); i++) {
    await node.mine(1);
    await pumped(tick());
    o = await get(orderNo);
  }
  return o;
}
/** Runs `work` while moving the TestClock forward only while a timer waits (the top-up's wait for its receipt). */
async function pumped<T>(work: Promise<T>): Promise<T> {
  let done = false;
  const p = work.finally(() => (done = true));
  while (!done) {
    if (clock.pending > 0) await clock.advance(250);
    else await new Promise<void>((r) => setImmediate(r));
  }
  return p;
}
/** Each transaction keeps the first's nonce and raises both fees by ≥ 12.5 % (the cap itself when it still clears the 10 % nodes take), never above the cap. */
function expectRaised(first: EvmTxMeta, firstHash: string, reps: Array<{ txHash: string; signedMeta: string }>) {
  const metas = [first, ...reps.map((r) => meta(r.signedMeta))];
  for (let i = 1; i < metas.length; i++) {
    const [prev, cur] = [metas[i - 1]!, metas[i]!];
    expect(cur).toMatchObject({ nonce: first.nonce, gasLimit: first.gasLimit, recipient: first.recipient, amount: first.amount, replaces: i === 1 ? firstHash : reps[i - 2]!.txHash });
    const price = BigInt(cur.gasPrice);
    expect(price).toBeLessThanOrEqual(CAP);
    expect(price === CAP ? price * 10n >= BigInt(prev.gasPrice) * 11n : price >= bumpFee(BigInt(prev.gasPrice))).toBe(true);
    expect(BigInt(cur.maxPriorityFeePerGas!)).toBeGreaterThanOrEqual(bumpFee(BigInt(prev.maxPriorityFeePerGas!)));
  }
}
const alertKeys = (xs: Array<{ condition: string; subject: string }>) => xs.map((a) => `${a.condition}:${a.subject}`);

describe("EVM gas top-up replacement (TestClock, automine off)", () => {
  let firstNonce = -1;

  test("a top-up not landed within replace_after is replaced (same nonce, ≥ 12.5 % higher fees, stored before it is sent); the replacement lands, is the top-up's, and the payout goes out exactly once", async () => {
    const from = await source();
    const [to] = someAddresses(1, "topup-replace");
    const gasSent = await sentBy(gas);
    await node.setAutomine(false);
    try {
      // The top-up waits in the pool: the payout stays submitted.
      const o = await pumped(payout({ fromAddress: from, toAddress: to }));
      expect(o.status).toBe("submitted");
      const [t] = topupsOf(o.orderNo);
      expect(t).toMatchObject({ status: "broadcasted", fromAddress: gas, toAddress: from, stuckAt: null });
      firstNonce = meta(t!.signedMeta).nonce;
      expect(attemptsOf(t!.id)).toEqual([]);

      // Not yet due (its retries keep waiting): nothing replaced.
      await clock.advance(REPLACE_AFTER - 30_000);
      await pumped(tick());
      expect(attemptsOf(t!.id)).toEqual([]);
      expect(row(o.orderNo)).toMatchObject({ status: "submitted", lastError: "waiting for the gas top-up to land" });

      // Due: one replacement, stored, then sent; the node's pool holds it in place of the first.
      await clock.advance(30_000);
      await pumped(tick());
      const reps = attemptsOf(t!.id);
      expect(reps).toHaveLength(1);
      expectRaised(meta(t!.signedMeta), t!.txHash, reps);
      expect(reps[0]!.chain).toBe(CODE);
      expect(await inPool(reps[0]!.txHash)).toBe(true);
      expect(row(o.orderNo).status).toBe("submitted");

      // Mined: the replacement is the top-up's (with its cost); the payout then goes out.
      await node.mine(1);
      await clock.advance(2_000); // the payout's retry time
      await pumped(tick());
      const [landed] = topupsOf(o.orderNo);
      expect(landed).toMatchObject({ status: "confirmed", txHash: reps[0]!.txHash, signedTx: reps[0]!.signedTx, stuckAt: null });
      expect(await receipt(t!.txHash)).toBeNull();
      expect((await receipt(reps[0]!.txHash))?.status).toBe("0x1");
      const cost = gw.ctx.db.select().from(transferCosts).where(and(eq(transferCosts.kind, "gas_topup"), eq(transferCosts.payoutOrderId, row(o.orderNo).id))).all();
      expect(cost.map((c) => c.txHash)).toEqual([reps[0]!.txHash]);
      expect(row(o.orderNo).status).toBe("broadcasted");
      expect(await settle(o.orderNo)).toMatchObject({ status: "confirmed" });
      expect(topupsOf(o.orderNo)).toHaveLength(1);
    } finally {
      await node.setAutomine(true);
    }
    expect(await node.tokenBalance("USDT", to!)).toBe(toBaseUnits("5", 18));
    expect(await sentBy(from)).toBe(1);
    // The replaced top-up held its nonce: the gas wallet sent one transaction.
    expect(await sentBy(gas)).toBe(gasSent + 1);
  });

  test("at gas_price_cap the top-up is stuck: payout_stuck fires once (its payout waits), and resolves when the top-up lands and the payout confirms", async () => {
    const from = await source();
    const [to] = someAddresses(1, "topup-stuck");
    const gasSent = await sentBy(gas);
    const alerts = gw.gateway.runtime.ops.alerts;
    await alerts.tick();
    await node.setAutomine(false);
    try {
      const o = await pumped(payout({ fromAddress: from, toAddress: to }));
      expect(o.status).toBe("submitted");
      const [t] = topupsOf(o.orderNo);
      // The gas wallet's next nonce: past the replaced top-up's, never reusing it.
      expect(meta(t!.signedMeta).nonce).toBe(firstNonce + 1);

      for (let i = 0; i < 30 && topupsOf(o.orderNo)[0]!.stuckAt === null; i++) {
        await clock.advance(REPLACE_AFTER);
        await pumped(tick());
      }
      const stuck = topupsOf(o.orderNo)[0]!;
      expect(stuck.stuckAt).not.toBeNull();
      expect(stuck.lastError).toContain("gas_price_cap");
      const reps = attemptsOf(t!.id);
      expect(reps.length).toBeGreaterThanOrEqual(2);
      expectRaised(meta(t!.signedMeta), t!.txHash, reps);
      expect(await inPool(reps.at(-1)!.txHash)).toBe(true);
      // The payout (signed, never sent) waits, saying why.
      expect(row(o.orderNo)).toMatchObject({ status: "submitted", broadcastedAt: null });
      expect(await inPool(row(o.orderNo).txHash!)).toBe(false);
      expect(row(o.orderNo).lastError).toContain("gas_price_cap");

      const fired = (await alerts.tick()).fired;
      expect(alertKeys(fired)).toContain(`payout_stuck:${CODE}`);
      expect(fired.find((a) => a.condition === "payout_stuck")!.message).toContain(`waiting for a gas top-up not landing at chains.${CODE}.gas_price_cap`);
      expect(fired.find((a) => a.condition === "payout_stuck")!.message).toContain(o.orderNo);
      // Still stuck: no new replacement, not fired again.
      await clock.advance(REPLACE_AFTER);
      await pumped(tick());
      expect(attemptsOf(t!.id)).toHaveLength(reps.length);
      expect(alertKeys((await alerts.tick()).fired)).not.toContain(`payout_stuck:${CODE}`);

      // A block is mined: the newest (at the cap, above the base fee) lands; the payout goes out once.
      await node.mine(1);
      await clock.advance(REPLACE_AFTER);
      await pumped(tick());
      expect(topupsOf(o.orderNo)[0]).toMatchObject({ status: "confirmed", txHash: reps.at(-1)!.txHash, stuckAt: null });
      for (const h of [t!.txHash, ...reps.slice(0, -1).map((r) => r.txHash)]) expect(await receipt(h)).toBeNull();
      expect(await settle(o.orderNo)).toMatchObject({ status: "confirmed" });
      expect(alertKeys((await alerts.tick()).resolved)).toContain(`payout_stuck:${CODE}`);
    } finally {
      await node.setAutomine(true);
    }
    expect(await node.tokenBalance("USDT", to!)).toBe(toBaseUnits("5", 18));
    expect(await sentBy(from)).toBe(1);
    expect(await sentBy(gas)).toBe(gasSent + 1);
  });
});
