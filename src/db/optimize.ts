// Planner statistics (issue 23): the gateway's queries are written for their
// indexes, and SQLite picks among indexes by sqlite_stat1. Without it (a database
// never analyzed) or with stale numbers (a table that grew 10x since), the planner
// can prefer a scan. The serving gateway refreshes them at start (so after every
// migration) and every 6 hours, for the tables whose statistics are missing or
// whose size moved 10x: gathered by reads on a worker's connection and written in
// one short transaction (src/db/maintenance.ts, src/db/stats.ts), never by an
// ANALYZE on the gateway's thread (measured at 2M orders: 0.1-0.9 s of CPU per big
// table, seconds with the disk, whatever analysis_limit says).
//
// optimizeDatabase is SQLite's own `PRAGMA optimize` on the caller's connection:
// for an in-memory database (tests), which has no file a worker could open.
import type { Db } from "./client";

/** Rows ANALYZE samples per index (SQLite's recommended range is 100-1000). */
export const ANALYSIS_LIMIT = 400;

/** How often the gateway refreshes the statistics (and once at start). */
export const OPTIMIZE_EVERY_MS = 6 * 60 * 60 * 1000;

export async function optimizeDatabase(deps: { db: Db }): Promise<void> {
  const c = deps.db.$client;
  c.run(`PRAGMA analysis_limit = ${ANALYSIS_LIMIT}`);
  c.run("PRAGMA optimize = 0x10002");
}
