// The CLI on PostgreSQL (DESIGN 22): `migrate` against [database] url, and the commands of the
// SQLite data folder (backup, restore, wallet, energy) refused in one line instead of touching
// SQLite. init is app/postgres.ts; every other command runs through the stores (src/cli/main.ts),
// a store not ported yet refusing in one line (db/engine.ts NotOnPostgres).
import type { LoadedConfig } from "../config/load";
import { displayPgUrl, openPg } from "../db/client-pg";
import { MigrationError } from "../db/migrate";
import { migratePg } from "../db/migrate-pg";

export const PG_NOT_YET =
  "not available on PostgreSQL yet (docs/postgresql.md \"What runs on PostgreSQL\"): with [database] url (or STABLEGATE_DATABASE_URL) set it is refused; unset it to use SQLite ([database] path)";

/** Commands this file answers on PostgreSQL: migrate, and the data-folder commands it refuses (pg_dump backups come separately). */
export const PG_OWN_COMMANDS = ["migrate", "backup", "restore", "wallet", "energy"];

/** Runs `cmd` against PostgreSQL; the exit code. */
export async function postgresCommand(cmd: string, loaded: LoadedConfig): Promise<number> {
  if (cmd !== "migrate") {
    console.error(`error: ${cmd}: ${PG_NOT_YET}`);
    return 1;
  }
  const url = loaded.config.database.url!;
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

function oneLine(s: string): string {
  return s.split("\n")[0]!.trim();
}
