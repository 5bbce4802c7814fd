// A test's fixture writes under the strict write check (on in every test process:
// src/testing/strict-writes.ts, docs/transactions.md "The strict write check"): a store write in a
// test's body outside writeTx is refused; seedRows, and the engine-rows writes that go through it,
// run in a transaction of their own, which waits for another flow's open transaction and never
// joins it. The refusals are SQLite's (PostgreSQL has nothing to join).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { writeTx } from "../db/client";
import { merchants } from "../db/schema";
import { WriteOutsideTransactionError } from "../db/write-lock";
import { openTestDb, TEST_ENGINE, type TestDb } from "./engines";
import { deleteRows, insertRows, tableRows, testSql, updateRows } from "./engine-rows";
import { seedRows } from "./seed";

let t: TestDb;
beforeAll(async () => {
  t = await openTestDb();
});
afterAll(async () => await t.close());

const shop = (uid: string) => ({ uid, name: `shop ${uid}`, createdAt: 1, updatedAt: 1 });
const uids = async () => (await tableRows(t.db, merchants)).map((m) => m.uid);
const sqliteOnly = TEST_ENGINE === "sqlite" ? test : test.skip;

test("the strict write check is on in the test process", () => {
  expect(process.env.SG_STRICT_WRITES).toBe("1");
});

sqliteOnly("a store write in a test's body outside writeTx is refused; the same write through seedRows is stored", async () => {
  expect(() => t.db.insert(merchants).values(shop("M0000001")).run()).toThrow(WriteOutsideTransactionError);
  await seedRows(t.db, (tx) => void tx.insert(merchants).values(shop("M0000001")).run());
  expect(await uids()).toEqual(["M0000001"]);
});

test("insertRows, updateRows, deleteRows and testSql writes seed; a testSql read runs outside any transaction", async () => {
  await insertRows(t.db, merchants, [shop("M0000002"), shop("M0000003")]);
  await updateRows(t.db, merchants, { name: "renamed" }, "uid", "M0000002");
  await deleteRows(t.db, merchants, "uid", ["M0000003"]);
  await testSql(t.db, sql`UPDATE merchants SET updated_at = 2 WHERE uid = 'M0000002'`);
  expect(await testSql<{ name: string }>(t.db, sql`SELECT name FROM merchants WHERE uid = 'M0000002'`)).toEqual([{ name: "renamed" }]);
  expect((await tableRows(t.db, merchants, { uid: "M0000002" }))[0]!.updatedAt).toBe(2);
  expect(await uids()).not.toContain("M0000003");
});

sqliteOnly("a seed made while another flow's transaction is open waits for it: that flow's rollback leaves the seed stored", async () => {
  let opened!: () => void;
  const isOpen = new Promise<void>((r) => (opened = r));
  let finish!: () => void;
  const released = new Promise<void>((r) => (finish = r));
  const failing = writeTx(t.db, async (tx) => {
    tx.insert(merchants).values(shop("M0000009")).run();
    opened();
    await released; // resolved by this test, not I/O: on SQLite no macrotask runs while it waits
    throw new Error("the other flow fails");
  }).catch((e: Error) => e.message);
  await isOpen;
  const seeded = insertRows(t.db, merchants, [shop("M0000004")]);
  finish();
  expect(await failing).toBe("the other flow fails");
  await seeded;
  expect(await uids()).toContain("M0000004");
  expect(await tableRows(t.db, merchants, { uid: "M0000009" })).toEqual([]);
  // Inside a transaction body a seed joins it (rolled back with it).
  await writeTx(t.db, async (tx) => {
    await seedRows(tx, (inner) => void inner.update(merchants).set({ name: "inside" }).where(eq(merchants.uid, "M0000004")).run());
  });
  expect((await tableRows(t.db, merchants, { uid: "M0000004" }))[0]!.name).toBe("inside");
});
