// `stablegate restore --from FILE` (DESIGN 16). Everything about the backup is checked on a
// private copy before any file of the data folder is touched: SQLite integrity, a stablegate
// schema this build can run, and the master key opening its wallet seed. Then the database in
// place (with its -wal and -shm) is moved aside under a timestamped name, and the checked copy,
// already in reconcile (./generation.ts), is renamed into place with the folder's new marker.
import { Database } from "bun:sqlite";
import { chmodSync, closeSync, copyFileSync, existsSync, fsyncSync, linkSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { dbOver, writeTx } from "../db/client";
import { migrate, MigrationError } from "../db/migrate";
import { Cipher } from "../secrets/cipher";
import { keyFromString, masterKeyPath } from "../secrets/master-key";
import { enterReconcile, newGeneration, writeFolderMarker } from "./generation";
import { backupIntegrity, backupSummary, hasStablegateSchema, sealedInBackup, selfContained } from "./store";
import { gatewayServing } from "./serving";

/** The backup cannot be restored; nothing was changed. */
export class RestoreRefused extends Error {
  override name = "RestoreRefused";
}

export interface RestoreInput {
  from: string;
  dbPath: string;
  env: NodeJS.ProcessEnv;
  indexGap: number;
  now: number;
}

export interface RestoreSummary {
  generation: string;
  /** Where the database that was in place went (null: there was none). */
  asidePath: string | null;
  payins: number;
  payouts: number;
  /** Newest order creation time in the backup (ms), null when it has none. */
  newestOrderAt: number | null;
  /** The scan cursors the watchers rescan from. */
  cursors: Array<{ chain: string; block: number }>;
  migrationsApplied: number;
}

const SQLITE_HEADER = "SQLite format 3\0";

function masterKey(dbPath: string, env: NodeJS.ProcessEnv): { key: Buffer; source: string } {
  if (env.STABLEGATE_MASTER_KEY) return { key: keyFromString(env.STABLEGATE_MASTER_KEY), source: "STABLEGATE_MASTER_KEY" };
  const file = masterKeyPath(dbPath);
  if (!existsSync(file)) {
    throw new RestoreRefused(`no master key: put the master key the backup was made under at ${file} (or set STABLEGATE_MASTER_KEY) and run restore again; nothing was changed`);
  }
  return { key: keyFromString(readFileSync(file, "utf8")), source: file };
}

function header(path: string): string {
  const fd = openSync(path, "r");
  try {
    const b = Buffer.alloc(16);
    const n = readSync(fd, b, 0, 16, 0);
    return b.subarray(0, n).toString("latin1");
  } finally {
    closeSync(fd);
  }
}

/** Checks the copy at `path` and puts it in reconcile; throws RestoreRefused with the reason. */
async function checkCopy(path: string, from: string, key: { key: Buffer; source: string }, o: { generation: string; indexGap: number; now: number }): Promise<Omit<RestoreSummary, "asidePath" | "generation">> {
  let client: Database;
  try {
    client = new Database(path, { strict: true });
  } catch (e) {
    throw new RestoreRefused(`${from} cannot be opened as a database (${(e as Error).message}); nothing was changed`);
  }
  try {
    let integrity: string[];
    try {
      integrity = backupIntegrity(client);
    } catch (e) {
      throw new RestoreRefused(`${from} is corrupt (${(e as Error).message}); nothing was changed`);
    }
    if (integrity.join() !== "ok") throw new RestoreRefused(`${from} is corrupt: ${integrity.slice(0, 3).join("; ")}; nothing was changed`);
    if (!hasStablegateSchema(client)) {
      throw new RestoreRefused(`${from} is not a stablegate backup (no stablegate schema in it); nothing was changed`);
    }
    // What the master key must open: the wallet seed, the key check (src/secrets/key-check.ts) and an API key, those present.
    const sealed = sealedInBackup(client);
    const cipher = new Cipher(key.key);
    for (const [what, value] of sealed) {
      try {
        cipher.decrypt(value);
      } catch {
        throw new RestoreRefused(
          `the master key (${key.source}) cannot decrypt this backup's ${what}: the backup was made under another master key. ` +
            `Put that key in place (or set STABLEGATE_MASTER_KEY) and run restore again; nothing was changed`,
        );
      }
    }
    const db = dbOver(client);
    let migrationsApplied: number;
    try {
      migrationsApplied = await migrate(db);
    } catch (e) {
      if (e instanceof MigrationError) throw new RestoreRefused(`${from}: ${e.message}; nothing was changed`);
      throw e;
    }
    await writeTx(db, async (tx) => await enterReconcile(tx, o));
    const summary = backupSummary(client);
    // One self-contained file: no -wal beside it when it is renamed into place.
    selfContained(client);
    return { ...summary, migrationsApplied };
  } finally {
    client.close();
  }
}

/** UTC time to the millisecond, e.g. 20261129T000512.345Z: part of the kept-aside name. */
const stamp = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, "");

/**
 * Where the database in place goes aside: `<db>.before-restore-<UTC ms>-<pid>`, so two restores,
 * even within one millisecond from two processes, never pick the same name.
 */
export const asideName = (dbPath: string, now: number, pid: number) => `${dbPath}.before-restore-${stamp(now)}-${pid}`;

/** Moves a file to a name that must not exist yet (a hard link refuses an existing name; rename would replace it). */
function moveNoClobber(from: string, to: string): void {
  linkSync(from, to);
  unlinkSync(from);
}

function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

const SIDE_FILES = ["", "-wal", "-shm"];

export async function restoreFromFile(input: RestoreInput): Promise<RestoreSummary> {
  const { from, dbPath } = input;
  if (!existsSync(from) || !statSync(from).isFile()) throw new RestoreRefused(`${from}: no such file; nothing was changed`);
  if (header(from) !== SQLITE_HEADER) throw new RestoreRefused(`${from} is not a SQLite database, so not a stablegate backup; nothing was changed`);
  const key = masterKey(dbPath, input.env);
  const work = mkdtempSync(join(tmpdir(), "stablegate-restore-"));
  try {
    const copy = join(work, "backup.db");
    copyFileSync(from, copy);
    chmodSync(copy, 0o600);
    const generation = newGeneration();
    const summary = await checkCopy(copy, from, key, { generation, indexGap: input.indexGap, now: input.now });
    const serving = gatewayServing(dbPath);
    if (serving) throw new RestoreRefused(`${serving}; stop it before restoring; nothing was changed`);

    // From here on the data folder changes: the database in place goes aside, the copy comes in.
    mkdirSync(dirname(dbPath), { recursive: true });
    const staged = `${dbPath}.restore-${process.pid}.tmp`;
    copyFileSync(copy, staged);
    chmodSync(staged, 0o600);
    fsyncPath(staged);
    let asidePath: string | null = null;
    if (existsSync(dbPath)) {
      const aside = asideName(dbPath, input.now, process.pid);
      const taken = SIDE_FILES.map((f) => aside + f).find((p) => existsSync(p));
      if (taken) {
        rmSync(staged, { force: true });
        throw new RestoreRefused(`${taken} exists already and is never replaced; nothing was changed`);
      }
      asidePath = aside;
      for (const suffix of SIDE_FILES) {
        if (!existsSync(dbPath + suffix)) continue;
        moveNoClobber(dbPath + suffix, asidePath + suffix);
        chmodSync(asidePath + suffix, 0o600);
      }
    }
    renameSync(staged, dbPath);
    writeFolderMarker(dbPath, generation);
    fsyncPath(dirname(dbPath));
    return { ...summary, generation, asidePath };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
