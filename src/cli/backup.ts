// `stablegate backup --out FILE` and `backup --verify FILE` (DESIGN 2, 16).
import { existsSync } from "node:fs";
import { BadBackup, describeBackup, inspectBackup } from "../backup/inspect";
import { writeBackup } from "../backup/write";
import { CliUsageError, type CliFlags } from "./common";

export const BACKUP_USAGE = `backup --out FILE | backup --verify FILE  checked online copy of the database; check a backup`;

export async function backupCommand(dbPath: string, flags: CliFlags): Promise<number> {
  if (typeof flags.verify === "string") {
    try {
      console.log(describeBackup(await inspectBackup(flags.verify)));
      return 0;
    } catch (e) {
      if (!(e instanceof BadBackup)) throw e;
      console.error(`${flags.verify}: not a usable backup: ${e.message}`);
      return 1;
    }
  }
  if (typeof flags.out !== "string") throw new CliUsageError("usage: backup --out FILE | backup --verify FILE");
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
