// Transactions on PostgreSQL behind the seam (db/tx-pg.ts), on the real server: writeTx on one
// pooled connection, nested writeTx joining it, a store called with the outer handle querying
// inside it, after-commit hooks after COMMIT only, savepoints, rolledBack, a deadlock retried, a
// compare-and-set applied once by two racers, and a store not ported yet refused in one line.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { afterCommit, rolledBack, savepoint, writeTx, type Db } from "./client";
import { engineOf, NotOnPostgres, pgOf } from "./engine";
import { closePg, openPgDb, PG_TX_ATTEMPTS } from "./tx-pg";
import { createTestDatabase } from "../testing/postgres";
import { groupCommit } from "./group-commit";
import { demoMerchantMark } from "../cli/store";

let db: Db;
let other: Db;

async function q<T = Record<string, unknown>>(h: Db, text: string): Promise<T[]> {
  return (await pgOf(h).execute(sql.raw(text))) as unknown as T[];
}
const pid = async (h: Db) => Number((await q<{ p: number }>(h, "SELECT pg_backend_pid() AS p"))[0]!.p);
const count = async (h: Db, where = "true") => Number((await q<{ n: number }>(h, `SELECT count(*)::int AS n FROM t WHERE ${where}`))[0]!.n);

beforeAll(async () => {
  const database = await createTestDatabase({ empty: true });
  db = openPgDb(database.url, 4);
  other = openPgDb(database.url, 2);
  await q(db, "CREATE TABLE t (id int PRIMARY KEY, status text NOT NULL DEFAULT 'a', v int NOT NULL DEFAULT 0)");
});
afterAll(async () => {
  await closePg(db);
  await closePg(other);
});

describe("writeTx on PostgreSQL", () => {
  test("the handle carries its engine", () => {
    expect(engineOf(db)).toBe("pg");
  });

  test("commits; hooks run after COMMIT (another connection sees the row); nested writeTx and the outer handle share the connection", async () => {
    const seen: number[] = [];
    let inner = 0;
    let outer = 0;
    await writeTx(db, async (tx) => {
      outer = await pid(tx);
      await q(tx, "INSERT INTO t (id) VALUES (1)");
      afterCommit(tx, () => seen.push(-1));
      await writeTx(db, async (tx2) => {
        inner = await pid(tx2);
        afterCommit(tx2, () => seen.push(-2));
      });
      // a store called with the outer handle from inside the body reads inside the transaction
      expect(await count(db, "id = 1")).toBe(1);
      expect(await count(other, "id = 1")).toBe(0);
      expect(seen).toEqual([]);
    });
    expect(inner).toBe(outer);
    expect(seen).toEqual([-1, -2]);
    expect(await count(other, "id = 1")).toBe(1);
  });

  test("a throw rolls back the writes and drops the hooks", async () => {
    let ran = false;
    await expect(
      writeTx(db, async (tx) => {
        await q(tx, "INSERT INTO t (id) VALUES (2)");
        afterCommit(tx, () => (ran = true));
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(ran).toBe(false);
    expect(await count(db, "id = 2")).toBe(0);
  });

  test("a savepoint's writes and hooks stand or fall together; rolledBack leaves nothing", async () => {
    const seen: string[] = [];
    await writeTx(db, async (tx) => {
      await q(tx, "INSERT INTO t (id) VALUES (3)");
      await expect(
        savepoint(tx, async (sp) => {
          await q(sp, "INSERT INTO t (id) VALUES (4)");
          afterCommit(sp, () => seen.push("failed"));
          throw new Error("inner");
        }),
      ).rejects.toThrow("inner");
      await savepoint(tx, async (sp) => {
        await q(sp, "INSERT INTO t (id) VALUES (5)");
        afterCommit(sp, () => seen.push("kept"));
      });
    });
    expect(seen).toEqual(["kept"]);
    expect(await count(db, "id IN (3, 4, 5)")).toBe(2);
    const n = await rolledBack(db, async (tx) => {
      await q(tx, "INSERT INTO t (id) VALUES (6)");
      afterCommit(tx, () => seen.push("dry"));
      return await count(tx, "id = 6");
    });
    expect(n).toBe(1);
    expect(await count(db, "id = 6")).toBe(0);
    expect(seen).toEqual(["kept"]);
  });

  test("two transactions that deadlock: the loser is rolled back and re-run, both commit", async () => {
    await q(db, "INSERT INTO t (id) VALUES (10), (11)");
    let attempts = 0;
    let release!: () => void;
    const both = new Promise<void>((r) => (release = r));
    let arrived = 0;
    const meet = async () => {
      if (++arrived === 2) release();
      await Promise.race([both, Bun.sleep(3000)]);
    };
    const body = (first: number, second: number) => async (tx: Db) => {
      attempts++;
      await q(tx, `UPDATE t SET v = v + 1 WHERE id = ${first}`);
      await meet();
      await q(tx, `UPDATE t SET v = v + 1 WHERE id = ${second}`);
    };
    await Promise.all([writeTx(db, body(10, 11)), writeTx(db, body(11, 10))]);
    expect(attempts).toBeGreaterThan(2);
    expect(attempts).toBeLessThanOrEqual(2 * PG_TX_ATTEMPTS);
    expect((await q<{ v: number }>(db, "SELECT v FROM t WHERE id IN (10, 11) ORDER BY id")).map((r) => Number(r.v))).toEqual([2, 2]);
  }, 20_000);

  test("two check-then-insert bodies racing one key: the loser meets the unique index, is re-run, and finds the winner's row", async () => {
    await q(db, "CREATE TABLE u (k text PRIMARY KEY, by text NOT NULL)");
    let arrived = 0;
    let release!: () => void;
    const both = new Promise<void>((r) => (release = r));
    let runs = 0;
    const getOrCreate = (h: Db, who: string) =>
      writeTx(h, async (tx) => {
        runs++;
        const [found] = await q<{ by: string }>(tx, "SELECT by FROM u WHERE k = 'slot'");
        if (found) return found.by;
        if (++arrived === 2) release();
        await Promise.race([both, Bun.sleep(3000)]); // both read "absent" before either inserts
        await q(tx, `INSERT INTO u (k, by) VALUES ('slot', '${who}')`);
        return who;
      });
    const got = await Promise.all([getOrCreate(db, "a"), getOrCreate(other, "b")]);
    expect(got[0]).toBe(got[1]);
    expect(runs).toBe(3);
    expect(await q(db, "SELECT k, by FROM u")).toEqual([{ k: "slot", by: got[0] }]);
  }, 20_000);

  test("a body that violates a unique index every time: re-run PG_TX_ATTEMPTS times, then its own error, nothing written", async () => {
    await q(db, "CREATE TABLE u2 (k text PRIMARY KEY)");
    await q(db, "INSERT INTO u2 VALUES ('x')");
    let runs = 0;
    const err = await writeTx(db, async (tx) => {
      runs++;
      await q(tx, "INSERT INTO u2 VALUES ('y')");
      await q(tx, "INSERT INTO u2 VALUES ('x')");
    }).catch((e: unknown) => e);
    expect(String((err as Error).message)).toContain("INSERT INTO u2 VALUES ('x')");
    expect(runs).toBe(PG_TX_ATTEMPTS);
    expect(await q(db, "SELECT k FROM u2")).toEqual([{ k: "x" }]);
  });

  test("a compare-and-set raced by two gateways is applied once (RETURNING tells the loser)", async () => {
    await q(db, "INSERT INTO t (id, status) VALUES (20, 'a')");
    const cas = (h: Db) => writeTx(h, async (tx) => (await q(tx, "UPDATE t SET status = 'b' WHERE id = 20 AND status = 'a' RETURNING id")).length);
    const r = await Promise.all([cas(db), cas(other)]);
    expect(r.sort()).toEqual([0, 1]);
  });

  test("the group commit's job/recover contract holds as one transaction per job", async () => {
    await expect(
      groupCommit(db).run({
        work: async () => {
          await q(db, "INSERT INTO t (id) VALUES (30)");
          throw new Error("job failed");
        },
        recover: async () => void (await q(db, "INSERT INTO t (id) VALUES (31)")),
      }),
    ).rejects.toThrow("job failed");
    expect(await count(db, "id IN (30, 31)")).toBe(1);
    expect(await count(db, "id = 31")).toBe(1);
  });

  test("a store not ported to PostgreSQL yet is refused in one line naming it", async () => {
    // (`serve --demo`'s marker: the demo makes a SQLite data folder, so its store stays SQLite's.)
    const e = await demoMerchantMark(db).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NotOnPostgres);
    expect((e as Error).message).toStartWith("cli/store.ts demoMerchantMark is not available on PostgreSQL yet");
  });
});
