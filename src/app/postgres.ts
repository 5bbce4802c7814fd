// A gateway on PostgreSQL (DESIGN 22): opening the database for a command or `serve`, and `init`.
// There is no data folder: the database lives on the server; the master key is a file beside the
// config (`master.key`), or STABLEGATE_MASTER_KEY, and every gateway of one database uses the same
// key. `init` creates the schema, the key (when none is given) and the sealed seed, in one
// transaction for the database part; on a database that has a seed it is refused, changing nothing.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { LoadedConfig } from "../config/load";
import type { Db } from "../db/client";
import { writeTx } from "../db/client";
import { displayPgUrl, openPg } from "../db/client-pg";
import { pgState } from "../db/engine";
import { migratePg } from "../db/migrate-pg";
import { closePg, openPgDb } from "../db/tx-pg";
import { Cipher } from "../secrets/cipher";
import { checkMasterKey } from "../secrets/key-check";
import { createMasterKeyFile, keyFromString, loadMasterKey, masterKeyPath } from "../secrets/master-key";
import { registerSecret } from "../lib/logger";
import { hasAddresses, hasSeed, storeNewSeed } from "../wallet/seed";
import type { GenerationCheck } from "../restore/generation";
import { checkPgGeneration } from "../restore/pg-restore";
import { DataFolderError, type InitResult } from "./data-folder";

/** Where the master key file of a PostgreSQL gateway is: beside its config file (the working folder for the embedded default). */
export function pgKeyAnchor(loaded: LoadedConfig): string {
  // masterKeyPath takes a file and uses its folder.
  return loaded.source === "embedded default" ? join(process.cwd(), "stablegate.toml") : resolve(loaded.source);
}

/** The database URL a config names, when it names one ([database] url or STABLEGATE_DATABASE_URL, already merged by loadConfig). */
export function pgUrlOf(loaded: LoadedConfig): string | null {
  return loaded.config.database.url ?? null;
}

/** Opens a PostgreSQL gateway's database: migrations (under their advisory lock), the master key checked. */
export async function openPgStore(loaded: LoadedConfig, env = process.env): Promise<{ db: Db; cipher: Cipher; generation: GenerationCheck }> {
  const url = pgUrlOf(loaded)!;
  const key = loadMasterKey(pgKeyAnchor(loaded), env);
  registerSecret(key.toString("hex"));
  const db = openPgDb(url, loaded.config.database.pool_size);
  try {
    await migratePg(pgState(db).pool);
    const cipher = new Cipher(key);
    await checkMasterKey(db, cipher, Date.now());
    // A database older than its comment's generation marker (a dump put back by hand) enters
    // reconcile here, before any job runs (docs/postgresql.md "Backups").
    const generation = await underStartLock(url, async () => await checkPgGeneration(pgState(db).pool, { indexGap: loaded.config.restore.index_gap, now: Date.now() }));
    return { db, cipher, generation };
  } catch (e) {
    await closePg(db).catch(() => undefined);
    throw e;
  }
}

/** pg_advisory_lock key of the start-up checks ("SGSTRT" in ASCII): gateways starting together read and set the generation markers one at a time. */
export const START_LOCK_KEY = 0x5347_5354_5254n;

/** Runs `fn` while this process holds the start-up lock (on a connection of its own: the pool may have one). */
async function underStartLock<T>(url: string, fn: () => Promise<T>): Promise<T> {
  const conn = openPg(url, 1);
  try {
    await conn`SELECT pg_advisory_lock(${START_LOCK_KEY})`;
    try {
      return await fn();
    } finally {
      await conn`SELECT pg_advisory_unlock(${START_LOCK_KEY})`;
    }
  } finally {
    await conn.close().catch(() => undefined);
  }
}

/** `stablegate init` against [database] url. */
export async function initPostgres(loaded: LoadedConfig, env: NodeJS.ProcessEnv = process.env, now = Date.now()): Promise<InitResult> {
  const url = pgUrlOf(loaded)!;
  const shown = displayPgUrl(url);
  const db = openPgDb(url, 2);
  try {
    await migratePg(pgState(db).pool);
    const anchor = pgKeyAnchor(loaded);
    const keyFile = masterKeyPath(anchor);
    // Refused before any key is made: the database already belongs to a wallet.
    if ((await hasSeed(db)) || (await hasAddresses(db))) throw alreadyInitialised(shown);
    let made: string | null = null;
    let key: Buffer;
    if (env.STABLEGATE_MASTER_KEY) key = keyFromString(env.STABLEGATE_MASTER_KEY);
    else if (existsSync(keyFile)) key = loadMasterKey(anchor, env);
    else ({ key, file: made } = createMasterKeyFile(anchor));
    registerSecret(key.toString("hex"));
    const cipher = new Cipher(key);
    const seed = await writeTx(db, async () => {
      await checkMasterKey(db, cipher, now);
      return await storeNewSeed(db, cipher, now, env);
    }).catch((e: unknown) => {
      // Two inits at once: the second finds the first's seed (the settings key is unique).
      if (/duplicate key|unique/i.test(String((e as Error)?.message) + String((e as { cause?: Error })?.cause?.message))) throw alreadyInitialised(shown);
      throw e;
    });
    return { database: shown, masterKeyFile: made, seed, completed: false };
  } finally {
    await closePg(db).catch(() => undefined);
  }
}

function alreadyInitialised(shown: string): DataFolderError {
  return new DataFolderError(`${shown} already has a wallet seed: this database is initialised (nothing was changed). Give every gateway of it the same master key (the master.key file beside its config, or STABLEGATE_MASTER_KEY).`);
}
