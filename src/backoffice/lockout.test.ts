// The sign-in lockout's count and reservation are one step (review R5, R12 in signin-reset.test.ts).
// The failure count is given a round trip (the answer comes back a hundred microtask turns after
// the row was read, as a PostgreSQL read or a continuation of the group commit would), during
// which another attempt's check fails and is recorded: an attempt must never pass "fewer than 5"
// on a count that misses it (6 secrets checked in a window of 5).
import { afterAll, afterEach, expect, spyOn, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { closeDb } from "../db/client";
import { openPgDb } from "../db/tx-pg";
import { openTestDb, TEST_ENGINE, type TestDb } from "../testing/engines";
import { createTestDatabase } from "../testing/postgres";
import { Cipher } from "../secrets/cipher";
import * as store from "./store";
import { attempt, LOCKOUT } from "./sessions";

const spies: { mockRestore(): void }[] = [];
afterEach(() => {
  for (const s of spies.splice(0)) s.mockRestore();
});

const opened: TestDb[] = [];
afterAll(async () => {
  for (const t of opened) await t.close();
});

async function deps() {
  const t = await openTestDb();
  opened.push(t);
  return { db: t.db, cipher: new Cipher(randomBytes(32)), now: () => Date.now() };
}

/** failuresSince reads its row, then its answer takes `hops` microtask turns to come back. */
function slowCount(hops: number) {
  const real = store.failuresSince;
  spies.push(
    spyOn(store, "failuresSince").mockImplementation(async (...a: Parameters<typeof real>) => {
      const n = await real(...a);
      for (let i = 0; i < hops; i++) await null;
      return n;
    }),
  );
}

for (const client of [{ ip: null }, { ip: "203.0.113.7", direct: true }]) {
  test(`R5: a failure recorded while another attempt counts is counted (client address ${client.ip})`, async () => {
    const d = await deps();
    let checked = 0;
    const wrong = async () => {
      checked++;
      return false;
    };
    for (let i = 0; i < LOCKOUT.failures - 1; i++) await attempt(d, "admin", client, wrong); // 4 on record
    slowCount(100);
    let fail!: (v: boolean) => void;
    let bChecking = false;
    const b = attempt(d, "admin", client, async () => {
      checked++;
      bChecking = true;
      return await new Promise<boolean>((r) => (fail = r));
    });
    while (!bChecking) await Bun.sleep(1); // B is reserved, its secret being checked
    const a = attempt(d, "admin", client, wrong); // A counts...
    fail(false); // ...while B's check fails and is recorded
    expect(await a).toBe("locked");
    expect(await b).toBe("locked"); // the 5th failure locks
    expect(checked).toBe(LOCKOUT.failures);
  });
}

test("R5: a right secret leaves no failure behind; a wrong one is on record when its attempt returns", async () => {
  const d = await deps();
  const count = async () => await store.failuresSince(d.db, { username: "admin" }, 0);
  expect(await attempt(d, "admin", { ip: null }, () => true)).toBe("ok");
  expect(await count()).toBe(0);
  expect(await attempt(d, "admin", { ip: null }, () => false)).toBe("invalid");
  expect(await count()).toBe(1);
  await expect(attempt(d, "admin", { ip: null }, () => Promise.reject(new Error("argon2 failed")))).rejects.toThrow("argon2 failed");
  expect(await count()).toBe(2); // a check that broke counts as a failure
});

// DESIGN 22: the sign-in attempt counts live in the database, so two gateways on one PostgreSQL
// (two pools on one database) checking secrets of one user never check more than the limit between them.
test.skipIf(TEST_ENGINE !== "pg")("two gateways on one database never check more than 5 secrets of a user between them", async () => {
  const pg = await createTestDatabase();
  const gateways = [openPgDb(pg.url, 4), openPgDb(pg.url, 4)];
  try {
    const cipher = new Cipher(randomBytes(32));
    let checked = 0;
    const wrong = async () => {
      checked++;
      await Bun.sleep(5); // a password hash takes a while: the other gateway's attempts arrive meanwhile
      return false;
    };
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) => attempt({ db: gateways[i % 2]!, cipher, now: () => Date.now() }, "admin", { ip: null }, wrong)),
    );
    expect(checked).toBe(LOCKOUT.failures);
    // The 19 not checked are refused as locked; the checked ones answer "invalid" or, the 5th on record, "locked".
    expect(results.filter((r) => r === "locked").length).toBeGreaterThanOrEqual(24 - LOCKOUT.failures);
    expect(results.every((r) => r === "locked" || r === "invalid")).toBe(true);
    for (const db of gateways) expect(await store.failuresSince(db, { username: "admin" }, 0)).toBe(LOCKOUT.failures);
  } finally {
    for (const db of gateways) await closeDb(db);
    await pg.drop().catch(() => undefined);
  }
});
