// `backup` on PostgreSQL (DESIGN 22 "Operations"): pg_dump in custom format (-Fc), with the same
// guarantees as the SQLite backup (write.ts): written under a temporary name beside FILE (0600
// from its creation), checked (inspectPgArchive: pg_restore reads every row back, a stablegate
// schema this build knows, the rows counted), fsynced, linked into place (never over a file), the
// folder fsynced; then the live database moves on to a new generation marker, so this backup,
// put back, starts in reconcile. `backup --verify FILE` tells the engines apart by the file's
// first bytes.
import type { SQL } from "bun";
import { statSync } from "node:fs";
import { BadPgArchive, inspectPgArchive } from "../db/pg-archive";
import { runPgTool } from "../db/pg-tools";
import { rotatePgGeneration } from "../restore/pg-restore";
import { BadBackup, COUNTED_TABLES, type BackupSummary } from "./inspect";
import { writeChecked } from "./write";

/** Checks the archive at `path` and says what it holds, in the SQLite backup's shape; throws BadBackup. */
export async function inspectPgBackup(path: string): Promise<BackupSummary> {
  let s;
  try {
    s = await inspectPgArchive(path);
  } catch (e) {
    if (e instanceof BadPgArchive) throw new BadBackup(e.message);
    throw e;
  }
  const rows: Record<string, number> = {};
  for (const t of COUNTED_TABLES) if (s.rows.has(t)) rows[t] = s.rows.get(t)!;
  return { path, bytes: statSync(path).size, migrations: s.migrations, rows, newestPayin: s.newestPayin, newestPayout: s.newestPayout };
}

/** Writes a checked pg_dump of the database at `url` to `out` (which must not exist). */
export async function writePgBackup(o: { url: string; sql: SQL; out: string; env?: NodeJS.ProcessEnv }): Promise<BackupSummary> {
  return await writeChecked(o.out, {
    // pg_dump reads one consistent snapshot; it opens the existing 0600 file (no wider moment).
    copy: async (tmp) => void (await runPgTool("pg_dump", ["--format=custom", `--file=${tmp}`], o.url, o.env)),
    check: async (tmp) => await inspectPgBackup(tmp),
    published: async () => void (await rotatePgGeneration(o.sql, Date.now())),
  });
}
