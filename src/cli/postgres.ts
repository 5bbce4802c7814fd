// The CLI on PostgreSQL (DESIGN 22): `migrate`, `backup` (pg_dump) and `restore --from`
// (pg_restore) against [database] url, and the other commands of the SQLite data folder (restore
// list/ack, wallet, energy) refused in one line instead of touching SQLite. init is app/postgres.ts;
// every other command runs through the stores (src/cli/main.ts), a store not ported yet refusing in
// one line (db/engine.ts NotOnPostgres).
import type { LoadedConfig } from "../config/load";
import { displayPgUrl, openPg } from "../db/client-pg";
import { MigrationError } from "../db/migrate";
import { migratePg } from "../db/migrate-pg";
import { PgToolError } from "../db/pg-tools";
import { BadBackup, describeBackup } from "../backup/inspect";
import { writePgBackup } from "../backup/pg-dump";
import { restorePgFromFile } from "../restore/pg-restore";
import { RestoreRefused } from "../restore/restore";
import { systemClock } from "../lib/clock";
import { CliUsageError, type CliFlags } from "./common";
import { pgMasterKey, printRestored } from "./restore";
import { backupCommand } from "./backup";

export const PG_NOT_YET =
  "not available on PostgreSQL yet (docs/postgresql.md \"What runs on PostgreSQL\"): with [database] url (or STABLEGATE_DATABASE_URL) set it is refused; unset it to use SQLite ([database] path)";

/** Commands this file answers on PostgreSQL: migrate, and the data-folder commands it refuses (backup and restore --from through pg_dump / pg_restore). */
export const PG_OWN_COMMANDS = ["migrate", "backup", "restore", "wallet", "energy"];

/** `restore list` and `restore ack` run through the stores on either engine (cli/restore.ts); the rest of PG_OWN_COMMANDS is answered here. */
export function answeredHere(cmd: string, args: string[]): boolean {
  return PG_OWN_COMMANDS.includes(cmd) && !(cmd === "restore" && (args[0] === "list" || args[0] === "ack"));
}

/** Runs `cmd` against PostgreSQL; the exit code. */
export async function postgresCommand(cmd: string, loaded: LoadedConfig, args: string[] = [], flags: CliFlags = {}): Promise<number> {
  const url = loaded.config.database.url!;
  if (cmd === "backup") return await pgBackup(url, flags);
  if (cmd === "restore" && args.length === 0 && typeof flags.from === "string") return await pgRestore(loaded, url, flags.from);
  if (cmd !== "migrate") {
    console.error(`error: ${cmd}: ${PG_NOT_YET}`);
    return 1;
  }
  const sql = openPg(url, 1);
  try {
    const n = await migratePg(sql);
    console.log(`migrated ${displayPgUrl(url)} (${n ? `${n} migration${n === 1 ? "" : "s"} applied` : "up to date"})`);
    return 0;
  } catch (e) {
    const message = e instanceof MigrationError ? e.message : `cannot migrate ${displayPgUrl(url)}: ${oneLine((e as Error).message)}`;
    console.error(`error: ${message}`);
    return 1;
  } finally {
    await sql.close().catch(() => undefined);
  }
}

async function pgBackup(url: string, flags: CliFlags): Promise<number> {
  // --verify reads only FILE, whichever engine wrote it.
  if (typeof flags.verify === "string") return await backupCommand(null, flags);
  if (typeof flags.out !== "string") throw new CliUsageError("usage: backup --out FILE | backup --verify FILE");
  const sql = openPg(url, 1);
  const started = performance.now();
  try {
    const s = await writePgBackup({ url, sql, out: flags.out });
    console.log(`backup written to ${flags.out} (pg_dump custom format, ${((performance.now() - started) / 1000).toFixed(1)} s)\n${describeBackup(s)}`);
    return 0;
  } catch (e) {
    if (!(e instanceof BadBackup) && !(e instanceof PgToolError) && !isConnectionError(e)) throw e;
    console.error(`backup failed, nothing written to ${flags.out}: ${oneLine((e as Error).message)}`);
    return 1;
  } finally {
    await sql.close().catch(() => undefined);
  }
}

async function pgRestore(loaded: LoadedConfig, url: string, from: string): Promise<number> {
  const sql = openPg(url, 1);
  try {
    const r = await restorePgFromFile({ from, url, sql, key: pgMasterKey(loaded, process.env), indexGap: loaded.config.restore.index_gap, now: systemClock.now() });
    printRestored(loaded, from, displayPgUrl(url), r);
    return 0;
  } catch (e) {
    if (e instanceof RestoreRefused) {
      console.error(`restore refused: ${e.message}`);
      return 1;
    }
    if (e instanceof PgToolError) {
      console.error(`restore failed, rolled back (the database is as it was): ${e.message}`);
      return 1;
    }
    throw e;
  } finally {
    await sql.close().catch(() => undefined);
  }
}

const isConnectionError = (e: unknown) => /ECONNREFUSED|connection|PostgresError/i.test(String((e as Error)?.name) + String((e as Error)?.message));

function oneLine(s: string): string {
  return s.split("\n")[0]!.trim();
}
