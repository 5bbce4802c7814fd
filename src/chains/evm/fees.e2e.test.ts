// EVM transactions done right (issue 25), on anvil with a base fee: type-2 (EIP-1559)
// transactions where the chain has a base fee (legacy where the profile says so), the cap on
// maxFeePerGas, the OP-stack L1 data fee (a GasPriceOracle stand-in placed by anvil_setCode)
// in fee estimates and signed transactions, replacements that raise fees up to the cap, and
// "nonce too low" judged with every endpoint and final data only.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mnemonicToSeedSync } from "@scure/bip39";
import { privateKeyToAccount } from "viem/accounts";
import { bytesToHex, type Hex } from "viem";
import { startAnvil, type AnvilNode } from "../../testing/anvil";
import { startRpcProxy, type RpcProxy } from "../../testing/rpc-proxy";
import { placeL1FeeOracle } from "../../testing/l1-fee-oracle";
import { toBaseUnits } from "../../lib/money";
import type { ChainCode, TokenInfo } from "../types";
import { bumpFee, createEvmAdapter, type EvmAdapterOptions, type EvmProfile, type EvmTxMeta } from "./adapter";
import { deriveEvmKey } from "./address";
import { maxCostOf } from "./payout-steps";
import { TOKEN_ADDRESSES } from "../../testing/anvil";
import { eventually } from "../../testing/wait";

const SEED = mnemonicToSeedSync("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about");
const CHAIN_ID = 31338;
const CODE = "FEES" as ChainCode;
const TOKENS: TokenInfo[] = [{ chain: CODE, symbol: "USDT", contract: TOKEN_ADDRESSES.USDT, decimals: 18 }];
const BASE: EvmProfile = { chain: CODE, name: "Fees", chainId: CHAIN_ID, nativeSymbol: "ETH", bip44Account: CHAIN_ID };
const GWEI = 10n ** 9n;
const L1_FEE = 123_456_789_012n;
const withMargin = (x: bigint) => (x * 13n + 9n) / 10n;

let node: AnvilNode;
let n = 0;
const quiet = { info() {}, warn() {}, error() {} };
const adapterFor = (profile: Partial<EvmProfile> = {}, o: Partial<EvmAdapterOptions> = {}) =>
  createEvmAdapter({ ...BASE, ...profile }, { rpcUrls: [node.url], tokens: TOKENS, confirmations: 3, backoffBaseMs: 5, logger: quiet, ...o });

/** A fresh source holding tokens and native coin. */
async function source() {
  const key = deriveEvmKey(SEED, CHAIN_ID, ++n);
  await node.mint("USDT", key.address, toBaseUnits("100", 18));
  await node.setBalance(key.address, 10n ** 17n);
  return key;
}
const dest = (i: number) => deriveEvmKey(SEED, CHAIN_ID, 1000 + i).address;
const chainTx = (hash: string) => node.rpc<Record<string, string> | null>("eth_getTransactionByHash", [hash]);
const receipt = (hash: string) => node.rpc<Record<string, string> | null>("eth_getTransactionReceipt", [hash]);
/** Anvil mines right after answering the send; the receipt follows. */
const mined = (hash: string) => eventually(() => receipt(hash), 10_000, `receipt of ${hash}`, 10);

beforeAll(async () => {
  node = await startAnvil({ chainId: CHAIN_ID, baseFee: GWEI });
});
afterAll(async () => {
  await node?.stop();
});

describe("fees on a chain with a base fee", () => {
  test("payouts and native transfers are type 2 where the latest block has a base fee; maxFeePerGas = 2 × base fee + tip", async () => {
    const a = adapterFor();
    await a.start();
    const src = await source();
    const tx = await a.signTransfer({ token: "USDT", from: src.address, to: dest(1), amount: 5n, privateKey: src.privateKey });
    const meta = tx.meta as EvmTxMeta;
    expect(meta.type).toBe("eip1559");
    const block = await node.rpc<{ baseFeePerGas: string }>("eth_getBlockByNumber", ["latest", false]);
    const tip = BigInt(await node.rpc<string>("eth_maxPriorityFeePerGas"));
    expect(BigInt(meta.gasPrice)).toBe(2n * BigInt(block.baseFeePerGas) + tip);
    expect(meta.maxPriorityFeePerGas).toBe(tip.toString());
    expect(await a.broadcast(tx)).toEqual({ ok: true });
    const onChain = (await chainTx(tx.txHash))!;
    expect(onChain.type).toBe("0x2");
    expect(BigInt(onChain.maxFeePerGas!)).toBe(BigInt(meta.gasPrice));
    expect((await mined(tx.txHash))!.status).toBe("0x1");

    const gas = deriveEvmKey(SEED, CHAIN_ID, 0);
    await node.setBalance(gas.address, 10n ** 18n);
    const topup = await a.signNativeTransfer({ from: gas.address, to: dest(2), amount: 1000n, privateKey: gas.privateKey });
    expect((topup.meta as EvmTxMeta).type).toBe("eip1559");
    expect(await a.broadcast(topup)).toEqual({ ok: true });
    expect((await chainTx(topup.txHash))!.type).toBe("0x2");
  });

  test("gas_price_cap caps maxFeePerGas (and the tip under it); the capped transaction still mines above the base fee", async () => {
    const block = await node.rpc<{ baseFeePerGas: string }>("eth_getBlockByNumber", ["latest", false]);
    const cap = BigInt(block.baseFeePerGas) + 1n;
    const a = adapterFor({}, { gasPriceCap: cap });
    const src = await source();
    const tx = await a.signTransfer({ token: "USDT", from: src.address, to: dest(3), amount: 5n, privateKey: src.privateKey });
    const meta = tx.meta as EvmTxMeta;
    expect(BigInt(meta.gasPrice)).toBe(cap);
    expect(BigInt(meta.maxPriorityFeePerGas!)).toBeLessThanOrEqual(cap);
    expect(await a.estimateTransferFee(src.address, dest(3), "USDT", 5n)).toBe(BigInt(meta.gasLimit) * cap);
    expect(await a.broadcast(tx)).toEqual({ ok: true });
    expect((await mined(tx.txHash))!.status).toBe("0x1");
  });

  test("a profile with eip1559 = false signs legacy (type 0) on the same chain", async () => {
    const a = adapterFor({ eip1559: false });
    const src = await source();
    const tx = await a.signTransfer({ token: "USDT", from: src.address, to: dest(4), amount: 5n, privateKey: src.privateKey });
    expect((tx.meta as EvmTxMeta).type).toBe("legacy");
    expect(BigInt((tx.meta as EvmTxMeta).gasPrice)).toBe(BigInt(await node.rpc<string>("eth_gasPrice")));
    expect(await a.broadcast(tx)).toEqual({ ok: true });
    expect((await chainTx(tx.txHash))!.type).toBe("0x0");
  });
});

describe("the L1 data fee", () => {
  test("OP stack: estimates and signed transactions carry GasPriceOracle.getL1Fee (with a 30 % margin) on top of gas; an L1 chain and Arbitrum add none", async () => {
    await placeL1FeeOracle(node, L1_FEE);
    const op = adapterFor({ l1Fee: "op-stack" });
    const l1 = adapterFor();
    const arb = adapterFor({ l1Fee: "arbitrum" });
    const src = await source();
    const onL1 = await l1.estimateTransferFee(src.address, dest(5), "USDT", 7n);
    expect(await op.estimateTransferFee(src.address, dest(5), "USDT", 7n)).toBe(onL1 + withMargin(L1_FEE));
    // Arbitrum's L1 component is part of eth_estimateGas's answer there: nothing is added.
    expect(await arb.estimateTransferFee(src.address, dest(5), "USDT", 7n)).toBe(onL1);

    const tx = await op.signTransfer({ token: "USDT", from: src.address, to: dest(5), amount: 7n, privateKey: src.privateKey });
    const meta = tx.meta as EvmTxMeta;
    expect(meta.l1Fee).toBe(withMargin(L1_FEE).toString());
    // What a gas top-up funds: the worst case of gas plus the L1 fee allowance.
    expect(maxCostOf(meta)).toBe(BigInt(meta.gasLimit) * BigInt(meta.gasPrice) + withMargin(L1_FEE));
    const nat = await op.signNativeTransfer({ from: src.address, to: dest(6), amount: 1n, privateKey: src.privateKey, hint: { nonce: meta.nonce + 1 } });
    expect((nat.meta as EvmTxMeta).l1Fee).toBe(withMargin(L1_FEE).toString());
    expect((await l1.signTransfer({ token: "USDT", from: src.address, to: dest(5), amount: 7n, privateKey: src.privateKey })).meta.l1Fee).toBeUndefined();
  });
});

describe("replacement and nonce conclusions", () => {
  test("a replacement keeps nonce, gas, recipient and data, raises both fees by at least 12.5 %, and takes the pending one's place", async () => {
    const a = adapterFor();
    const src = await source();
    await node.setAutomine(false);
    try {
      const tx = await a.signTransfer({ token: "USDT", from: src.address, to: dest(7), amount: 9n, privateKey: src.privateKey });
      expect(await a.broadcast(tx)).toEqual({ ok: true });
      const r = (await a.signReplacement(tx, src.privateKey))!;
      const [m0, m1] = [tx.meta as EvmTxMeta, r.meta as EvmTxMeta];
      expect(r.txHash).not.toBe(tx.txHash);
      expect(m1).toMatchObject({ nonce: m0.nonce, gasLimit: m0.gasLimit, to: m0.to, type: "eip1559", recipient: m0.recipient, amount: m0.amount, token: "USDT", replaces: tx.txHash });
      expect(BigInt(m1.gasPrice)).toBeGreaterThanOrEqual(bumpFee(BigInt(m0.gasPrice)));
      expect(BigInt(m1.maxPriorityFeePerGas!)).toBeGreaterThanOrEqual(bumpFee(BigInt(m0.maxPriorityFeePerGas!)));
      expect((await chainTx(r.txHash)) === null).toBe(true);
      expect(await a.broadcast(r)).toEqual({ ok: true });
      await node.mine(1);
      expect((await mined(r.txHash))!.status).toBe("0x1");
      expect(await receipt(tx.txHash)).toBeNull();
      expect(await node.tokenBalance("USDT", dest(7))).toBe(9n);
    } finally {
      await node.setAutomine(true);
    }
  });

  test("at the cap: a raise that clears 10 % goes to the cap; beyond it, no replacement (null)", async () => {
    const src = await source();
    const free = adapterFor();
    const tx = await free.signTransfer({ token: "USDT", from: src.address, to: dest(8), amount: 1n, privateKey: src.privateKey });
    const price = BigInt((tx.meta as EvmTxMeta).gasPrice);
    const tip = BigInt((tx.meta as EvmTxMeta).maxPriorityFeePerGas!);
    // Room for 11 % but not 12.5 %: the cap itself.
    const atCap = await adapterFor({}, { gasPriceCap: price + (price * 11n) / 100n }).signReplacement(tx, src.privateKey);
    expect(BigInt((atCap!.meta as EvmTxMeta).gasPrice)).toBe(price + (price * 11n) / 100n);
    expect(BigInt((atCap!.meta as EvmTxMeta).maxPriorityFeePerGas!)).toBeGreaterThanOrEqual(bumpFee(tip));
    // Room for less than 10 %: stuck.
    expect(await adapterFor({}, { gasPriceCap: price + (price * 5n) / 100n }).signReplacement(tx, src.privateKey)).toBeNull();
  });

  describe("with two endpoints", () => {
    let lagging: RpcProxy;
    let good: RpcProxy;
    beforeAll(async () => {
      lagging = await startRpcProxy(node.url);
      good = await startRpcProxy(node.url);
    });
    afterAll(async () => {
      await lagging?.stop();
      await good?.stop();
    });
    const two = () => adapterFor({}, { rpcUrls: [lagging.url, good.url], confirmations: 3 });
    /** The first endpoint answers "nonce too low" to every send and knows no transaction (a node that saw another branch). */
    const lag = () =>
      lagging.setFaults({
        answer: (m) =>
          m === "eth_sendRawTransaction" ? { error: { code: -32000, message: "nonce too low" } } : m === "eth_getTransactionByHash" || m === "eth_getTransactionReceipt" ? { result: null } : undefined,
      });

    /** Signs a 0-value transfer to itself from `key` at `nonce` (another transaction taking the payout's nonce). */
    async function takeNonce(privateKey: Uint8Array, nonce: number): Promise<void> {
      const acct = privateKeyToAccount(bytesToHex(privateKey) as Hex);
      const raw = await acct.signTransaction({ type: "legacy", chainId: CHAIN_ID, nonce, to: acct.address, value: 0n, gas: 21_000n, gasPrice: 10n * GWEI });
      await mined(await node.rpc<string>("eth_sendRawTransaction", [raw]));
    }

    test("'nonce too low' from one endpoint while another knows our transaction: sent, not failed", async () => {
      const src = await source();
      const tx = await adapterFor().signTransfer({ token: "USDT", from: src.address, to: dest(9), amount: 2n, privateKey: src.privateKey });
      await node.rpc("eth_sendRawTransaction", [tx.raw]);
      lag();
      try {
        expect(await two().broadcast(tx)).toEqual({ ok: true });
        expect(lagging.calls.get("eth_sendRawTransaction")).toBeGreaterThan(0);
        expect(good.calls.get("eth_getTransactionByHash")).toBeGreaterThan(0);
      } finally {
        lagging.setFaults({});
      }
    });

    test("nonce used by another transaction: transient (and the payout's state unknown, never expired) until that block is final; then permanent and expired", async () => {
      const src = await source();
      const a = two();
      const tx = await adapterFor().signTransfer({ token: "USDT", from: src.address, to: dest(10), amount: 2n, privateKey: src.privateKey });
      await takeNonce(src.privateKey, (tx.meta as EvmTxMeta).nonce); // mined at once: latest, not final (3 confirmations)
      lag();
      try {
        const r = await a.broadcast(tx);
        expect(r).toMatchObject({ ok: false, permanent: false });
        expect(await a.txState(tx)).toEqual({ state: "unknown" });
        await node.mine(2); // now 3 confirmations: final
        expect(await a.broadcast(tx)).toMatchObject({ ok: false, permanent: true, error: expect.stringContaining("final block") });
        expect(await a.txState(tx)).toEqual({ state: "expired" });
      } finally {
        lagging.setFaults({});
      }
    });

    test("the final block's nonce unreadable: unknown, never judged on the latest block", async () => {
      const src = await source();
      const a = adapterFor({}, { rpcUrls: [good.url], confirmations: 1 });
      const tx = await adapterFor().signTransfer({ token: "USDT", from: src.address, to: dest(11), amount: 2n, privateKey: src.privateKey });
      await takeNonce(src.privateKey, (tx.meta as EvmTxMeta).nonce);
      expect(await a.txState(tx)).toEqual({ state: "expired" }); // final at 1 confirmation
      // A node that prunes state answers no nonce at a block number: nothing is concluded.
      good.setFaults({ answer: (m, p) => (m === "eth_getTransactionCount" && typeof p[1] === "string" && p[1].startsWith("0x") ? { error: { code: -32000, message: "missing trie node" } } : undefined) });
      try {
        expect(await a.txState(tx)).toEqual({ state: "unknown" });
        expect(await a.broadcast(tx)).toMatchObject({ ok: false, permanent: false });
      } finally {
        good.setFaults({});
      }
    });
  });
});
