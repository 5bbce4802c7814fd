// The WAL's fsync off the event loop (db/wal-sync.ts): a commit's writer, its hooks and a
// group's answers wait for a sync begun after its COMMIT; syncs are shared; a failed sync is a
// sticky storage fault.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterCommit, closeSqlite, openDb, writeTx } from "./client";
import { GroupCommit } from "./group-commit";
import { isStorageFault } from "./storage-fault";
import { WalSync, walSyncOf } from "./wal-sync";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "stablegate-walsync-"));
  dirs.push(d);
  return d;
}

function withEnv<T>(name: string, value: string | undefined, fn: () => T): T {
  const was = process.env[name];
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
  try {
    return fn();
  } finally {
    if (was === undefined) delete process.env[name];
    else process.env[name] = was;
  }
}

function tableDb() {
  const db = withEnv("SG_SYNC_OFF_LOOP", "1", () => openDb(join(tempDir(), "w.db")));
  db.$client.run("CREATE TABLE t (id INTEGER PRIMARY KEY, who TEXT NOT NULL)");
  return db;
}

describe("the write connection", () => {
  test("SG_SYNC_OFF_LOOP=1: synchronous NORMAL with the syncs off the loop; without it FULL, the fsync in COMMIT", () => {
    const off = tableDb();
    expect(off.$client.query<{ synchronous: number }, []>("PRAGMA synchronous").get()!.synchronous).toBe(1);
    expect(walSyncOf(off.$client)).not.toBeNull();
    closeSqlite(off);
    const on = withEnv("SG_SYNC_OFF_LOOP", undefined, () => openDb(join(tempDir(), "f.db")));
    expect(on.$client.query<{ synchronous: number }, []>("PRAGMA synchronous").get()!.synchronous).toBe(2);
    expect(walSyncOf(on.$client)).toBeNull();
    closeSqlite(on);
  });
});

describe("a commit is answered once it is on disk", () => {
  test("writeTx: its hooks and its caller run after a sync; concurrent writers share syncs", async () => {
    const db = tableDb();
    const ws = walSyncOf(db.$client)!;
    const before = ws.syncs;
    let syncsAtHook = -1;
    await writeTx(db, async (tx) => {
      tx.$client.run("INSERT INTO t (who) VALUES ('a')");
      afterCommit(tx, () => (syncsAtHook = ws.syncs));
    });
    expect(syncsAtHook).toBe(before + 1);
    const mid = ws.syncs;
    await Promise.all(Array.from({ length: 20 }, (_, i) => writeTx(db, async (tx) => void tx.$client.run("INSERT INTO t (who) VALUES (?)", [`c${i}`]))));
    expect(ws.syncs - mid).toBeGreaterThan(0);
    expect(ws.syncs - mid).toBeLessThan(20);
    expect(db.$client.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 21 });
    closeSqlite(db);
  });

  test("a group: its jobs' answers and hooks wait for the sync; jobs queued meanwhile form the next group", async () => {
    const db = tableDb();
    const ws = walSyncOf(db.$client)!;
    const g = new GroupCommit(db.$client);
    const before = ws.syncs;
    const hooked: number[] = [];
    const first = Array.from({ length: 10 }, (_, i) =>
      g.run({
        work: () => {
          db.$client.run("INSERT INTO t (who) VALUES (?)", [`g${i}`]);
          afterCommit(db as never, () => hooked.push(ws.syncs));
          return ws.syncs;
        },
      }),
    );
    // Queued while the first group waits for its sync: the same flush takes it next.
    const late = first[0]!.then(() => null);
    const second = new Promise<number>((resolve) => setTimeout(() => resolve(g.run({ work: () => void db.$client.run("INSERT INTO t (who) VALUES ('late')") }).then(() => ws.syncs)), 0));
    const answers = await Promise.all(first);
    await late;
    expect(answers.every((s) => s === before)).toBe(true);
    expect(hooked).toEqual(Array(10).fill(before + 1));
    expect(await second).toBeGreaterThan(before + 1);
    expect(g.groups).toBe(2);
    closeSqlite(db);
  });

  test("a sync covers only commits made before it began", async () => {
    const path = join(tempDir(), "x-wal");
    writeFileSync(path, "frames");
    const ws = new WalSync(path);
    const one = ws.committedNow();
    let secondDone = false;
    const p1 = ws.untilDurable(one)!;
    const two = ws.committedNow();
    const p2 = ws.untilDurable(two)!.then(() => (secondDone = true));
    await p1;
    expect(ws.syncs).toBe(1);
    expect(secondDone).toBe(false);
    await p2;
    expect(ws.syncs).toBe(2);
    expect(ws.untilDurable(two)).toBeNull();
    ws.close();
  });

  test("close syncs what is left and answers every waiter", async () => {
    const path = join(tempDir(), "y-wal");
    writeFileSync(path, "frames");
    const ws = new WalSync(path);
    const p = ws.untilDurable(ws.committedNow())!;
    ws.close();
    await p;
    expect(ws.untilDurable(1)).toBeNull();
  });

  test("a failed sync is a storage fault for its waiters and every later one", async () => {
    const ws = new WalSync(join(tempDir(), "missing", "z-wal"));
    const err = await ws.untilDurable(ws.committedNow())!.catch((e: unknown) => e);
    expect(isStorageFault(err)).toBe(true);
    expect((err as { code: string }).code).toBe("SQLITE_IOERR_FSYNC");
    const later = await ws.untilDurable(ws.committedNow())!.catch((e: unknown) => e);
    expect(later).toBe(err);
    ws.close();
  });
});
