// `stablegate backup --out FILE` and `backup --verify FILE` (DESIGN 2, 16).
import { existsSync, statSync } from "node:fs";
import { BadBackup, describeBackup, inspectBackup } from "../backup/inspect";
import { writeBackup } from "../backup/write";
import { inspectPgBackup } from "../backup/pg-dump";
import { isPgArchive } from "../db/pg-tools";
import { CliUsageError, type CliFlags } from "./common";

export { BACKUP_USAGE } from "./help-text";

/** `dbPath` null: the gateway is on PostgreSQL (src/cli/postgres.ts takes --out there). */
export async function backupCommand(dbPath: string | null, flags: CliFlags): Promise<number> {
  if (typeof flags.verify === "string") {
    try {
      // Either engine's backup, told apart by its first bytes (pg_dump's custom format: PGDMP).
      const pg = existsSync(flags.verify) && statSync(flags.verify).isFile() && isPgArchive(flags.verify);
      console.log(describeBackup(pg ? await inspectPgBackup(flags.verify) : await inspectBackup(flags.verify)));
      return 0;
    } catch (e) {
      if (!(e instanceof BadBackup)) throw e;
      console.error(`${flags.verify}: not a usable backup: ${e.message}`);
      return 1;
    }
  }
  if (typeof flags.out !== "string" || dbPath === null) throw new CliUsageError("usage: backup --out FILE | backup --verify FILE");
  // No migration first: a backup taken before an upgrade must be the old schema, untouched.
  if (!existsSync(dbPath)) throw new CliUsageError(`no database at ${dbPath} (check database.path in the config)`);
  try {
    const s = await writeBackup(dbPath, flags.out);
    console.log(`backup written to ${flags.out}\n${describeBackup(s)}`);
    return 0;
  } catch (e) {
    // A check that failed, or the copy itself (disk full, unreadable database): FILE is absent either way.
    console.error(`backup failed, nothing written to ${flags.out}: ${(e as Error).message}`);
    return 1;
  }
}
