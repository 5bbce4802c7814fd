// `stablegate migrate-to-postgres --from SQLITE_PATH --to URL` (DESIGN 22 "Moving"): the copy
// itself is src/db/move-to-pg.ts; this prints its per-table check and the figures.
import { displayPgUrl, openPg } from "../db/client-pg";
import { MoveMismatch, MoveRefused, moveSqliteToPg, type TableCheck } from "../db/move-to-pg";
import { CliUsageError, formatTable, type CliFlags } from "./common";

export { MOVE_USAGE } from "./help-text";

export { MOVE_DETAILS } from "./help-text";

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
