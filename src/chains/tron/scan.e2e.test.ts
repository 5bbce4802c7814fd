// Block scanning on the fake TRON node: exact amounts and positions, only watched
// addresses and the configured contract, failed transactions ignored, reorgs during a
// scan refused, and calls per block independent of the watch set's size.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bytesToHex } from "@noble/hashes/utils.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { deriveTronKey } from "./address";
import { watchSetOf } from "../../testing/watch-set";
import { DEV_ADDRESS, DEV_KEY, startTronFixture, TRX, type TronFixture } from "../../testing/tron-fixture";
import { hexToBytes } from "@noble/hashes/utils.js";
import type { TronAdapter } from "./adapter";

let fx: TronFixture;
let adapter: TronAdapter;
let k = 0;
const addr = () => deriveTronKey(sha256(new TextEncoder().encode("scan")), k++).address;

beforeAll(async () => {
  fx = await startTronFixture({ solidLag: 3 });
  adapter = fx.adapter({ scanConcurrency: 3 });
  await adapter.start();
});
afterAll(() => fx?.stop());

const head = () => BigInt(fx.node.chain.head.number);

describe("TRON scan", () => {
  test("finds transfers to watched addresses with exact amounts, block data and positions; ignores the rest", async () => {
    const [a, b, stranger] = [addr(), addr(), addr()];
    const start = head() + 1n;
    const t1 = await fx.sendUsdt(a, 1n);
    const t2 = await fx.sendUsdt(stranger, 5_000_000n);
    await fx.sendTrx(a, 2n * TRX); // TRX, not a token transfer
    const t3 = await fx.sendUsdt(b, 123_456_789_012n);
    fx.node.mine(1); // one block with all four
    const t4 = await fx.sendUsdt(a, 999_999n);
    fx.node.mine(2);
    const res = await adapter.scan(start, head(), watchSetOf([a, b]));
    const blockA = fx.node.chain.block(Number(start))!;
    expect(res.transfers.map((t) => [t.txHash, t.to, t.amount, t.blockNumber, t.logIndex])).toEqual([
      [t1, a, 1n, start, 0],
      [t3, b, 123_456_789_012n, start, 0],
      [t4, a, 999_999n, start + 1n, 0],
    ]);
    expect(res.transfers[0]).toMatchObject({ chain: "TRON", token: "USDT", blockHash: blockA.blockID, blockTime: blockA.timestamp, from: DEV_ADDRESS });
    expect(res.transfers.map((t) => t.txHash)).not.toContain(t2);
    expect(res.tip).toEqual({ number: head(), hash: fx.node.chain.head.blockID, time: fx.node.chain.head.timestamp });
  });

  test("a failed transfer (OUT_OF_ENERGY) credits nothing", async () => {
    const src = deriveTronKey(sha256(new TextEncoder().encode("scan-src")), 0);
    await fx.sendUsdt(src.address, 50n);
    await fx.sendTrx(src.address, TRX);
    fx.node.mine(1);
    const to = addr();
    const start = head() + 1n;
    await fx.sendUsdt(to, 50n, bytesToHex(src.privateKey));
    fx.node.mine(1);
    expect((await adapter.scan(start, head(), watchSetOf([to]))).transfers).toEqual([]);
  });

  test("an empty watch set costs one call for the tip", async () => {
    fx.node.mine(5);
    fx.node.resetCounts();
    const res = await adapter.scan(head() - 4n, head(), watchSetOf([]));
    expect(res.transfers).toEqual([]);
    expect(fx.node.totalCalls()).toBe(1);
  });

  test("calls per block do not depend on how many addresses are watched (10 vs 100,000)", async () => {
    const watched = [addr(), addr()];
    const start = head() + 1n;
    for (let i = 0; i < 10; i++) {
      await fx.sendUsdt(watched[i % 2], BigInt(i + 1));
      fx.node.mine(2);
    }
    const end = head();
    const count = async (w: string[]) => {
      fx.node.resetCounts();
      const r = await adapter.scan(start, end, watchSetOf(w));
      return { calls: fx.node.totalCalls(), found: r.transfers.length };
    };
    // Receive-only entries: the set is only asked has(); they need not be real keys.
    const many = [...watched, ...Array.from({ length: 100_000 }, (_, i) => `T-watched-${i}`)];
    const small = await count([...watched, ...Array.from({ length: 8 }, addr)]);
    const big = await count(many);
    expect(small.found).toBe(10);
    expect(big.found).toBe(10);
    expect(big.calls).toBe(small.calls);
    // getblockbynum per block + gettransactioninfobyblocknum per block with transactions.
    expect(small.calls).toBe(Number(end - start + 1n) + 10);
  });

  test("a reorg between the blocks of one scan is refused (parent hash mismatch); rescanning then succeeds", async () => {
    const a = addr();
    const serial = fx.adapter({ scanConcurrency: 1 });
    const start = head() + 1n;
    fx.node.mine(2);
    // Signed by the adapter: its reference block is solidified, so the reorg cannot invalidate it.
    const tx = await serial.signTransfer({ token: "USDT", from: DEV_ADDRESS, to: a, amount: 42n, privateKey: hexToBytes(DEV_KEY) });
    expect(await serial.broadcast(tx)).toEqual({ ok: true });
    fx.node.mine(1);
    const end = head();
    // Reorganise the last two blocks while the scan is between its block fetches.
    const orig = serial.rpc.post.bind(serial.rpc);
    let hit = false;
    (serial.rpc as { post: unknown }).post = async (path: string, body?: Record<string, unknown>, o?: { attempts?: number }) => {
      const r = await orig(path, body, o);
      if (!hit && path === "wallet/getblockbynum" && Number(body?.num) === Number(start + 1n)) {
        hit = true;
        fx.node.reorg(2, { keepTxs: true });
      }
      return r;
    };
    try {
      await expect(serial.scan(start, end, watchSetOf([a]))).rejects.toThrow(/reorg/);
    } finally {
      (serial.rpc as { post: unknown }).post = orig;
    }
    const res = await serial.scan(start, head(), watchSetOf([a]));
    expect(res.transfers.map((t) => [t.txHash, t.amount, t.blockNumber])).toEqual([[tx.txHash, 42n, start + 1n]]);
    expect(res.transfers[0].blockHash).toBe(fx.node.chain.block(Number(start + 1n))!.blockID);
  });
});
