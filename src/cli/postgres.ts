// The CLI on PostgreSQL (DESIGN 22): `migrate`, `backup` (pg_dump) and `restore --from`
// (pg_restore) against [database] url. init is app/postgres.ts; every other command (restore
// list/ack, wallet, energy included) runs through the stores on either engine (src/cli/main.ts).
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

/** Commands this file answers on PostgreSQL: migrate, backup (pg_dump) and restore --from (pg_restore); restore list/ack and its usage errors are cli/restore.ts's on either engine. */
export function answeredHere(cmd: string, args: string[], flags: CliFlags): boolean {
  return cmd === "migrate" || cmd === "backup" || (cmd === "restore" && args.length === 0 && typeof flags.from === "string");
}

/** Runs `cmd` against PostgreSQL; the exit code. */
export async function postgresCommand(cmd: string, loaded: LoadedConfig, args: string[] = [], flags: CliFlags = {}): Promise<number> {
  const url = loaded.config.database.url!;
  if (cmd === "backup") return await pgBackup(url, flags);
  if (cmd === "restore" && args.length === 0 && typeof flags.from === "string") return await pgRestore(loaded, url, flags.from);
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
