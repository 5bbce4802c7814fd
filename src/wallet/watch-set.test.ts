// The address watch set follows a change sequence written in the inserting transaction, never a
// rowid watermark (issue 37): an address whose id was taken before another's but whose
// transaction committed after it is still watched.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb, writeTx } from "../db/client";
import { migrate } from "../db/migrate";
import { AddressWatchSet } from "./addresses";

const dir = mkdtempSync(join(tmpdir(), "stablegate-watch-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const db = openDb(join(dir, "db.sqlite"));
await migrate(db);
const other = openDb(join(dir, "db.sqlite"));

/** An address row with the row id its writer took (as a sequence hands ids out before commit). */
const insert = (conn: typeof db, rowid: number, chain: string, address: string) =>
  conn.$client.run("INSERT INTO addresses (rowid, id, merchant_id, chain, kind, derivation_index, address, created_at) VALUES (?, ?, NULL, ?, 'shared', ?, ?, 1)", [
    rowid,
    `AD-${rowid}`,
    chain,
    rowid,
    address,
  ]);

test("an address inserted by a transaction that commits after a later one is still watched", async () => {
  const watch = await new AddressWatchSet(db, "TRON").refresh();
  // Writer B took id 10 and committed first; the watch set reads it.
  insert(other, 10, "TRON", "T-later-id");
  await watch.refresh();
  expect(watch.has("T-later-id")).toBe(true);
  // Writer A had taken id 5 before B took 10, and commits only now.
  insert(db, 5, "TRON", "T-earlier-id");
  await watch.refresh();
  expect(watch.has("T-earlier-id")).toBe(true);
  expect(watch.size).toBe(2);
});

test("other chains' rows are not added; a refresh with nothing new reads nothing", async () => {
  const watch = await new AddressWatchSet(db, "SOL").refresh();
  const before = watch.size;
  insert(other, 20, "TRON", "T-20");
  insert(db, 15, "SOL", "S-15");
  await watch.refresh();
  expect(watch.has("T-20")).toBe(false);
  expect(watch.has("S-15")).toBe(true);
  expect(watch.size).toBe(before + 1);
});

test("a refresh while another writer's transaction is open on the same connection reads committed rows only", async () => {
  const watch = await new AddressWatchSet(db, "TRON").refresh();
  const before = watch.size;
  // A writer inserts an address (raising the change sequence), awaits a few store calls, then rolls back.
  let inserted!: () => void;
  const afterInsert = new Promise<void>((r) => (inserted = r));
  const writer = writeTx(db, async () => {
    insert(db, 40, "TRON", "T-rolled-back");
    inserted();
    for (let i = 0; i < 6; i++) await Promise.resolve();
    throw new Error("refused");
  });
  // The watcher's refresh runs at one of those awaits.
  const refreshed = (async () => {
    await afterInsert;
    return await watch.refresh();
  })();
  await expect(writer).rejects.toThrow("refused");
  await refreshed;
  expect(watch.has("T-rolled-back")).toBe(false);
  // Its watermark did not pass the rolled-back sequence: a later address with that sequence is read.
  await writeTx(db, async () => insert(db, 41, "TRON", "T-committed"));
  await watch.refresh();
  expect(watch.has("T-committed")).toBe(true);
  expect(watch.size).toBe(before + 1);
});
