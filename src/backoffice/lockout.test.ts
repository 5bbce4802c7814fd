// The sign-in lockout's count and reservation are one step (review R5, R12 in signin-reset.test.ts).
// The failure count is given a round trip (the answer comes back a hundred microtask turns after
// the row was read, as a PostgreSQL read or a continuation of the group commit would), during
// which another attempt's check fails and is recorded: an attempt must never pass "fewer than 5"
// on a count that misses it (6 secrets checked in a window of 5).
import { afterEach, expect, spyOn, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { openDb } from "../db/client";
import { migrate } from "../db/migrate";
import { Cipher } from "../secrets/cipher";
import * as store from "./store";
import { attempt, LOCKOUT } from "./sessions";

const spies: { mockRestore(): void }[] = [];
afterEach(() => {
  for (const s of spies.splice(0)) s.mockRestore();
});

async function deps() {
  const db = openDb(":memory:");
  await migrate(db);
  return { db, cipher: new Cipher(randomBytes(32)), now: () => Date.now() };
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
  const count = () => (d.db.$client.query("SELECT count(*) AS n FROM login_failures").get() as { n: number }).n;
  expect(await attempt(d, "admin", { ip: null }, () => true)).toBe("ok");
  expect(count()).toBe(0);
  expect(await attempt(d, "admin", { ip: null }, () => false)).toBe("invalid");
  expect(count()).toBe(1);
  await expect(attempt(d, "admin", { ip: null }, () => Promise.reject(new Error("argon2 failed")))).rejects.toThrow("argon2 failed");
  expect(count()).toBe(2); // a check that broke counts as a failure
});
