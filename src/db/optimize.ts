// Planner statistics (issue 23): the gateway's queries are written for their
// indexes, and SQLite picks among indexes by sqlite_stat1. Without it (a database
// never analyzed) or with stale numbers (a table that grew 10x since), the planner
// can prefer a scan. The gateway runs `PRAGMA optimize` at start (so after every
// migration) and every 6 hours: SQLite re-analyzes only the tables whose size moved
// by 10x or more since their last ANALYZE (0x10000: every table, not only those
// this connection has used), so a steady run costs well under a millisecond.
//
// Limitation: a table that does need ANALYZE is read in one statement, which holds
// the event loop (measured at 2M orders: 0.2-0.8 s per big table, whatever
// analysis_limit says). That happens once after the upgrade that adds statistics
// and then once per 10x growth of a table. Doing it off the loop needs statistics
// gathered by another connection in a worker and written back in one short
// transaction (not done).
import type { Db } from "./client";

/** Rows ANALYZE samples per index (SQLite's recommended range is 100-1000). */
export const ANALYSIS_LIMIT = 400;

/** How often the gateway refreshes the statistics (and once at start). */
export const OPTIMIZE_EVERY_MS = 6 * 60 * 60 * 1000;

export function optimizeDatabase(deps: { db: Db }): void {
  const c = deps.db.$client;
  c.run(`PRAGMA analysis_limit = ${ANALYSIS_LIMIT}`);
  c.run("PRAGMA optimize = 0x10002");
}
