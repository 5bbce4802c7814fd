// EVM payouts through the gateway on anvil with a base fee (issue 25), on a test-only OP-stack
// profile (chain id 31339, an L1 fee oracle placed by anvil_setCode), time moved by a TestClock:
// a transaction that does not confirm within replace_after is replaced with the same nonce and
// higher fees, every hash stored before it is sent, up to gas_price_cap, where payout_stuck
// fires; whichever hash confirms is the payout's. A nonce taken in a block that is not final
// fails nothing; once final, the payout fails. A gas top-up funds gas and the L1 data fee; one
// that has not landed within replace_after is replaced the same way (same nonce from the gas
// wallet, each replacement stored in gas_topup_attempts before it is sent), whichever lands is the
// top-up's and the payout then goes out once; at the cap it is stuck and payout_stuck fires.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bytesToHex, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { startAnvil, TOKEN_ADDRESSES, type AnvilNode } from "../testing/anvil";
import { placeL1FeeOracle } from "../testing/l1-fee-oracle";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { TestClock } from "../lib/clock";
import { toBaseUnits } from "../lib/money";
import { gasTopupAttempts, gasTopups, payoutOrders, payoutTxAttempts, transferCosts } from "../db/schema";
import { tableRow, tableRows } from "../testing/engine-rows";
import { registerChainModule } from "../chains/registry";
import { evmChainModule, type EvmChainProfile } from "../chains/evm/module";
import { bumpFee, type EvmTxMeta } from "../chains/evm/adapter";
import { maxCostOf } from "../chains/evm/payout-steps";
import { someAddresses } from "../testing/bsc-fixture";
import { addressById } from "../wallet/addresses";
import { deriveKey } from "../wallet/hd";
import type { ChainCode } from "../chains/types";

type Obj = Record<string, any>;
const CODE = "OPTEST" as ChainCode;
const CHAIN_ID = 31339;
const GWEI = 10n ** 9n;
const CAP = 5n * GWEI;
const L1_FEE = 55_555_555_555n;
const REPLACE_AFTER = 3 * 60_000;
const PROFILE: EvmChainProfile = {
  chain: CODE,
  name: "OP test",
  chainId: CHAIN_ID,
  nativeSymbol: "ETH",
  bip44Account: CHAIN_ID,
  l1Fee: "op-stack",
  uriScheme: "ethereum",
  label: { network: "OP test", standard: "ERC20" },
  color: "#0052ff",
  defaults: { confirmations: 3, blockTime: "1s", tokens: [{ chain: CODE, symbol: "USDT", contract: TOKEN_ADDRESSES.USDT, decimals: 18 }] },
  explorer: { name: "OPscan", tx: "https://opscan.example/tx/{tx}", address: "https://opscan.example/address/{address}" },
};

let node: AnvilNode;
let gw: TestGateway;
let unregister: () => void;
const clock = new TestClock(Date.now());

beforeAll(async () => {
  node = await startAnvil({ chainId: CHAIN_ID, baseFee: GWEI });
  await placeL1FeeOracle(node, L1_FEE);
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
});
afterAll(async () => {
  await gw?.stop();
  unregister?.();
  await node?.stop();
});

const tick = () => gw.gateway.runtime.afterChainChange(CODE);
const row = async (orderNo: string) => (await tableRow(gw.ctx.db, payoutOrders, { orderNo }))!;
const replacementsOf = async (orderNo: string) => await tableRows(gw.ctx.db, payoutTxAttempts, { payoutOrderId: (await row(orderNo)).id });
const get = (orderNo: string) => gw.client.request<Obj>("GET", `/openapi/payout/orders/${orderNo}`);
const receipt = (hash: string) => node.rpc<Obj | null>("eth_getTransactionReceipt", [hash]);
const sentBy = async (a: string) => Number(BigInt(await node.rpc<string>("eth_getTransactionCount", [a, "latest"])));
let n = 0;

async function funded(tokens: bigint, native: bigint): Promise<string> {
  const b = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: CODE, tokenSymbol: "USDT", bindKey: `op-src-${++n}` } });
  await tick();
  await node.mint("USDT", b.address, toBaseUnits(tokens.toString(), 18));
  if (native > 0n) await node.setBalance(b.address, native);
  await node.mine(3);
  await tick();
  return b.address;
}
const payout = (body: Obj) =>
  gw.client.request<Obj>("POST", "/openapi/payout/orders", { body: { chainCode: CODE, tokenSymbol: "USDT", merchantOrderNo: `OP-${++n}`, notifyUrl: "https://shop.example/po", ...body } });
/** Mines and tracks until the payout is final. */
async function settle(orderNo: string): Promise<Obj> {
  let o = await get(orderNo);
  for (let i = 0; i < 20 && (o.status === "submitted" || o.status === "broadcasted"); i++) {
    await node.mine(1);
    await tick();
    o = await get(orderNo);
  }
  return o;
}
/**
 * Runs `work` while moving the TestClock, which the gas top-up's wait for its receipt runs on:
 * forward only while a timer waits (the wait's next look), so time moves as that wait needs, no faster.
 */
async function pumped<T>(work: Promise<T>): Promise<T> {
  let done = false;
  const p = work.finally(() => (done = true));
  while (!done) {
    if (clock.pending > 0) await clock.advance(250);
    else await new Promise<void>((r) => setImmediate(r));
  }
  return p;
}
/** Each transaction keeps the first's nonce, gas, recipient and amount and raises both fees by ≥ 12.5 % (the cap itself when it still clears the 10 % nodes require), never above the cap. */
function expectRaised(first: EvmTxMeta, firstHash: string, reps: Array<{ txHash: string; signedMeta: string }>) {
  const metas = [first, ...reps.map((r) => JSON.parse(r.signedMeta) as EvmTxMeta)];
  for (let i = 1; i < metas.length; i++) {
    const [prev, cur] = [metas[i - 1]!, metas[i]!];
    expect(cur).toMatchObject({ nonce: first.nonce, gasLimit: first.gasLimit, recipient: first.recipient, amount: first.amount, type: "eip1559", replaces: i === 1 ? firstHash : reps[i - 2]!.txHash });
    const price = BigInt(cur.gasPrice);
    expect(price).toBeLessThanOrEqual(CAP);
    expect(price === CAP ? price * 10n >= BigInt(prev.gasPrice) * 11n : price >= bumpFee(BigInt(prev.gasPrice))).toBe(true);
    expect(BigInt(cur.maxPriorityFeePerGas!)).toBeGreaterThanOrEqual(bumpFee(BigInt(prev.maxPriorityFeePerGas!)));
  }
}
const alertKeys = (xs: Array<{ condition: string; subject: string }>) => xs.map((a) => `${a.condition}:${a.subject}`);

describe("EVM payout replacement (type 2, OP stack, TestClock)", () => {
  test("not confirmed within replace_after: replaced with the same nonce and ≥ 12.5 % higher fees, each stored before it is sent, up to the cap; payout_stuck at the cap; the hash that confirms is the payout's", async () => {
    const from = await funded(50n, 10n ** 17n);
    const [to] = someAddresses(1, "op-replace");
    await node.setAutomine(false);
    let o: Obj;
    try {
      o = await payout({ fromAddress: from, toAddress: to, amount: "10" });
      expect(o.status).toBe("broadcasted");
      const first = await row(o.orderNo);
      const firstMeta = JSON.parse(first.signedMeta!) as EvmTxMeta;
      expect(firstMeta).toMatchObject({ type: "eip1559", l1Fee: ((L1_FEE * 13n + 9n) / 10n).toString() });
      expect((await node.rpc<Obj>("eth_getTransactionByHash", [first.txHash])).type).toBe("0x2");

      // Not yet due: nothing replaced.
      await clock.advance(REPLACE_AFTER - 1);
      await tick();
      expect(await replacementsOf(o.orderNo)).toEqual([]);

      for (let i = 0; i < 30 && (await row(o.orderNo)).stuckAt === null; i++) {
        await clock.advance(REPLACE_AFTER);
        await tick();
      }
      const reps = await replacementsOf(o.orderNo);
      expect(reps.length).toBeGreaterThanOrEqual(2);
      expectRaised(firstMeta, first.txHash!, reps);
      // Each replacement was stored before it was sent; the node holds the newest.
      const newest = reps.at(-1)!;
      expect(await node.rpc<Obj | null>("eth_getTransactionByHash", [newest.txHash])).not.toBeNull();
      expect(await row(o.orderNo)).toMatchObject({ status: "broadcasted", txHash: first.txHash });
      expect((await row(o.orderNo)).lastError).toContain("gas_price_cap");

      const alerts = gw.gateway.runtime.ops.alerts;
      expect(alertKeys((await alerts.tick()).fired)).toContain(`payout_stuck:${CODE}`);
      // Still stuck: not fired again.
      await clock.advance(REPLACE_AFTER);
      await tick();
      expect(await replacementsOf(o.orderNo)).toHaveLength(reps.length);
      expect(alertKeys((await alerts.tick()).fired)).not.toContain(`payout_stuck:${CODE}`);

      // A block is mined: the newest transaction (at the cap, above the base fee) lands, and is the payout's.
      const done = await settle(o.orderNo);
      expect(done).toMatchObject({ status: "confirmed", txHash: newest.txHash });
      expect(await row(o.orderNo)).toMatchObject({ txHash: newest.txHash, signedTx: newest.signedTx, stuckAt: null });
      for (const h of [first.txHash!, ...reps.slice(0, -1).map((r) => r.txHash)]) expect(await receipt(h)).toBeNull();
      expect(alertKeys((await alerts.tick()).resolved)).toContain(`payout_stuck:${CODE}`);
    } finally {
      await node.setAutomine(true);
    }
    expect(await node.tokenBalance("USDT", to!)).toBe(toBaseUnits("10", 18));
    expect(await node.tokenBalance("USDT", from)).toBe(toBaseUnits("40", 18));
    expect(await sentBy(from)).toBe(1);
  });

  test("a nonce taken by another transaction in a block that is not final fails nothing; once that block is final, the payout fails", async () => {
    const from = await funded(5n, 10n ** 17n);
    const [to] = someAddresses(1, "op-nonce");
    await node.setAutomine(false);
    try {
      const o = await payout({ fromAddress: from, toAddress: to, amount: "5" });
      expect(o.status).toBe("broadcasted");
      const nonce = (JSON.parse((await row(o.orderNo)).signedMeta!) as EvmTxMeta).nonce;
      // The payout's transaction leaves the pool, another one of the source takes its nonce and is mined.
      await node.rpc("anvil_dropTransaction", [o.txHash]);
      const key = deriveKey(CODE, gw.ctx.seed, (await addressById(gw.ctx.db, (await row(o.orderNo)).fromAddressId))!.derivationIndex);
      const acct = privateKeyToAccount(bytesToHex(key.privateKey) as Hex);
      const other = await acct.signTransaction({ type: "eip1559", chainId: CHAIN_ID, nonce, to: acct.address, value: 0n, gas: 21_000n, maxFeePerGas: 4n * GWEI, maxPriorityFeePerGas: GWEI });
      await node.rpc("eth_sendRawTransaction", [other]);
      await node.mine(1);
      // Latest, not final (3 confirmations): the rebroadcast's "nonce too low" concludes nothing.
      await tick();
      await tick();
      expect(await row(o.orderNo)).toMatchObject({ status: "broadcasted" });
      expect((await row(o.orderNo)).lastError).toContain("nonce too low");
      await node.mine(2);
      await tick();
      expect(await get(o.orderNo)).toMatchObject({ status: "failed", failedStage: "confirm" });
      expect((await row(o.orderNo)).lastError).toContain("can never land");
    } finally {
      await node.setAutomine(true);
    }
    expect(await node.tokenBalance("USDT", to!)).toBe(0n);
  });

  test("a replacement whose raised fee the source cannot pay is stored, then sent once the gas wallet's top-up for the difference landed", async () => {
    const gas = deriveKey(CODE, gw.ctx.seed, 0).address;
    await node.setBalance(gas, 10n ** 18n);
    const from = await funded(5n, 0n);
    const [to] = someAddresses(1, "op-replace-topup");
    const topups = async (orderNo: string) => await tableRows(gw.ctx.db, gasTopups, { payoutOrderId: (await row(orderNo)).id });
    await node.setAutomine(false);
    try {
      // The first top-up waits in the pool: the payout stays submitted until it is mined.
      const o = await pumped(payout({ fromAddress: from, toAddress: to, amount: "5" }));
      expect(o.status).toBe("submitted");
      expect((await row(o.orderNo)).retryAt).not.toBeNull();
      await node.mine(1);
      await clock.advance(2_000); // its retry time
      await pumped(tick());
      expect((await row(o.orderNo)).status).toBe("broadcasted");
      const first = await row(o.orderNo);
      expect(await node.rpc<string>("eth_getBalance", [from, "latest"])).toBe("0x" + maxCostOf(JSON.parse(first.signedMeta!)).toString(16));

      // Due: the replacement is stored, but its higher fee needs a second top-up, which waits in the pool.
      await clock.advance(REPLACE_AFTER);
      await pumped(tick());
      const [rep] = await replacementsOf(o.orderNo);
      expect(rep).toBeDefined();
      expect((await row(o.orderNo)).lastError).toContain("replacement not sent yet");
      expect(await node.rpc<Obj | null>("eth_getTransactionByHash", [rep!.txHash])).toBeNull();
      const [t1, t2] = await topups(o.orderNo);
      expect(t1!.status).toBe("confirmed");
      expect(BigInt(t2!.amount)).toBe(maxCostOf(JSON.parse(rep!.signedMeta)) - maxCostOf(JSON.parse(first.signedMeta!)));

      // The pool drops the first payout transaction (underpriced); the top-up is mined; the replacement goes out and lands.
      await node.rpc("anvil_dropTransaction", [first.txHash]);
      await node.mine(1);
      await pumped(tick());
      expect(await node.rpc<Obj | null>("eth_getTransactionByHash", [rep!.txHash])).not.toBeNull();
      expect((await topups(o.orderNo)).map((t) => t.status)).toEqual(["confirmed", "confirmed"]);
      expect(await settle(o.orderNo)).toMatchObject({ status: "confirmed", txHash: rep!.txHash });
      expect(await receipt(first.txHash!)).toBeNull();
    } finally {
      await node.setAutomine(true);
    }
    expect(await node.tokenBalance("USDT", to!)).toBe(toBaseUnits("5", 18));
    expect(await sentBy(from)).toBe(1);
  });

  test("a source without native coin is topped up with gas × maxFeePerGas plus the L1 data fee allowance", async () => {
    const gas = deriveKey(CODE, gw.ctx.seed, 0).address;
    await node.setBalance(gas, 10n ** 18n);
    const from = await funded(5n, 0n);
    const [to] = someAddresses(1, "op-topup");
    const o = await pumped(payout({ fromAddress: from, toAddress: to, amount: "5" }));
    const meta = JSON.parse((await row(o.orderNo)).signedMeta!) as EvmTxMeta;
    const [t] = await tableRows(gw.ctx.db, gasTopups, { payoutOrderId: (await row(o.orderNo)).id });
    expect(meta.l1Fee).toBe(((L1_FEE * 13n + 9n) / 10n).toString());
    expect(t).toMatchObject({ fromAddress: gas, toAddress: from, amount: maxCostOf(meta).toString() });
    expect(BigInt(t!.amount)).toBe(BigInt(meta.gasLimit) * BigInt(meta.gasPrice) + BigInt(meta.l1Fee!));
    expect(JSON.parse(t!.signedMeta)).toMatchObject({ type: "eip1559" });
    expect((await settle(o.orderNo)).status).toBe("confirmed");
  });
});

const topupsOf = async (orderNo: string) => await tableRows(gw.ctx.db, gasTopups, { payoutOrderId: (await row(orderNo)).id });
const attemptsOf = async (topupId: number) => await tableRows(gw.ctx.db, gasTopupAttempts, { gasTopupId: topupId });
const inPool = async (hash: string) => (await node.rpc<Obj | null>("eth_getTransactionByHash", [hash])) !== null;
const meta = (m: string) => JSON.parse(m) as EvmTxMeta;

describe("EVM gas top-up replacement (TestClock, automine off)", () => {
  let firstNonce = -1;
  const gas = () => deriveKey(CODE, gw.ctx.seed, 0).address;
  beforeAll(() => node.setBalance(gas(), 10n ** 18n));

  test("a top-up not landed within replace_after is replaced (same nonce, ≥ 12.5 % higher fees, stored before it is sent); the replacement lands, is the top-up's, and the payout goes out exactly once", async () => {
    const from = await funded(5n, 0n);
    const [to] = someAddresses(1, "topup-replace");
    const gasSent = await sentBy(gas());
    await node.setAutomine(false);
    try {
      // The top-up waits in the pool: the payout stays submitted.
      const o = await pumped(payout({ fromAddress: from, toAddress: to, amount: "5" }));
      expect(o.status).toBe("submitted");
      const [t] = await topupsOf(o.orderNo);
      expect(t).toMatchObject({ status: "broadcasted", fromAddress: gas(), toAddress: from, stuckAt: null });
      firstNonce = meta(t!.signedMeta).nonce;
      expect(await attemptsOf(t!.id)).toEqual([]);

      // Not yet due (its retries keep waiting): nothing replaced.
      await clock.advance(REPLACE_AFTER - 30_000);
      await pumped(tick());
      expect(await attemptsOf(t!.id)).toEqual([]);
      expect(await row(o.orderNo)).toMatchObject({ status: "submitted", lastError: "waiting for the gas top-up to land" });

      // Due: one replacement, stored, then sent; the node's pool holds it in place of the first.
      await clock.advance(30_000);
      await pumped(tick());
      const reps = await attemptsOf(t!.id);
      expect(reps).toHaveLength(1);
      expectRaised(meta(t!.signedMeta), t!.txHash, reps);
      expect(reps[0]!.chain).toBe(CODE);
      expect(await inPool(reps[0]!.txHash)).toBe(true);
      expect((await row(o.orderNo)).status).toBe("submitted");

      // Mined: the replacement is the top-up's (with its cost); the payout then goes out.
      await node.mine(1);
      await clock.advance(2_000); // the payout's retry time
      await pumped(tick());
      const [landed] = await topupsOf(o.orderNo);
      expect(landed).toMatchObject({ status: "confirmed", txHash: reps[0]!.txHash, signedTx: reps[0]!.signedTx, stuckAt: null });
      expect(await receipt(t!.txHash)).toBeNull();
      expect((await receipt(reps[0]!.txHash))?.status).toBe("0x1");
      const cost = await tableRows(gw.ctx.db, transferCosts, { kind: "gas_topup", payoutOrderId: (await row(o.orderNo)).id });
      expect(cost.map((c) => c.txHash)).toEqual([reps[0]!.txHash]);
      expect((await row(o.orderNo)).status).toBe("broadcasted");
      expect(await settle(o.orderNo)).toMatchObject({ status: "confirmed" });
      expect(await topupsOf(o.orderNo)).toHaveLength(1);
    } finally {
      await node.setAutomine(true);
    }
    expect(await node.tokenBalance("USDT", to!)).toBe(toBaseUnits("5", 18));
    expect(await sentBy(from)).toBe(1);
    // The replaced top-up held its nonce: the gas wallet sent one transaction.
    expect(await sentBy(gas())).toBe(gasSent + 1);
  });

  test("at gas_price_cap the top-up is stuck: payout_stuck fires once (its payout waits), and resolves when the top-up lands and the payout confirms", async () => {
    const from = await funded(5n, 0n);
    const [to] = someAddresses(1, "topup-stuck");
    const gasSent = await sentBy(gas());
    const alerts = gw.gateway.runtime.ops.alerts;
    await alerts.tick();
    await node.setAutomine(false);
    try {
      const o = await pumped(payout({ fromAddress: from, toAddress: to, amount: "5" }));
      expect(o.status).toBe("submitted");
      const [t] = await topupsOf(o.orderNo);
      // The gas wallet's next nonce: past the replaced top-up's, never reusing it.
      expect(meta(t!.signedMeta).nonce).toBe(firstNonce + 1);

      for (let i = 0; i < 30 && (await topupsOf(o.orderNo))[0]!.stuckAt === null; i++) {
        await clock.advance(REPLACE_AFTER);
        await pumped(tick());
      }
      const stuck = (await topupsOf(o.orderNo))[0]!;
      expect(stuck.stuckAt).not.toBeNull();
      expect(stuck.lastError).toContain("gas_price_cap");
      const reps = await attemptsOf(t!.id);
      expect(reps.length).toBeGreaterThanOrEqual(2);
      expectRaised(meta(t!.signedMeta), t!.txHash, reps);
      expect(await inPool(reps.at(-1)!.txHash)).toBe(true);
      // The payout (signed, never sent) waits, saying why.
      expect(await row(o.orderNo)).toMatchObject({ status: "submitted", broadcastedAt: null });
      expect(await inPool((await row(o.orderNo)).txHash!)).toBe(false);
      expect((await row(o.orderNo)).lastError).toContain("gas_price_cap");

      const fired = (await alerts.tick()).fired;
      expect(alertKeys(fired)).toContain(`payout_stuck:${CODE}`);
      expect(fired.find((a) => a.condition === "payout_stuck")!.message).toContain(`waiting for a gas top-up not landing at chains.${CODE}.gas_price_cap`);
      expect(fired.find((a) => a.condition === "payout_stuck")!.message).toContain(o.orderNo);
      // Still stuck: no new replacement, not fired again.
      await clock.advance(REPLACE_AFTER);
      await pumped(tick());
      expect(await attemptsOf(t!.id)).toHaveLength(reps.length);
      expect(alertKeys((await alerts.tick()).fired)).not.toContain(`payout_stuck:${CODE}`);

      // A block is mined: the newest (at the cap, above the base fee) lands; the payout goes out once.
      await node.mine(1);
      await clock.advance(REPLACE_AFTER);
      await pumped(tick());
      expect((await topupsOf(o.orderNo))[0]).toMatchObject({ status: "confirmed", txHash: reps.at(-1)!.txHash, stuckAt: null });
      for (const h of [t!.txHash, ...reps.slice(0, -1).map((r) => r.txHash)]) expect(await receipt(h)).toBeNull();
      expect(await settle(o.orderNo)).toMatchObject({ status: "confirmed" });
      expect(alertKeys((await alerts.tick()).resolved)).toContain(`payout_stuck:${CODE}`);
    } finally {
      await node.setAutomine(true);
    }
    expect(await node.tokenBalance("USDT", to!)).toBe(toBaseUnits("5", 18));
    expect(await sentBy(from)).toBe(1);
    expect(await sentBy(gas())).toBe(gasSent + 1);
  });
});
