// The async transaction seam on SQLite (DESIGN 22): writers of one connection never
// interleave, a nested writeTx joins its own transaction, and awaiting real I/O inside a
// transaction fails it before COMMIT.
import { expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { afterCommit, allowForeignTransactions, leakedTransactionCount, onLeakedTransaction, openDb, readCommitted, rolledBack, savepoint, writeTx, writing } from "./client";
import { inFrame } from "./after-commit";
import { groupCommit } from "./group-commit";
import { IoInTransactionError, strictWrites, WriteOutsideTransactionError } from "./write-lock";

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

/** A transaction that writes, awaits a few store calls, then fails: every other flow's code runs at those awaits. */
const failingTx = (db: ReturnType<typeof freshDb>) =>
  writeTx(db, async () => {
    db.$client.run("INSERT INTO t (who) VALUES ('tx')");
    for (let i = 0; i < 4; i++) await Promise.resolve();
    throw new Error("refused");
  });

test("a store write outside writeTx while another flow's transaction is open is refused, never lost with that rollback", async () => {
  const db = freshDb();
  strictWrites(db.$client, false); // the check without its strict mode (on in tests): a write on an idle connection passes
  const tx = failingTx(db);
  // (drizzle's `db.run` wraps the error: its cause is the refusal)
  const refused = (p: Promise<unknown>) => p.then(() => "written", (e: Error) => (e instanceof WriteOutsideTransactionError || e.cause instanceof WriteOutsideTransactionError ? "refused" : String(e)));
  // A drizzle-built write and a store's raw write (through `writing`), each from another flow.
  const drizzleWrite = refused((async () => {
    await Promise.resolve();
    db.run(sql`INSERT INTO t (who) VALUES ('drizzle')`);
  })());
  const rawWrite = refused((async () => {
    await Promise.resolve();
    writing(db).$client.run("INSERT INTO t (who) VALUES ('raw')");
  })());
  await expect(tx).rejects.toThrow("refused");
  expect(await drizzleWrite).toBe("refused");
  expect(await rawWrite).toBe("refused");
  // The same write through its own writeTx waits for the mutex and survives the other's rollback.
  const tx2 = failingTx(db);
  const own = (async () => {
    await Promise.resolve();
    await writeTx(db, async () => db.run(sql`INSERT INTO t (who) VALUES ('own')`));
  })();
  await expect(tx2).rejects.toThrow("refused");
  await own;
  expect(rows(db)).toEqual(["own"]);
  // Reads outside a transaction stay allowed, and so does a write on an idle connection.
  db.run(sql`INSERT INTO t (who) VALUES ('idle')`);
  expect(rows(db)).toEqual(["own", "idle"]);
});

test("the strict write check (SG_STRICT_WRITES=1, on in tests) refuses a store write outside writeTx on an idle connection too", async () => {
  expect(process.env.SG_STRICT_WRITES).toBe("1"); // src/testing/strict-writes.ts, preloaded by bunfig.toml
  const db = freshDb();
  expect(() => db.all(sql`INSERT INTO t (who) VALUES ('idle') RETURNING who`)).toThrow(WriteOutsideTransactionError);
  expect(() => writing(db)).toThrow(WriteOutsideTransactionError);
  await writeTx(db, async (tx) => void tx.run(sql`INSERT INTO t (who) VALUES ('inside')`));
  // A test seeding rows opts out for its fixture connection.
  strictWrites(db.$client, false);
  db.run(sql`INSERT INTO t (who) VALUES ('seeded')`);
  expect(rows(db)).toEqual(["inside", "seeded"]);
});

test("awaiting an immediate queued before BEGIN (a group commit's flush) fails the transaction", async () => {
  const db = freshDb();
  let resolve!: () => void;
  const queuedBefore = new Promise<void>((r) => (resolve = r));
  setImmediate(() => resolve());
  await expect(
    writeTx(db, async () => {
      db.$client.run("INSERT INTO t (who) VALUES ('late')");
      await queuedBefore;
    }),
  ).rejects.toBeInstanceOf(IoInTransactionError);
  expect(rows(db)).toEqual([]);
});

test("a rolledBack body that awaits real I/O fails with IoInTransactionError", async () => {
  const db = freshDb();
  await expect(
    rolledBack(db, async () => {
      await Bun.sleep(1);
      return 1;
    }),
  ).rejects.toBeInstanceOf(IoInTransactionError);
});

test("a timer set inside a body runs its writeTx in a transaction of its own, after the first one closed", async () => {
  const db = freshDb();
  db.$client.run("CREATE UNIQUE INDEX t_who ON t (who)");
  let later: Promise<unknown> = Promise.resolve();
  let fired!: () => void;
  const done = new Promise<void>((r) => (fired = r));
  await writeTx(db, async () => {
    db.$client.run("INSERT INTO t (who) VALUES ('outer')");
    setTimeout(() => {
      later = writeTx(db, async () => {
        db.$client.run("INSERT INTO t (who) VALUES ('late')");
        db.$client.run("INSERT INTO t (who) VALUES ('outer')"); // UNIQUE: the whole late transaction rolls back
      }).catch(() => {});
      fired();
    }, 1);
  });
  await done;
  await later;
  expect(rows(db)).toEqual(["outer"]);
  // A group first requested inside a body is flushed under the mutex, in a transaction of its own.
  let job: Promise<unknown> = Promise.resolve();
  await writeTx(db, async () => {
    job = groupCommit(db).run({ work: async () => db.$client.inTransaction && !db.$client.run("INSERT INTO t (who) VALUES ('job')").changes === false });
  });
  expect(await job).toBe(true);
  expect(rows(db)).toEqual(["outer", "job"]);
});

test("a savepoint whose RELEASE fails (the transaction aborted under it) leaves no after-commit frame behind", async () => {
  const db = freshDb();
  await writeTx(db, async (tx) => {
    await savepoint(tx, async () => {
      try {
        db.$client.run("ROLLBACK"); // stands in for SQLITE_FULL aborting the transaction, caught by the body
      } catch {}
    });
  }).catch(() => {});
  expect(inFrame(db.$client)).toBe(false);
  const ran: string[] = [];
  await writeTx(db, async (tx) => {
    db.$client.run("INSERT INTO t (who) VALUES ('x')");
    afterCommit(tx, () => ran.push("hook"));
  });
  expect(ran).toEqual(["hook"]);
});

test("readCommitted never sees another flow's open transaction", async () => {
  const db = freshDb();
  const tx = failingTx(db);
  const seen = (async () => {
    await Promise.resolve();
    return await readCommitted(db, async () => rows(db));
  })();
  await expect(tx).rejects.toThrow("refused");
  expect(await seen).toEqual([]);
  await expect(writeTx(db, async () => await readCommitted(db, async () => rows(db)))).rejects.toThrow("readCommitted inside a transaction");
});

test("a transaction left open behind the machinery's back is rolled back and reported, never joined (review R8)", async () => {
  const db = freshDb();
  const reported: string[] = [];
  onLeakedTransaction((m) => reported.push(m));
  try {
    const before = leakedTransactionCount();
    db.$client.run("BEGIN");
    db.$client.run("INSERT INTO t (who) VALUES ('leaked')");
    // A writeTx and a group commit after it: each gets a transaction of its own that commits.
    await writeTx(db, async (tx) => void (await tx.run(sql`INSERT INTO t (who) VALUES ('own')`)));
    expect(db.$client.inTransaction).toBe(false);
    expect(reported.length).toBe(1);
    expect(leakedTransactionCount()).toBe(before + 1);
    db.$client.run("BEGIN");
    await groupCommit(db).run({ work: async () => await writeTx(db, async (tx) => void (await tx.run(sql`INSERT INTO t (who) VALUES ('grouped')`))) });
    expect(db.$client.inTransaction).toBe(false);
    expect(reported.length).toBe(2);
    expect(db.$client.query("SELECT who FROM t ORDER BY who").all()).toEqual([{ who: "grouped" }, { who: "own" }]);
  } finally {
    onLeakedTransaction((m) => console.error(m));
  }
});

test("a test that allows it joins a raw BEGIN: its writes stand or fall with that transaction, hooks dropped", async () => {
  const db = freshDb();
  allowForeignTransactions(db);
  let hooked = false;
  db.$client.run("BEGIN");
  await writeTx(db, async (tx) => {
    await tx.run(sql`INSERT INTO t (who) VALUES ('joined')`);
    afterCommit(tx, () => (hooked = true));
  });
  expect(db.$client.inTransaction).toBe(true);
  db.$client.run("ROLLBACK");
  expect(db.$client.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 0 });
  expect(hooked).toBe(false);
});
