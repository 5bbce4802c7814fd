// The backups' storage module: the record of scheduled backup runs (`backup_runs`,
// docs/architecture.md "Data access"). `backup/schedule.ts` calls these.
import { desc, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { backupRuns } from "../db/schema";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

export type BackupRun = typeof backupRuns.$inferSelect;

/** When the newest recorded run started (undefined: none yet). */
export async function lastBackupStart(db: Db): Promise<number | undefined> {
  if (isPg(db)) return await pg.lastBackupStart(pgOf(db));
  return db.select({ startedAt: backupRuns.startedAt }).from(backupRuns).orderBy(desc(backupRuns.startedAt)).limit(1).get()?.startedAt;
}

export async function recordBackupRun(db: Db, row: BackupRun): Promise<void> {
  if (isPg(db)) return await pg.recordBackupRun(pgOf(db), row);
  db.insert(backupRuns).values(row).run();
}

/** The newest recorded run (the latest of equal start times by insertion). */
export async function newestBackupRun(db: Db): Promise<BackupRun | undefined> {
  if (isPg(db)) return await pg.newestBackupRun(pgOf(db));
  return db.select().from(backupRuns).orderBy(desc(backupRuns.startedAt), desc(sql`rowid`)).limit(1).get();
}
