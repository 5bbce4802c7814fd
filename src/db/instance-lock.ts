// DESIGN 16 "One instance": `serve` holds an exclusive lock next to the database.
//
// The lock is a tiny SQLite database, `<db>.lock`, in which the serving process keeps a
// write transaction (BEGIN IMMEDIATE: SQLite's RESERVED lock, an fcntl lock on the file)
// open for its whole life. The kernel drops fcntl locks when the process ends in any way,
// SIGKILL and power loss included, so a dead gateway never leaves a stale lock: no pid file
// to clean up, no pid-reuse guess. Bun has no flock(); SQLite's own locking is the portable
// OS lock we already ship. Readers may still read the lock database while it is held
// (rollback-journal mode lets SHARED readers beside RESERVED), which is how a second
// process learns the holder's pid: the holder commits its pid and then re-takes the lock,
// checking that the committed pid is still its own (so the published pid is the holder's).
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { secureDatabaseFiles } from "./file-modes";
import { processAlive } from "../lib/pid";

export const lockPathOf = (dbPath: string) => `${dbPath}.lock`;

/** A second `serve` on a database another process serves (message fixed by DESIGN 16). */
export class AnotherInstance extends Error {
  override name = "AnotherInstance";
  constructor(
    readonly dbPath: string,
    readonly pid: number | null,
  ) {
    super(`another stablegate is serving ${dbPath} (pid ${pid ?? "unknown"})`);
  }
}

export interface InstanceLock {
  readonly path: string;
  release(): void;
}

/** SQLite's "database is locked" (SQLITE_BUSY and its extended codes). */
export const isBusy = (e: unknown) => /SQLITE_BUSY|database is locked/i.test(String((e as { code?: string })?.code ?? "") + String((e as Error)?.message ?? ""));

/**
 * What to tell an operator whose command waited out busy_timeout on `dbPath`: the process
 * holding the lock, when the instance lock names one (the gateway serving the database).
 */
export function busyMessage(dbPath: string, waitedMs: number): string {
  let pid: number | null = null;
  try {
    pid = servingPid(dbPath);
  } catch {
    // The lock file cannot be probed: say what is known.
  }
  const who =
    pid !== null && pid !== process.pid
      ? `the stablegate serving it (pid ${pid || "not published yet"}) held it that long`
      : "another process held it that long (not a serving stablegate: a backup, a CLI command, a sqlite3 shell?)";
  return `the database ${dbPath} stayed locked for ${Math.round(waitedMs / 1000)} s: ${who}; nothing was changed, try again`;
}

function openLockDb(path: string): Database {
  const db = new Database(path, { create: true });
  // First pragma: a probe (servingPid) holds this file for microseconds; wait that out rather
  // than mistake it for a serving gateway. A real holder is found by BEGIN IMMEDIATE below.
  db.run("PRAGMA busy_timeout = 1000");
  db.run("PRAGMA journal_mode = DELETE");
  db.run("CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL, started_at INTEGER NOT NULL)");
  secureDatabaseFiles(path);
  return db;
}

function holderPid(db: Database): number | null {
  return db.query<{ pid: number }, []>("SELECT pid FROM holder WHERE id = 1").get()?.pid ?? null;
}


/**
 * Takes the instance lock for `dbPath` or throws AnotherInstance naming the holder.
 * Held until release() or the end of the process.
 */
export function acquireInstanceLock(dbPath: string, pid = process.pid): InstanceLock {
  const path = lockPathOf(dbPath);
  let db: Database;
  try {
    db = openLockDb(path);
  } catch (e) {
    // Creating the table needs the write lock: a holder answers busy here.
    if (!isBusy(e)) throw e;
    throw new AnotherInstance(dbPath, readHolder(path));
  }
  const take = () => {
    try {
      db.run("BEGIN IMMEDIATE");
      return true;
    } catch (e) {
      if (isBusy(e)) return false;
      throw e;
    }
  };
  // A probe (servingPid) holds the lock for microseconds: wait that out, not a gateway.
  db.run("PRAGMA busy_timeout = 1000");
  const first = take();
  db.run("PRAGMA busy_timeout = 0");
  if (!first) {
    const holder = readHolder(path, db);
    db.close();
    throw new AnotherInstance(dbPath, holder);
  }
  // Publish the pid, then hold the lock again; if another starter slipped in between, the
  // committed pid is theirs and they hold (or are about to hold) the lock: step back.
  db.run("INSERT INTO holder (id, pid, started_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, started_at = excluded.started_at", [pid, Date.now()]);
  db.run("COMMIT");
  db.run("PRAGMA busy_timeout = 2000");
  const again = take();
  db.run("PRAGMA busy_timeout = 0");
  if (!again || holderPid(db) !== pid) {
    const holder = again ? holderPid(db) : readHolder(path, db);
    if (again) db.run("ROLLBACK");
    db.close();
    throw new AnotherInstance(dbPath, holder);
  }
  let released = false;
  return {
    path,
    release() {
      if (released) return;
      released = true;
      db.run("ROLLBACK");
      db.close();
    },
  };
}

/** The holder's pid as published; waits briefly for a starter that holds the lock but has not published yet. */
function readHolder(path: string, db?: Database): number | null {
  const own = db ?? new Database(path, { readonly: true });
  // First pragma, as on every connection: a read waits out a starter's brief hold (the loop below retries past it).
  if (!db) own.run("PRAGMA busy_timeout = 100");
  try {
    const deadline = Date.now() + 1000;
    for (;;) {
      let pid: number | null = null;
      try {
        pid = holderPid(own);
      } catch (e) {
        if (!isBusy(e) && !/no such table/.test(String((e as Error).message))) throw e;
      }
      if ((pid !== null && processAlive(pid)) || Date.now() > deadline) return pid;
      Bun.sleepSync(25);
    }
  } finally {
    if (!db) own.close();
  }
}

/**
 * The pid of the gateway serving `dbPath` (0 when it has not published it yet), or null when
 * none does (`restore` refuses while one serves). Probes the lock without keeping it.
 */
export function servingPid(dbPath: string): number | null {
  const path = lockPathOf(dbPath);
  if (!existsSync(path)) return null;
  const db = new Database(path, { readwrite: true, create: false });
  try {
    db.run("PRAGMA busy_timeout = 0");
    try {
      db.run("BEGIN IMMEDIATE");
    } catch (e) {
      if (!isBusy(e)) throw e;
      return readHolder(path, db) ?? 0;
    }
    db.run("ROLLBACK");
    return null;
  } finally {
    db.close();
  }
}
