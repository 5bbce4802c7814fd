// The watch set on PostgreSQL (DESIGN 22: it must not rely on row ids committing in order). An
// address takes its change sequence from the address_watch_seq row in its inserting transaction
// (trigger addresses_watch_seq): the row stays locked to the commit, so a later transaction's
// address waits and takes the next value only once the earlier one committed (or rolled back),
// and a refresh reads up to the committed counter. An address whose transaction commits late is
// therefore never skipped. (SQLite has one writer: two inserting transactions never overlap.)
import { afterAll, beforeAll, expect, test } from "bun:test";
import { openTestDb, type TestDb } from "../testing/engines";
import { writeTx } from "../db/client";
import { insertAddressesIfAbsent, type NewAddressRow } from "./store";
import { AddressWatchSet } from "./addresses";

let tdb: TestDb;
beforeAll(async () => {
  tdb = await openTestDb("pg");
});
afterAll(async () => await tdb.close());

let index = 100;
const row = (address: string): NewAddressRow => ({ id: `addr-${address}`, chain: "TRON", kind: "shared", derivationIndex: index++, address, createdAt: Date.now() });

test("an address inserted by a transaction that commits after a later one started is still watched", async () => {
  const watch = new AddressWatchSet(tdb.db, "TRON");
  await writeTx(tdb.db, async (tx) => await insertAddressesIfAbsent(tx, [row("T-first")]));
  await watch.refresh();
  expect(watch.has("T-first")).toBe(true);

  let releaseEarly!: () => void;
  const gate = new Promise<void>((r) => (releaseEarly = r));
  let inserted!: () => void;
  const early = writeTx(tdb.db, async (tx) => {
    await insertAddressesIfAbsent(tx, [row("T-early")]);
    inserted();
    await gate; // stays open past the later transaction's start
  });
  await new Promise<void>((r) => (inserted = r));

  let lateDone = false;
  const late = writeTx(tdb.db, async (tx) => await insertAddressesIfAbsent(tx, [row("T-late")])).then(() => (lateDone = true));
  await Bun.sleep(300);
  // The later transaction waits for the counter row: it cannot commit its sequence value first.
  expect(lateDone).toBe(false);
  await watch.refresh();
  expect([watch.has("T-early"), watch.has("T-late")]).toEqual([false, false]);

  releaseEarly();
  await early;
  await late;
  await watch.refresh();
  expect([watch.has("T-first"), watch.has("T-early"), watch.has("T-late")]).toEqual([true, true, true]);
});

test("a rolled-back insert leaves a gap the watch set passes; the next address is watched", async () => {
  const watch = new AddressWatchSet(tdb.db, "TRON");
  await watch.refresh();
  await writeTx(tdb.db, async (tx) => {
    await insertAddressesIfAbsent(tx, [row("T-rolled-back")]);
    throw new Error("roll back");
  }).catch(() => undefined);
  await writeTx(tdb.db, async (tx) => await insertAddressesIfAbsent(tx, [row("T-after")]));
  await watch.refresh();
  expect([watch.has("T-rolled-back"), watch.has("T-after")]).toEqual([false, true]);
});
