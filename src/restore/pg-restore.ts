// Restores and generations on PostgreSQL (DESIGN 22 "Operations", DESIGN 16 "Restore").
// `restore --from FILE` with [database] url: the archive is checked first (a pg_dump custom-format
// stablegate backup this build can run, the master key opening its sealed values); the configured
// database must be empty (a new database, or one only migrated): PostgreSQL has no file to move
// aside, so the database in use before is left untouched, as the copy kept. pg_restore runs in
// one transaction (all or nothing), pending migrations follow, then the database enters reconcile
// in one transaction with a new generation marker in `settings` and on the database's comment.
// The comment is the data folder's marker file of SQLite: outside the backed-up rows and tied to
// the database's oid, so a backup put back by hand (pg_restore into a new database, or --clean
// into this one) no longer matches it and the next start reconciles (checkPgGeneration).
import type { SQL } from "bun";
import { existsSync, statSync } from "node:fs";
import { displayPgUrl } from "../db/client-pg";
import { MigrationError } from "../db/migrate";
import { migratePg } from "../db/migrate-pg";
import { BadPgArchive, inspectPgArchive } from "../db/pg-archive";
import { isPgArchive, runPgTool } from "../db/pg-tools";
import { Cipher } from "../secrets/cipher";
import { enterReconcileWith, newGeneration, type GenerationCheck } from "./generation";
import { pgFolderMarker, pgGeneration, pgReconcileStore, pgRestoredSummary, pgTableState, setPgFolderMarker, setPgGeneration } from "./pg-store";
import { RestoreRefused, type RestoreSummary } from "./restore";

export interface PgRestoreInput {
  from: string;
  url: string;
  sql: SQL;
  /** The master key and where it came from (for the refusal's words). */
  key: { key: Buffer; source: string };
  indexGap: number;
  now: number;
  env?: NodeJS.ProcessEnv;
}

const SQLITE_HEADER = "SQLite format 3";

/** The archive, checked; throws RestoreRefused (nothing changed). */
async function checkArchive(from: string, key: PgRestoreInput["key"]) {
  if (!existsSync(from) || !statSync(from).isFile()) throw new RestoreRefused(`${from}: no such file; nothing was changed`);
  if (!isPgArchive(from)) {
    const head = Buffer.from(await Bun.file(from).slice(0, 15).arrayBuffer()).toString("latin1");
    if (head === SQLITE_HEADER) throw new RestoreRefused(`${from} is a SQLite backup: this gateway is on PostgreSQL ([database] url); move a SQLite gateway with stablegate migrate-to-postgres; nothing was changed`);
    throw new RestoreRefused(`${from} is not a PostgreSQL backup (pg_dump custom format, as stablegate backup writes); nothing was changed`);
  }
  let summary;
  try {
    summary = await inspectPgArchive(from);
  } catch (e) {
    if (e instanceof BadPgArchive) throw new RestoreRefused(`${from}: ${e.message}; nothing was changed`);
    throw e;
  }
  const cipher = new Cipher(key.key);
  for (const [what, value] of summary.sealed) {
    try {
      cipher.decrypt(value);
    } catch {
      throw new RestoreRefused(
        `the master key (${key.source}) cannot decrypt this backup's ${what}: the backup was made under another master key. Put that key in place (or set STABLEGATE_MASTER_KEY) and run restore again; nothing was changed`,
      );
    }
  }
  return summary;
}

/** The configured database must hold no rows; returns whether it has tables (a migrated, empty one). */
async function requireEmptyTarget(sql: SQL, url: string): Promise<boolean> {
  const { tables, withRows } = await pgTableState(sql);
  if (withRows.length) {
    throw new RestoreRefused(
      `the database of [database] url (${url}) is not empty (rows in ${withRows.slice(0, 4).join(", ")}${withRows.length > 4 ? ", …" : ""}). ` +
        `On PostgreSQL restore goes into an empty database: create one (createdb -O USER NAME), point [database] url at it and run restore again; ` +
        `the database in use now stays as it is (the copy kept); nothing was changed`,
    );
  }
  return tables.length > 0;
}

export async function restorePgFromFile(input: PgRestoreInput): Promise<RestoreSummary> {
  const archive = await checkArchive(input.from, input.key);
  const shown = displayPgUrl(input.url);
  const migrated = await requireEmptyTarget(input.sql, shown);
  // One transaction: a failure leaves the database as it was. --clean drops what a migrated,
  // empty database already has; owners and grants are the connecting user's.
  await runPgTool("pg_restore", ["--single-transaction", "--exit-on-error", "--no-owner", "--no-acl", ...(migrated ? ["--clean", "--if-exists"] : []), input.from], input.url, input.env);
  let migrationsApplied: number;
  try {
    migrationsApplied = await migratePg(input.sql);
  } catch (e) {
    if (e instanceof MigrationError) throw new RestoreRefused(`${input.from} was restored but cannot be migrated: ${e.message}`);
    throw e;
  }
  const generation = newGeneration();
  await input.sql.begin(async (tx) => {
    await enterReconcileWith(pgReconcileStore(tx), { generation, indexGap: input.indexGap, now: input.now });
    await setPgFolderMarker(tx, generation);
  });
  return { ...(await pgRestoredSummary(input.sql)), cursors: archive.cursors, generation, asidePath: null, migrationsApplied };
}

/**
 * At start-up (the PostgreSQL twin of checkGeneration): the marker in `settings` against the one
 * on the database's comment. Equal: nothing. Neither: both get one. Otherwise the database was
 * put back (by restore, by hand, or on a new server): reconcile, in one transaction.
 */
export async function checkPgGeneration(sql: SQL, o: { indexGap: number; now: number }): Promise<GenerationCheck> {
  const folder = await pgFolderMarker(sql);
  const inDb = await pgGeneration(sql);
  if (folder !== null && folder === inDb) return { generation: folder, restored: false };
  const generation = newGeneration();
  const restored = inDb !== null || folder !== null;
  await sql.begin(async (tx) => {
    if (restored) await enterReconcileWith(pgReconcileStore(tx), { generation, indexGap: o.indexGap, now: o.now });
    else await setPgGeneration(tx, generation, o.now);
    await setPgFolderMarker(tx, generation);
  });
  return { generation, restored };
}

/** After a backup's dump: the live database moves on to a new generation (both markers), so the dump, put back, is a restore. */
export async function rotatePgGeneration(sql: SQL, now: number): Promise<string> {
  const generation = newGeneration();
  await sql.begin(async (tx) => {
    await setPgGeneration(tx, generation, now);
    await setPgFolderMarker(tx, generation);
  });
  return generation;
}
