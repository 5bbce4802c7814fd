// Is a gateway serving this database? `restore` must not pull a database from under a running
// `serve`. Leaving WAL mode needs the only connection to the file, so a database that any
// process holds open (a serving gateway, or a CLI command beside it) answers "locked". The
// probe leaves the database in rollback-journal mode, as a single self-contained file: it is
// only run on a database that is about to be moved aside (the next open sets WAL again).
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";

/** Null when nothing holds `dbPath` open; else what does, as a sentence. */
export function gatewayServing(dbPath: string): string | null {
  if (!existsSync(dbPath)) return null;
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
