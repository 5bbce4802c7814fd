// Solana at scale: the block scan (getBlocks + getBlock per produced slot, matched locally)
// finds exactly what the per-address scan finds, with 10,000 watched owners, and its calls
// do not grow with the watch set.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startSolFixture, someSolAddresses, type SolFixture } from "../../testing/sol-fixture";
import { watchSetOf } from "../../testing/watch-set";
import type { IncomingTransfer } from "../types";

let fx: SolFixture;
beforeAll(async () => {
  fx = await startSolFixture({ finalizedLag: 2 });
});
afterAll(async () => {
  await fx?.stop();
});

const key = (t: IncomingTransfer) => `${t.txHash}/${t.logIndex}/${t.to}/${t.amount}/${t.from}/${t.blockNumber}/${t.blockTime}/${t.token}`;

test("with 10,000 watched owners the block scan finds every transfer the per-address scan finds", async () => {
  const byBlocks = fx.adapter({ scanMode: "blocks" });
  const byAddress = fx.adapter({ scanMode: "addresses" });
  const auto = fx.adapter();
  for (const a of [byBlocks, byAddress, auto]) await a.start();
  const watched = someSolAddresses(10_000, "block-scan");
  const strangers = someSolAddresses(5, "not-watched");
  const start = (await byBlocks.head()).scanTo! + 1n;

  const payer = fx.payer(1_000_000_000n);
  // Single payments, a multi-pay transaction (watched and not), plain transfer and transferChecked,
  // two payments to one owner, an owner at both ends of the list.
  await fx.pay(payer, [[watched[0], 1_000_001n]]);
  await fx.pay(payer, [[watched[9_999], 2_000_002n]], { plain: true });
  await fx.pay(payer, [[watched[17], 3n], [strangers[0], 4n], [watched[4_242], 5_000_000n]]);
  await fx.pay(payer, [[strangers[1], 6n]]);
  fx.node.skipSlots(3);
  await fx.pay(payer, [[watched[17], 7n]]);
  for (let i = 0; i < 10; i++) await fx.pay(payer, [[watched[100 + i * 37], BigInt(100 + i)]]);
  fx.node.finalizeAll();
  const to = (await byBlocks.head()).scanTo!;

  fx.proxy.resetCounts();
  const viaBlocks = (await byBlocks.scan(start, to, watchSetOf(watched))).transfers;
  const blockCalls = fx.proxy.totalCalls();
  expect(fx.proxy.calls.get("getSignaturesForAddress")).toBeUndefined();

  const viaAddresses = (await byAddress.scan(start, to, watchSetOf(watched))).transfers;
  expect(viaAddresses.length).toBe(15);
  expect(viaBlocks.map(key)).toEqual(viaAddresses.map(key));
  expect(viaBlocks.some((t) => strangers.includes(t.to))).toBe(false);

  // The same range with 10 watched owners costs the block scan the same calls.
  fx.proxy.resetCounts();
  const few = (await byBlocks.scan(start, to, watchSetOf(watched.slice(0, 10)))).transfers;
  expect(fx.proxy.totalCalls()).toBe(blockCalls);
  expect(few.map(key)).toEqual(viaAddresses.filter((t) => watched.slice(0, 10).includes(t.to)).map(key));

  // auto: 10,000 watched over this short range reads blocks.
  fx.proxy.resetCounts();
  expect((await auto.scan(start, to, watchSetOf(watched))).transfers.map(key)).toEqual(viaAddresses.map(key));
  expect(fx.proxy.calls.get("getSignaturesForAddress")).toBeUndefined();
  expect(fx.proxy.calls.get("getBlock")).toBeGreaterThan(0);
}, 120_000);

test("a block scan past the node's finalized slot fails (scan again) instead of skipping slots", async () => {
  const byBlocks = fx.adapter({ scanMode: "blocks" });
  const h = await byBlocks.head();
  await expect(byBlocks.scan(h.scanTo! + 1n, h.latest + 5n, watchSetOf(someSolAddresses(3, "ahead")))).rejects.toThrow(/not finalized slot .* yet; scan again/);
});
