// The sandbox chain's store on the engine of the process (SG_TEST_DB=pg: PostgreSQL): blocks,
// transfers, trigger-kept balances past 2^64, adjustments a reorg gives back, concurrent mining.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { openTestDb, type TestDb } from "../../testing/engines";
import { writeTx } from "../../db/client";
import { SandboxChain } from "./chain";
import { adjustSandboxBalance, sandboxBalance, sandboxOutgoingCount, sandboxTransactionRows } from "./store";

let tdb: TestDb;
let chain: SandboxChain;
const amountInBlock = new Map<number, bigint>();
const TOKENS = [{ chain: "BSC" as const, symbol: "USDT" as const, contract: "0x55d398326f99059fF775485246999027B3197955", decimals: 18 }];
const A = "0x1111111111111111111111111111111111111111";
const B = "0x2222222222222222222222222222222222222222";

beforeAll(async () => {
  tdb = await openTestDb();
  chain = new SandboxChain({ chain: "BSC", db: tdb.db, tokens: TOKENS, confirmations: 3, now: Date.now });
});
afterAll(async () => await tdb.close());

test("a transfer is mined in a new block: scanned with its block time, balance exact past 2^64", async () => {
  const big = 123_456_789_012_345_678_901_234_567n;
  const r = await chain.transfer({ token: "USDT", to: A, amount: big });
  expect(r.blockNumber).toBe(1);
  expect(await chain.height()).toBe(1);
  expect(await chain.tokenBalance(A, "USDT")).toBe(big);
  const scan = await chain.scan(1n, 1n, { has: (a: string) => a === A } as never);
  expect(scan.transfers.map((t) => [t.txHash, t.amount, t.blockNumber])).toEqual([[r.txHash, big, 1n]]);
  expect(scan.tip.time).toBe(scan.transfers[0]!.blockTime);
  const rows = await sandboxTransactionRows(tdb.db, "BSC", r.txHash);
  expect(rows.map((x) => x.t.toAddress)).toEqual([A]);
  expect(await chain.mine(2)).toBe(3);
  expect((await chain.lookupTx(r.txHash)).state).toBe("included");
});

test("concurrent transfers each take their own block", async () => {
  const start = await chain.height();
  const results = await Promise.all(Array.from({ length: 6 }, (_, i) => chain.transfer({ token: "USDT", to: B, amount: BigInt(i + 1) })));
  results.forEach((r, i) => amountInBlock.set(r.blockNumber, BigInt(i + 1)));
  expect(results.map((r) => r.blockNumber).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6].map((i) => start + i));
  expect(await chain.tokenBalance(B, "USDT")).toBe(21n);
});

test("a reorg drops the blocks above the cut, their transfers and adjustments; the block hashes change", async () => {
  const h = await chain.height();
  const before = await chain.blockHash(BigInt(h));
  await writeTx(tdb.db, async (t) => await adjustSandboxBalance(t, "BSC", h, B, "USDT", -5n));
  expect(await sandboxBalance(tdb.db, "BSC", B, "USDT")).toBe(16n);
  expect(await chain.reorg(2)).toBe(h - 2);
  expect(await chain.height()).toBe(h - 2);
  // The transfers of blocks h-1 and h are gone; the adjustment in block h came back.
  expect(await chain.tokenBalance(B, "USDT")).toBe(21n - amountInBlock.get(h)! - amountInBlock.get(h - 1)!);
  await chain.mine(2);
  expect(await chain.blockHash(BigInt(h))).not.toBe(before);
  expect(await sandboxOutgoingCount(tdb.db, "BSC", A)).toBe(0);
});

test("sandbox faults: the next broadcast fails once", async () => {
  await chain.setFaults(1);
  const signed = await chain.signTransfer({ token: "USDT", from: A, to: B, amount: 1n, privateKey: new Uint8Array(32).fill(7) } as never);
  expect(await chain.broadcast(signed)).toMatchObject({ ok: false, permanent: false });
  expect(await chain.broadcast(signed)).toEqual({ ok: true });
  expect(await sandboxOutgoingCount(tdb.db, "BSC", A)).toBe(1);
  expect((await chain.txState(signed)).state).toBe("included");
});
