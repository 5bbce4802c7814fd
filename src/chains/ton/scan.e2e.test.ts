// The TON scan against the real USDT jetton code on @ton/sandbox behind the toncenter v3 test
// server (DESIGN 23): a payer's USDT transfer to a gateway wallet is one transfer with its
// comment; a look-alike jetton (same code, another master) is noticed apart and never credited;
// the calls per masterchain block do not depend on how many addresses are watched.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Address } from "@ton/core";
import { mnemonicToSeedSync } from "@scure/bip39";
import { TonNode } from "../../testing/ton-node";
import { TonRpc } from "./rpc";
import { tonScanner, type CounterfeitNotice } from "./scan";
import { deriveTonKey, randomTonAddress } from "./address";
import { tonChain } from "./index";
import type { WatchSet } from "../types";

const SEED = mnemonicToSeedSync("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about");
const watchOf = (addrs: string[]): WatchSet => {
  const s = new Set(addrs);
  return { has: (a) => s.has(a), size: s.size, addresses: () => s };
};

let node: TonNode;
beforeAll(async () => {
  node = await TonNode.start({ apiKey: "test-key" });
});
afterAll(() => node?.stop());

describe("TON scan on the real USDT jetton", () => {
  const gateway = deriveTonKey(SEED, 1).address;
  const payer = Address.parse(randomTonAddress());
  const counterfeits: CounterfeitNotice[] = [];
  const scanner = () => tonScanner({ rpc: new TonRpc({ urls: [node.url], apiKey: "test-key" }), tokens: tonChain.defaults.tokens, confirmations: 1, onCounterfeit: (n) => counterfeits.push(n) });

  test("the USDT master assigns each owner its jetton wallet; minting and paying move real balances", async () => {
    await node.mint(payer, 100_000_000n);
    expect(await node.jettonBalance(payer)).toBe(100_000_000n);
    const s = scanner();
    expect(Address.parseRaw(await s.jettonWalletOf(gateway)).equals(await node.jettonWalletOf(Address.parse(gateway)))).toBe(true);
  });

  test("a USDT payment with the order number as comment is one transfer to the gateway's UQ… address", async () => {
    const s = scanner();
    const before = (await s.head()).latest;
    const block = await node.payJetton(payer, Address.parse(gateway), 12_500_000n, { comment: "PI42" });
    expect(await node.jettonBalance(Address.parse(gateway))).toBe(12_500_000n);
    const head = await s.head();
    expect(head.latest).toBe(BigInt(block.seqno));
    const r = await s.scan(before + 1n, head.latest, watchOf([gateway, randomTonAddress()]));
    expect(r.transfers).toHaveLength(1);
    const t = r.transfers[0]!;
    expect(t).toMatchObject({ chain: "TON", token: "USDT", to: gateway, from: payer.toString({ bounceable: false, urlSafe: true }), amount: 12_500_000n, blockNumber: BigInt(block.seqno), logIndex: 0, memo: "PI42" });
    expect(t.txHash).toMatch(/^[0-9a-f]{64}$/);
    expect(r.tip.number).toBe(head.latest);
    expect(await s.blockHash(head.latest)).toBe(r.tip.hash);
    // Not watched: nothing.
    expect((await s.scan(before + 1n, head.latest, watchOf([randomTonAddress()]))).transfers).toEqual([]);
  });

  test("a look-alike jetton (the same code under another master) is noticed and flagged counterfeit", async () => {
    const fake = await node.deployFakeMaster();
    await node.mintFake(fake, payer, 50_000_000n);
    const s = scanner();
    const before = (await s.head()).latest;
    await node.payJetton(payer, Address.parse(gateway), 5_000_000n, { master: fake, comment: "PI42" });
    expect(await node.jettonBalance(Address.parse(gateway), fake)).toBe(5_000_000n);
    const r = await s.scan(before + 1n, (await s.head()).latest, watchOf([gateway]));
    expect(r.transfers).toHaveLength(1);
    expect(r.transfers[0]).toMatchObject({ token: "USDT", to: gateway, amount: 5_000_000n, counterfeit: true });
    expect(counterfeits).toHaveLength(1);
    expect(counterfeits[0]).toMatchObject({ to: gateway, amount: 5_000_000n });
    expect(Address.parse(counterfeits[0]!.jettonWallet).equals(await node.jettonWalletOf(Address.parse(gateway), fake))).toBe(true);
  });

  test("finality counts masterchain blocks; a wrong API key is refused", async () => {
    const s3 = tonScanner({ rpc: new TonRpc({ urls: [node.url], apiKey: "test-key" }), tokens: tonChain.defaults.tokens, confirmations: 3 });
    const h = await s3.head();
    expect(h.final).toBe(h.latest - 2n);
    const bad = tonScanner({ rpc: new TonRpc({ urls: [node.url], apiKey: "wrong", attempts: 1 }), tokens: tonChain.defaults.tokens, confirmations: 1 });
    await expect(bad.head()).rejects.toThrow(/HTTP 401/);
  });

  test("calls per masterchain block are the same for 10 and 100,000 watched addresses", async () => {
    const many = watchOf([gateway, ...Array.from({ length: 99_999 }, (_, i) => `UQ-watched-${i}`)]);
    const few = watchOf([gateway, ...Array.from({ length: 9 }, (_, i) => `UQ-watched-${i}`)]);
    node.mine(5);
    const count = async (w: WatchSet) => {
      const s = scanner();
      await s.jettonWalletOf(gateway); // the one owner that is paid: its wallet is asked once either way
      node.calls.clear();
      const h = await s.head();
      await s.scan(h.latest - 9n, h.latest, w);
      return [...node.calls.values()].reduce((a, b) => a + b, 0);
    };
    const a = await count(few);
    const b = await count(many);
    expect(a).toBe(b);
    expect(a).toBe(1 + 10 * 2);
  });
});
