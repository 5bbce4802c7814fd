// The address watch set follows a change sequence written in the inserting transaction, never a
// rowid watermark (issue 37): an address whose id was taken before another's but whose
// transaction committed after it is still watched.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../db/client";
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
