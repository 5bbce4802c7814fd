// Pruning replay nonces in bounded slices (issue 37, DESIGN 11: no job holds the event loop
// for 50 ms): a backlog is deleted oldest first, at most a slice per statement, and stops at
// the first nonce (in insertion order) that has not expired.
import { describe, expect, test } from "bun:test";
import { openDb, writeTx } from "../db/client";
import { migrate } from "../db/migrate";
import { deleteExpiredNonces } from "./store";
import { NONCE_PRUNE_SLICE, pruneNonces } from "./verify";

/** A database holding nonces that expire at these times, inserted in this order. */
async function withNonces(expiries: number[]) {
  const db = openDb(":memory:");
  await migrate(db);
  const ins = db.$client.prepare("INSERT INTO nonces (merchant_id, nonce, expires_at) VALUES (1, ?, ?)");
  db.$client.transaction(() => expiries.forEach((e, i) => ins.run(`n${i}`, e)))();
  const left = () => db.$client.query<{ n: number }, []>("SELECT count(*) AS n FROM nonces").get()!.n;
  return { db, left };
}

describe("deleteExpiredNonces: one bounded slice", () => {
  const cases: Array<{ name: string; expiries: number[]; now: number; limit: number; deleted: number }> = [
    { name: "nothing expired", expiries: [10, 11, 12], now: 5, limit: 2, deleted: 0 },
    { name: "the expired prefix, under the limit", expiries: [1, 2, 10, 11], now: 5, limit: 10, deleted: 2 },
    { name: "the expired prefix, cut at the limit", expiries: [1, 2, 3, 4, 10], now: 5, limit: 3, deleted: 3 },
    { name: "everything expired, exactly the limit", expiries: [1, 2, 3], now: 5, limit: 3, deleted: 3 },
    { name: "everything expired, fewer than the limit", expiries: [1, 2], now: 5, limit: 3, deleted: 2 },
    { name: "an unexpired row stops it (out of order ones after it wait)", expiries: [1, 9, 2, 3], now: 5, limit: 10, deleted: 1 },
    { name: "empty table", expiries: [], now: 5, limit: 3, deleted: 0 },
  ];
  for (const k of cases) {
    test(k.name, async () => {
      const { db, left } = await withNonces(k.expiries);
      expect(await writeTx(db, async (tx) => await deleteExpiredNonces(tx, k.now, k.limit))).toBe(k.deleted);
      expect(left()).toBe(k.expiries.length - k.deleted);
    });
  }
});

test("a gap in the rowids makes a slice short, and pruneNonces goes on to the end of the backlog", async () => {
  const { db, left } = await withNonces([1, 1, 1, 1, 1, 1, 100]);
  db.$client.run("DELETE FROM nonces WHERE rowid IN (2, 3)"); // rolled-back inserts leave gaps like these
  expect(await writeTx(db, async (tx) => await deleteExpiredNonces(tx, 50, 3))).toBe(1); // rowids 1..3: only 1 is left there
  expect(await pruneNonces(db, 50)).toBe(3);
  expect(left()).toBe(1);
});

test("pruneNonces deletes a backlog of several slices, all of it, and keeps the live ones", async () => {
  const n = NONCE_PRUNE_SLICE * 2 + 17;
  const { db, left } = await withNonces([...Array.from({ length: n }, () => 1), 100, 101]);
  expect(await pruneNonces(db, 50)).toBe(n);
  expect(left()).toBe(2);
});

test("a prune that runs while another flow's transaction is open is its own transaction: that rollback does not undo it", async () => {
  const { db, left } = await withNonces([1, 1, 1, 100]);
  let opened!: () => void;
  const isOpen = new Promise<void>((r) => (opened = r));
  const failing = writeTx(db, async () => {
    db.$client.run("INSERT INTO nonces (merchant_id, nonce, expires_at) VALUES (1, 'other', 100)");
    opened();
    for (let i = 0; i < 6; i++) await Promise.resolve();
    throw new Error("refused");
  });
  const pruned = (async () => {
    await isOpen; // the prune job starts at one of the other flow's awaits
    return await pruneNonces(db, 50);
  })();
  await expect(failing).rejects.toThrow("refused");
  expect(await pruned).toBe(3);
  expect(left()).toBe(1);
});
