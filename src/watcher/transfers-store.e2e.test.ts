// The transfers store and the watcher's cursor on the engine of the process (SG_TEST_DB=pg:
// PostgreSQL): one test body for both implementations. Amounts stay exact text past 2^64.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { openTestDb, type TestDb } from "../testing/engines";
import { writeTx } from "../db/client";
import {
  crossingThreshold,
  insertTransfer,
  moveTransfer,
  pendingInBlocks,
  pendingTransferBlocks,
  pendingTransfers,
  recentTransfersTo,
  relandTransfer,
  revertTransferRow,
  showTransferConfirmations,
  transactionRecorded,
  transferById,
  transferByKey,
} from "./transfers-store";
import { chainCursor, initChainCursor, saveChainCursor } from "./store";

let tdb: TestDb;
beforeAll(async () => {
  tdb = await openTestDb();
});
afterAll(async () => await tdb.close());

const BIG = "123456789012345678901234567";
const base = { chain: "BSC", token: "USDT", fromAddress: "0xfrom", toAddress: "0xto", disposition: "unmatched", status: "pending", confirmations: 1, seenAt: 1000 };
const put = async (txHash: string, blockNumber: number, amount = "5") =>
  await writeTx(tdb.db, async (tx) => await insertTransfer(tx, { ...base, txHash, logIndex: 0, blockNumber, blockHash: `h${blockNumber}`, blockTime: blockNumber * 1000, amount }));

test("insert, read back by key and id; amounts exact past 2^64", async () => {
  const t = await put("0xa", 10, BIG);
  expect(t).toMatchObject({ txHash: "0xa", blockNumber: 10, amount: BIG, status: "pending" });
  expect((await transferByKey(tdb.db, "BSC", "0xa", 0))!.id).toBe(t.id);
  expect(await transferByKey(tdb.db, "BSC", "0xa", 1)).toBeUndefined();
  expect((await transferById(tdb.db, t.id))!.amount).toBe(BIG);
  expect(await transactionRecorded(tdb.db, "BSC", "0xa")).toBe(true);
  expect(await transactionRecorded(tdb.db, "BSC", "0xnone")).toBe(false);
});

test("confirmations by height: the displayed counts, the threshold crossers, the pending blocks", async () => {
  await put("0xb", 11);
  await put("0xc", 14);
  await writeTx(tdb.db, async (tx) => await showTransferConfirmations(tx, "BSC", 14));
  const conf = async (h: string) => (await transferByKey(tdb.db, "BSC", h, 0))!.confirmations;
  expect([await conf("0xa"), await conf("0xb"), await conf("0xc")]).toEqual([5, 4, 1]);
  // Latest 14: two confirmations at block ≤ 13, final at ≤ 11 (already counted 2+ aside).
  const crossing = await writeTx(tdb.db, async (tx) => await crossingThreshold(tx, "BSC", 13, 11));
  expect(crossing.map((t) => t.txHash).sort()).toEqual(["0xa", "0xb"]);
  expect((await pendingTransferBlocks(tdb.db, "BSC")).sort((x, y) => x.n - y.n)).toEqual([
    { n: 10, h: "h10" },
    { n: 11, h: "h11" },
    { n: 14, h: "h14" },
  ]);
  expect((await pendingTransfers(tdb.db, "BSC")).length).toBe(3);
});

test("a reorg reverts, a moved transfer keeps its row, a reverted one lands again", async () => {
  const c = (await transferByKey(tdb.db, "BSC", "0xc", 0))!;
  const inBlock = await writeTx(tdb.db, async (tx) => await pendingInBlocks(tx, "BSC", [14]));
  expect(inBlock.map((t) => t.id)).toEqual([c.id]);
  await writeTx(tdb.db, async (tx) => await revertTransferRow(tx, c.id));
  expect(await transactionRecorded(tdb.db, "BSC", "0xc")).toBe(false);
  expect((await pendingTransferBlocks(tdb.db, "BSC")).map((b) => b.n)).not.toContain(14);
  const again = await writeTx(tdb.db, async (tx) => await relandTransfer(tx, c.id, { blockNumber: 15, blockHash: "h15b", blockTime: 15_000 }));
  expect(again).toMatchObject({ id: c.id, status: "pending", confirmations: 1, blockNumber: 15, blockHash: "h15b" });
  const b = (await transferByKey(tdb.db, "BSC", "0xb", 0))!;
  await writeTx(tdb.db, async (tx) => await moveTransfer(tx, b.id, { blockNumber: 12, blockHash: "h12b", blockTime: 12_000 }));
  expect(await transferById(tdb.db, b.id)).toMatchObject({ blockNumber: 12, blockHash: "h12b", status: "pending" });
});

test("recent transfers to an address, newest block first", async () => {
  // None carry an address id here (unmatched, no gateway address): the seek finds nothing.
  expect(await recentTransfersTo(tdb.db, "no-such-address", "USDT", 5)).toEqual([]);
});

test("the cursor: the first one written once, then moved by the watcher", async () => {
  expect(await chainCursor(tdb.db, "BSC")).toBeUndefined();
  await writeTx(tdb.db, async (tx) => await initChainCursor(tx, "BSC", 100, "h100", 1));
  await writeTx(tdb.db, async (tx) => await initChainCursor(tx, "BSC", 90, "h90", 2));
  expect(await chainCursor(tdb.db, "BSC")).toMatchObject({ blockNumber: 100, blockHash: "h100" });
  await writeTx(tdb.db, async (tx) => await saveChainCursor(tx, "BSC", 120, "h120", 3));
  expect(await chainCursor(tdb.db, "BSC")).toMatchObject({ blockNumber: 120, blockHash: "h120", updatedAt: 3 });
});
