// The data folder (DESIGN 16): the database, its master key file and a marker naming the
// database the folder was made for. Only `stablegate init` (and `serve --demo` on an empty
// folder, what `make run` starts) creates one; every other command needs the database to be
// there, so a typo in database.path, an empty config or a deleted database stops with a message
// instead of starting a stranger with a new master key and a new wallet seed.
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { LoadedConfig } from "../config/load";
import { closeSqlite, openDb } from "../db/client";
import { migrate } from "../db/migrate";
import { prepareDatabaseFile, secureDatabaseFiles } from "../db/file-modes";
import { Cipher } from "../secrets/cipher";
import { checkMasterKey, hasKeyCheck } from "../secrets/key-check";
import { createMasterKeyFile, keyFromString, loadMasterKey, masterKeyPath } from "../secrets/master-key";
import { hasAddresses, loadMnemonic, storeNewSeed } from "../wallet/seed";
import { registerSecret } from "../lib/logger";
import { VERSION } from "../version";

export const MARKER_FILE = "data-folder.json";

/** A refusal about the data folder; the message says what is wrong and what to do. */
export class DataFolderError extends Error {
  override name = "DataFolderError";
}

interface Marker {
  /** The database path the folder was made for (absolute). */
  database: string;
  createdAt: string;
  by: string;
}

export function markerPath(dbPath: string): string {
  return join(dirname(resolve(dbPath)), MARKER_FILE);
}

export function readMarker(dbPath: string): Marker | null {
  try {
    const m = JSON.parse(readFileSync(markerPath(dbPath), "utf8")) as Partial<Marker>;
    return typeof m.database === "string" ? (m as Marker) : null;
  } catch {
    return null;
  }
}

function writeMarker(dbPath: string): void {
  const m: Marker = { database: resolve(dbPath), createdAt: new Date().toISOString(), by: `stablegate ${VERSION}` };
  writeFileSync(markerPath(dbPath), JSON.stringify(m, null, 2) + "\n", { mode: 0o600 });
  chmodSync(markerPath(dbPath), 0o600);
}

/**
 * The marker names another database file of this folder (a database.path typo). The file
 * name decides: a folder moved or reached through a symlink keeps working.
 */
function otherDatabase(marker: Marker | null, dbPath: string): boolean {
  return !!marker && basename(marker.database) !== basename(resolve(dbPath));
}

/** A database file with content (an empty file, e.g. a deleted database recreated by a tool, counts as missing). */
export function databasePresent(dbPath: string): boolean {
  return existsSync(dbPath) && statSync(dbPath).size > 0;
}

const configArg = (source: string) => (source === "embedded default" ? "" : ` --config ${source}`);

/**
 * Every command but init: the database must exist. An existing one made before markers existed
 * gets its marker now (so a later typo in database.path is recognised).
 */
export function requireDatabase(loaded: LoadedConfig): void {
  const dbPath = loaded.config.database.path;
  if (dbPath === ":memory:") return;
  const marker = readMarker(dbPath);
  if (databasePresent(dbPath)) {
    if (!marker) {
      try {
        writeMarker(dbPath);
      } catch {
        // A read-only folder (a command run by another user): the next writer records it.
      }
    }
    return;
  }
  const p = resolve(dbPath);
  if (otherDatabase(marker, dbPath)) {
    throw new DataFolderError(
      `no database at ${p}: the data folder ${dirname(p)} was made for ${marker!.database}. database.path (${loaded.source}) names another file: fix database.path.`,
    );
  }
  if (marker) {
    throw new DataFolderError(
      `the database ${p} is missing from its data folder (made ${marker.createdAt}). Restore it from a backup (see docs/operations.md "Restore"); never start a new one beside its master key.`,
    );
  }
  if (existsSync(masterKeyPath(dbPath))) {
    throw new DataFolderError(
      `no database at ${p}, but a master key is there (${masterKeyPath(p)}): the database was moved or deleted, or database.path (${loaded.source}) is wrong. Restore the database or fix database.path.`,
    );
  }
  throw new DataFolderError(
    `no database at ${p} (config: ${loaded.source}). Create the data folder with: stablegate init${configArg(loaded.source)}` +
      (loaded.source === "embedded default" ? "\n(or try the gateway on sandbox chains with `make run`, i.e. `stablegate serve --demo`)" : ""),
  );
}

export interface InitResult {
  database: string;
  /** The key file made, or null when the key comes from STABLEGATE_MASTER_KEY. */
  masterKeyFile: string | null;
  seed: { imported: boolean; words: number };
  /** A database made by `migrate` before init existed, given its seed. */
  completed: boolean;
}

/**
 * `stablegate init`: a new data folder (0700) with the database (0600, migrated), the master key
 * (a new 0600 master.key unless STABLEGATE_MASTER_KEY is set) and a wallet seed. Refuses, before
 * writing anything, a folder that already holds a database, a master key or another database's
 * marker: a wallet seed is never made beside an existing key or for another database path.
 */
export async function initDataFolder(loaded: LoadedConfig, env: NodeJS.ProcessEnv = process.env, now = Date.now()): Promise<InitResult> {
  const dbPath = loaded.config.database.path;
  if (dbPath === ":memory:") throw new DataFolderError("database.path is :memory:: there is no data folder to create");
  const p = resolve(dbPath);
  const marker = readMarker(dbPath);
  if (otherDatabase(marker, dbPath)) {
    throw new DataFolderError(`the data folder ${dirname(p)} was made for ${marker!.database}, not ${p}: fix database.path (${loaded.source}); init makes one wallet per data folder.`);
  }
  if (databasePresent(dbPath)) return await completeLegacy(loaded, env, now);
  if (marker) throw new DataFolderError(`the database ${p} of this data folder is missing: restore it from a backup; init never makes a new wallet in its place.`);
  const keyFile = masterKeyPath(p);
  if (existsSync(keyFile)) {
    throw new DataFolderError(
      `a master key already exists at ${keyFile} but there is no database at ${p}: init never makes a new wallet beside an existing master key. Restore the database (or fix database.path); if the key is truly unused, move it away first.`,
    );
  }
  prepareDatabaseFile(p);
  let made: string | null = null;
  let key: Buffer;
  if (env.STABLEGATE_MASTER_KEY) key = keyFromString(env.STABLEGATE_MASTER_KEY);
  else ({ key, file: made } = createMasterKeyFile(p));
  registerSecret(key.toString("hex"));
  const db = openDb(p);
  try {
    await migrate(db);
    const cipher = new Cipher(key);
    await checkMasterKey(db, cipher, now);
    const seed = await storeNewSeed(db, cipher, now, env);
    writeMarker(p);
    return { database: p, masterKeyFile: made, seed, completed: false };
  } finally {
    // close(true): finalize now (close_v2 would keep the file open until GC, and `restore` would find it in use).
    closeSqlite(db, true);
    secureDatabaseFiles(p);
  }
}

/** A database that `migrate` made before init existed: it gets its seed if no address was ever derived. */
async function completeLegacy(loaded: LoadedConfig, env: NodeJS.ProcessEnv, now: number): Promise<InitResult> {
  const p = resolve(loaded.config.database.path);
  const key = loadMasterKey(p, env);
  const db = openDb(p);
  try {
    const cipher = new Cipher(key);
    if (!await hasKeyCheck(db)) throw new DataFolderError(`${p} already exists: this data folder is initialised (nothing was changed).`);
    await checkMasterKey(db, cipher, now);
    if (await loadMnemonic(db, cipher) !== null || await hasAddresses(db)) throw new DataFolderError(`${p} already exists: this data folder is initialised (nothing was changed).`);
    await migrate(db);
    const seed = await storeNewSeed(db, cipher, now, env);
    writeMarker(p);
    return { database: p, masterKeyFile: null, seed, completed: true };
  } finally {
    closeSqlite(db);
  }
}
