// Callback claims carry an owner (issue 37): a process releases only its own claims and those of
// a process known dead; another live process's claims come back only when their lease expires.
import { afterAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { openDb, writeTx } from "../db/client";
import { migrate } from "../db/migrate";
import { Cipher } from "../secrets/cipher";
import { createMerchant } from "../merchants/service";
import { callbackRow, enqueueTestCallback } from "../testing/callbacks";
import { ownerGone, PROCESS_ID } from "../lib/process-id";
import { callbackWorkerStore } from "./store";

const dir = mkdtempSync(join(tmpdir(), "stablegate-lease-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const db = openDb(join(dir, "db.sqlite"));
await migrate(db);
const { merchant } = await createMerchant({ db, cipher: new Cipher(randomBytes(32)), now: () => Date.now() }, { name: "shop" });

/** A pid no process has: one that just exited. */
async function deadPid(): Promise<number> {
  const p = Bun.spawn(["true"]);
  await p.exited;
  return p.pid;
}

const claim = async (owner: string, leaseUntil: number) => {
  const id = await enqueueTestCallback(db, { merchantId: merchant.id, url: "http://127.0.0.1:9/cb" });
  const rid = (db.$client.query("SELECT rowid AS r FROM callbacks WHERE id = ?").get(id) as { r: number }).r;
  expect(await writeTx(db, async () => await callbackWorkerStore(db, owner).mark(rid, leaseUntil, Date.now()))).toBe(true);
  return { id, rid };
};

test("ownerGone: a dead pid on this host, or no owner; never a live pid or another host", async () => {
  const rows: [string | null, boolean][] = [
    [null, true],
    [PROCESS_ID, false],
    // This pid under another id: a previous run of a process that got the same pid (a container's pid 1).
    [`${hostname()}:${process.pid}:00000000`, true],
    [`${hostname()}:${await deadPid()}:00ff00ff`, true],
    [`another-host:${await deadPid()}:00ff00ff`, false],
    ["not an owner", false],
  ];
  for (const [owner, gone] of rows) expect({ owner, gone: ownerGone(owner) }).toEqual({ owner, gone });
});

test("a process releases and settles only its own claims; an expired lease comes back to anyone", async () => {
  const a = callbackWorkerStore(db, "host-a:1:aa");
  const b = callbackWorkerStore(db, "host-b:2:bb");
  const now = Date.now();
  const held = await claim("host-a:1:aa", now + 60_000);
  // B starting (or stopping) does not take A's live claim, nor settle it.
  expect(await b.releaseAllLeases()).toBe(0);
  await writeTx(db, async () => await b.settle(held.id, { state: "delivered", attempts: 1, nextAt: now, lastError: null }, now));
  expect((await callbackRow(db, held.id))).toMatchObject({ state: "delivering", leaseOwner: "host-a:1:aa" });
  // Its lease still runs: no one reclaims it as expired.
  expect((await b.expiredLeases(now)).map((r) => r.id)).not.toContain(held.id);
  await b.release(held.rid, now);
  expect((await callbackRow(db, held.id))?.state).toBe("delivering");
  // Once the lease has ended it comes back, whoever looks.
  expect((await b.expiredLeases(now + 60_000)).map((r) => r.id)).toContain(held.id);
  await b.release(held.rid, now + 60_000);
  expect((await callbackRow(db, held.id))).toMatchObject({ state: "pending", leaseUntil: null, leaseOwner: null });
  // A's own claims: released by A.
  const mine = await claim("host-a:1:aa", now + 60_000);
  expect(await a.releaseAllLeases()).toBe(1);
  expect((await callbackRow(db, mine.id))).toMatchObject({ state: "pending", leaseOwner: null });
});

test("the claims of a process killed on this host come back at once; a live one's stay", async () => {
  const dead = `${hostname()}:${await deadPid()}:0badc0de`;
  const live = `${hostname()}:${process.ppid}:0011aa22`;
  const now = Date.now();
  const cutOff = await claim(dead, now + 60_000);
  const running = await claim(live, now + 60_000);
  expect(await callbackWorkerStore(db, PROCESS_ID).releaseCutOff()).toBe(1);
  expect((await callbackRow(db, cutOff.id))?.state).toBe("pending");
  expect((await callbackRow(db, running.id))).toMatchObject({ state: "delivering", leaseOwner: live });
});

test("settle by the claimed row's rowid: only that row, its own claim, and only while the rowid is still its id's", async () => {
  const a = callbackWorkerStore(db, "host-a:1:aa");
  const now = Date.now();
  const one = await claim("host-a:1:aa", now + 60_000);
  const two = await claim("host-a:1:aa", now + 60_000);
  const retry = { state: "pending", attempts: 1, nextAt: now + 60_000, lastError: "HTTP 500" };
  // Another row's rowid under this id, or another owner: nothing moves.
  await writeTx(db, async () => await a.settle(one.id, retry, now, two.rid));
  await writeTx(db, async () => await callbackWorkerStore(db, "host-b:2:bb").settle(one.id, retry, now, one.rid));
  expect((await callbackRow(db, one.id))?.state).toBe("delivering");
  expect((await callbackRow(db, two.id))?.state).toBe("delivering");
  await writeTx(db, async () => await a.settle(one.id, retry, now, one.rid));
  expect(await callbackRow(db, one.id)).toMatchObject({ state: "pending", attempts: 1, nextAttemptAt: now + 60_000, lastError: "HTTP 500", leaseOwner: null });
  expect((await callbackRow(db, two.id))?.state).toBe("delivering");
  expect(await a.releaseAllLeases()).toBe(1);
});
