// `stablegate migrate-to-postgres --from SQLITE_PATH --to URL` (DESIGN 22 "Moving"): the copy
// itself is src/db/move-to-pg.ts; this prints its per-table check and the figures.
import { displayPgUrl, openPg } from "../db/client-pg";
import { MoveMismatch, MoveRefused, moveSqliteToPg, type TableCheck } from "../db/move-to-pg";
import { CliUsageError, formatTable, type CliFlags } from "./common";

export const MOVE_USAGE = `  migrate-to-postgres --from SQLITE_PATH --to URL
                                     copy a SQLite gateway's database into an empty PostgreSQL one (gateways stopped)`;

export const MOVE_DETAILS = `usage: stablegate migrate-to-postgres --from SQLITE_PATH --to URL
Copies a SQLite gateway's whole database into an empty PostgreSQL database (DESIGN 22), with
every gateway stopped. SQLITE_PATH is opened read-only and refused while a gateway serves it
(its instance lock) or when it is not at this build's schema (run stablegate migrate on it
first). URL (postgres://user:pass@host:5432/db) must name an empty database: it is migrated
to the same schema, then every table is copied in one transaction, identity sequences set
past the copied ids, and per table the row count and the exact sum of every amount column
are compared. Any difference or error rolls the copy back: no row is written. Encrypted
values (the wallet seed, API keys) are copied as stored: the PostgreSQL gateways need the
same master key. Afterwards set [database] url to URL and start the gateways.`;

function checksTable(checks: TableCheck[]): string {
  return formatTable(
    ["table", "sqlite rows", "postgres rows", "amount sums (sqlite = postgres)", "check"],
    checks.map((c) => [
      c.table,
      c.sourceRows,
      c.targetRows,
      c.sums.map((s) => (s.source === s.target ? `${s.column}=${s.source}` : `${s.column}=${s.source}≠${s.target}`)).join(" "),
      c.ok ? "ok" : "MISMATCH",
    ]),
    "no tables",
  );
}

export async function moveCommand(flags: CliFlags): Promise<number> {
  const from = flags.from;
  const to = flags.to;
  if (typeof from !== "string" || typeof to !== "string") throw new CliUsageError("usage: migrate-to-postgres --from SQLITE_PATH --to URL");
  if (!/^postgres(ql)?:\/\//.test(to)) throw new CliUsageError(`--to must be a PostgreSQL URL (postgres://user:pass@host:5432/db), not ${to}`);
  const sql = openPg(to, 2);
  try {
    const r = await moveSqliteToPg({ from, sql, url: to });
    console.log(checksTable(r.tables));
    const copy = r.copyMs / 1000;
    console.log(
      `copied ${r.rows} rows in ${r.tables.length} tables from ${from} to ${displayPgUrl(to)} in ${(r.ms / 1000).toFixed(1)} s (the copy and its checks ${copy.toFixed(1)} s, ${Math.round(r.rows / Math.max(copy, 0.001))} rows/s)` +
        `${r.migrationsApplied ? `; ${r.migrationsApplied} migration(s) applied first` : ""}; every count and amount sum matches`,
    );
    console.log(`next: set [database] url (or STABLEGATE_DATABASE_URL) to this database, keep the same master key, and start the gateways`);
    return 0;
  } catch (e) {
    if (e instanceof MoveMismatch) {
      console.error(`${checksTable(e.checks)}\nerror: ${e.message}`);
      return 1;
    }
    if (e instanceof MoveRefused) {
      console.error(`error: ${e.message}`);
      return 1;
    }
    console.error(`error: migrate-to-postgres failed, rolled back, nothing was written to ${displayPgUrl(to)}: ${(e as Error).message.split("\n")[0]}`);
    return 1;
  } finally {
    await sql.close().catch(() => undefined);
  }
}
