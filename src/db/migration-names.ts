/** A migration file: four digits, an underscore, lower-case words (e.g. 0003_payout_balances.sql). */
export const MIGRATION_FILE = /^(\d{4})_[a-z0-9_]+\.sql$/;

/** PostgreSQL's first migration: today's whole schema (SQLite's migrations through 0345) in one file. */
export const PG_BASELINE = "0345_baseline";

/**
 * The migration numbers that break the pairing rule (DESIGN 22): after PostgreSQL's baseline
 * every number exists in migrations/sqlite/ and migrations/pg/ (the same change, each in its
 * engine's SQL); before it, PostgreSQL has the baseline only. Empty when the folders agree.
 */
export function unpairedNumbers(sqlite: readonly string[], pg: readonly string[]): string[] {
  const base = PG_BASELINE.slice(0, 4);
  const num = (name: string) => name.slice(0, 4);
  const lite = new Set(sqlite.map(num).filter((n) => n > base));
  const pgAfter = new Set(pg.map(num).filter((n) => n > base));
  const out: string[] = [];
  for (const n of pg.filter((m) => m !== PG_BASELINE).map(num)) if (n <= base) out.push(`${n} (pg, at or before the baseline)`);
  for (const n of lite) if (!pgAfter.has(n)) out.push(`${n} (sqlite only)`);
  for (const n of pgAfter) if (!lite.has(n)) out.push(`${n} (pg only)`);
  return out.sort();
}
