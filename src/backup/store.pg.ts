// backup/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle):
// the record of scheduled backup runs, which the leader writes and every gateway's alerts read.
import { desc } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { backupRuns } from "../db/schema-pg";
import type { BackupRun } from "./store";

export async function lastBackupStart(db: PgQ): Promise<number | undefined> {
  return (await firstRow(db.select({ startedAt: backupRuns.startedAt }).from(backupRuns).orderBy(desc(backupRuns.startedAt)).limit(1)))?.startedAt;
}

export async function recordBackupRun(db: PgQ, row: BackupRun): Promise<void> {
  await db.insert(backupRuns).values(row);
}

/** The newest run: by start, then by finish (PostgreSQL has no rowid; two runs never share both). */
export async function newestBackupRun(db: PgQ): Promise<BackupRun | undefined> {
  return await firstRow(db.select().from(backupRuns).orderBy(desc(backupRuns.startedAt), desc(backupRuns.finishedAt)).limit(1));
}
