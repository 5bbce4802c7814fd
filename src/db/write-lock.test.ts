// The async transaction seam on SQLite (DESIGN 22): writers of one connection never
// interleave, a nested writeTx joins its own transaction, and awaiting real I/O inside a
// transaction fails it before COMMIT.
import { expect, test } from "bun:test";
import { afterCommit, openDb, rolledBack, savepoint, writeTx } from "./client";
import { IoInTransactionError } from "./write-lock";

function freshDb() {
  const db = openDb(":memory:");
  db.$client.run("CREATE TABLE t (id INTEGER PRIMARY KEY, who TEXT NOT NULL)");
  return db;
}
const rows = (db: ReturnType<typeof freshDb>) => db.$client.query<{ who: string }, []>("SELECT who FROM t ORDER BY id").all().map((r) => r.who);

test("two transactions started together run one after the other, never interleaved", async () => {
  const db = freshDb();
  const body = (who: string) => async () => {
    for (let i = 0; i < 3; i++) {
      db.$client.run("INSERT INTO t (who) VALUES (?)", [`${who}${i}`]);
      await Promise.resolve(); // a store call's await: other code may run here
    }
  };
  await Promise.all([writeTx(db, body("a")), writeTx(db, body("b"))]);
  expect(rows(db)).toEqual(["a0", "a1", "a2", "b0", "b1", "b2"]);
});

test("a writeTx awaited inside a transaction body joins it (no deadlock); its hooks run after the outer COMMIT", async () => {
  const db = freshDb();
  const ran: string[] = [];
  await writeTx(db, async (tx) => {
    await writeTx(db, async (inner) => {
      inner.$client.run("INSERT INTO t (who) VALUES ('inner')");
      afterCommit(inner, () => ran.push(`inner hook, in transaction: ${db.$client.inTransaction}`));
    });
    await savepoint(tx, async () => db.$client.run("INSERT INTO t (who) VALUES ('sp')"));
  });
  expect(rows(db)).toEqual(["inner", "sp"]);
  expect(ran).toEqual(["inner hook, in transaction: false"]);
});

test("a failing body rolls back alone; the next writer gets the connection", async () => {
  const db = freshDb();
  const bad = writeTx(db, async () => {
    db.$client.run("INSERT INTO t (who) VALUES ('bad')");
    await Promise.resolve();
    throw new Error("no");
  });
  const good = writeTx(db, async () => db.$client.run("INSERT INTO t (who) VALUES ('good')"));
  await expect(bad).rejects.toThrow("no");
  await good;
  expect(rows(db)).toEqual(["good"]);
  expect(await rolledBack(db, async () => (db.$client.run("INSERT INTO t (who) VALUES ('dry')"), rows(db).length))).toBe(2);
  expect(rows(db)).toEqual(["good"]);
});

test("awaiting real I/O (a timer) inside a transaction fails it before COMMIT, nothing written", async () => {
  const db = freshDb();
  await expect(
    writeTx(db, async () => {
      db.$client.run("INSERT INTO t (who) VALUES ('slow')");
      await Bun.sleep(5);
    }),
  ).rejects.toBeInstanceOf(IoInTransactionError);
  expect(rows(db)).toEqual([]);
  await writeTx(db, async () => db.$client.run("INSERT INTO t (who) VALUES ('after')"));
  expect(rows(db)).toEqual(["after"]);
});
