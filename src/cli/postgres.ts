// The CLI on PostgreSQL (DESIGN 22). This build has the PostgreSQL schema, its migrations and
// the test server, not yet the stores (they follow the async storage seam): `migrate` works
// against [database] url, and every other command refuses in one line instead of touching SQLite.
import type { LoadedConfig } from "../config/load";
import { displayPgUrl, openPg } from "../db/client-pg";
import { MigrationError } from "../db/migrate";
import { migratePg } from "../db/migrate-pg";

export const PG_NOT_YET =
  "PostgreSQL storage is not in this build yet: with [database] url (or STABLEGATE_DATABASE_URL) set, only `stablegate migrate` runs; unset it to use SQLite ([database] path)";

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
