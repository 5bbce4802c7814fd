// In-memory caches of rows other processes may change (the CLI rotates a key
// or disables a merchant while the server runs) check one version number per
// use. Triggers keep it: every INSERT/UPDATE/DELETE on a watched table, from
// any connection, bumps it in the same transaction, so a cache can never see
// a change without seeing the new version. (Created after migrations on every
// open, so a watched table added later gets its triggers too.)
import type { Database } from "bun:sqlite";
import type { Db } from "./client";
import { eq } from "drizzle-orm";
import { firstRow, isPg, pgOf, pgSide } from "./engine";

const pgSchema = pgSide<typeof import("./schema-pg")>(() => require("./schema-pg"));

/** Cache name -> the tables whose changes invalidate it. */
const WATCHED: Record<string, string[]> = { auth: ["merchants", "api_keys"] };

/** Idempotent; runs after migrations on every open. */
export function installCacheTriggers(client: Database): void {
  for (const [name, tables] of Object.entries(WATCHED)) {
    client.run("INSERT OR IGNORE INTO cache_versions (name, version) VALUES (?, 0)", [name]);
    for (const t of tables) {
      for (const op of ["INSERT", "UPDATE", "DELETE"]) {
        client.run(
          `CREATE TRIGGER IF NOT EXISTS cache_${name}_${t}_${op.toLowerCase()} AFTER ${op} ON ${t}
           BEGIN UPDATE cache_versions SET version = version + 1 WHERE name = '${name}'; END`,
        );
      }
    }
  }
}

export function cacheTriggersInstalled(client: Database): boolean {
  const want = Object.values(WATCHED).reduce((n, t) => n + t.length * 3, 0);
  return client.query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'cache\\_%' ESCAPE '\\'").get()!.n === want;
}

/** A reader of one cache's version (a prepared statement built once). */
export function versionReader(db: Db, name: keyof typeof WATCHED): () => Promise<number> {
  // PostgreSQL: the same triggers (migrations/pg baseline); read per use, in the caller's transaction when there is one.
  if (isPg(db)) {
    const t = pgSchema.cacheVersions;
    return async () => Number((await firstRow(pgOf(db).select({ v: t.version }).from(t).where(eq(t.name, name))))?.v ?? -1);
  }
  const q = db.$client.prepare<{ version: number }, [string]>("SELECT version FROM cache_versions WHERE name = ?");
  return async () => q.get(name)?.version ?? -1;
}
