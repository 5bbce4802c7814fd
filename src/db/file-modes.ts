// DESIGN 10: the data folder is created 0700; the database, its WAL and shared-memory
// files and every backup are 0600 (payment data, encrypted seed and key material).
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";

/** Creates the data folder (0700) and the database file (0600) before SQLite opens it; tightens an existing file. */
export function prepareDatabaseFile(path: string): void {
  if (path === ":memory:") return;
  const dir = dirname(path);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  // SQLite gives the -wal and -shm files the database file's mode.
  if (!existsSync(path)) closeSync(openSync(path, "a", 0o600));
  secureDatabaseFiles(path);
}

export function secureDatabaseFiles(path: string): void {
  for (const f of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      chmodSync(f, 0o600);
    } catch {
      // not there (yet)
    }
  }
}

/** An empty 0600 file for VACUUM INTO to fill (it keeps an existing file's mode). */
export function createPrivateFile(path: string): void {
  closeSync(openSync(path, "wx", 0o600));
  chmodSync(path, 0o600);
}
