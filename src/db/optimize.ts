// Planner statistics (issue 23): the gateway's queries are written for their
// indexes, and SQLite picks among indexes by sqlite_stat1. Without it (a database
// never analyzed) or with stale numbers (a table that grew 100x since), the
// planner can prefer a scan. The gateway refreshes the statistics at start (so
// after every migration) and on a schedule: table by table, each ANALYZE bounded
// by analysis_limit (rows sampled per index, so its cost does not grow with the
// table), with a turn of the event loop between tables.
import type { Db } from "./client";
import type { Logger } from "../lib/logger";
import { nextTurn } from "../lib/slices";

/** Rows ANALYZE samples per index (SQLite's recommended range is 100-1000). */
export const ANALYSIS_LIMIT = 1000;

/** How often the gateway refreshes the statistics (and once at start). */
export const OPTIMIZE_EVERY_MS = 6 * 60 * 60 * 1000;

export async function optimizeDatabase(deps: { db: Db; logger?: Logger }, opts: { stopped?: () => boolean } = {}): Promise<void> {
  const c = deps.db.$client;
  c.run(`PRAGMA analysis_limit = ${ANALYSIS_LIMIT}`);
  const tables = c
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
    .all()
    .map((r) => r.name);
  for (const t of tables) {
    if (opts.stopped?.()) return;
    c.run(`ANALYZE "${t.replace(/"/g, '""')}"`);
    await nextTurn();
  }
  // Lets SQLite note what it learned (e.g. drop stale entries); cheap once the tables are analyzed.
  c.run("PRAGMA optimize");
}
