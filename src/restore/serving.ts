// Is a gateway serving this database? `restore` must not pull a database from under a running
// `serve`. The instance lock says which one; and leaving WAL mode needs the only connection to
// the file, so a database that any
// process holds open (a serving gateway, or a CLI command beside it) answers "locked". The
// probe leaves the database in rollback-journal mode, as a single self-contained file: it is
// only run on a database that is about to be moved aside (the next open sets WAL again).
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { AnotherInstance, servingPid } from "../db/instance-lock";

/** Null when nothing holds `dbPath` open; else what does, as a sentence. */
export function gatewayServing(dbPath: string): string | null {
  if (!existsSync(dbPath)) return null;
  // The instance lock (src/db/instance-lock.ts) names the serving gateway; the probe below
  // also catches any other process holding the database open (a CLI command beside it).
  const pid = servingPid(dbPath);
  if (pid !== null) return new AnotherInstance(dbPath, pid || null).message;
  let db: Database | undefined;
  try {
    db = new Database(dbPath);
    db.run("PRAGMA busy_timeout = 1000");
    const r = db.query<{ journal_mode: string }, []>("PRAGMA journal_mode = DELETE").get();
    return r?.journal_mode === "delete" ? null : `another process holds ${dbPath} open (a stablegate serving it?)`;
  } catch (e) {
    return `another stablegate is serving ${dbPath} (the database is in use: ${(e as Error).message})`;
  } finally {
    db?.close();
  }
}
