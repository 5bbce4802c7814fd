import { createHash } from "node:crypto";
import { migrations } from "../../migrations/index";
import type { Db } from "./client";
import { cacheTriggersInstalled, installCacheTriggers } from "./cache-version";
import { AUDIT_APPEND_ONLY } from "./audit-triggers";

/** Applies pending embedded migrations (drizzle's own bookkeeping table). */
export function migrate(db: Db): number {
  const metas = migrations.map((m) => ({
    sql: m.sql.split("--> statement-breakpoint"),
    bps: m.breakpoints,
    folderMillis: m.when,
    hash: createHash("sha256").update(m.sql).digest("hex"),
  }));
  const client = db.$client;
  client.run(`CREATE TABLE IF NOT EXISTS __drizzle_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)`);
  const last = client.query<{ created_at: number }, []>(`SELECT created_at FROM __drizzle_migrations ORDER BY created_at DESC LIMIT 1`).get();
  const pending = metas.filter((m) => !last || Number(last.created_at) < m.folderMillis);
  if (!pending.length && cacheTriggersInstalled(client)) {
    appendOnly(db);
    return 0;
  }
  client.transaction(() => {
    for (const m of pending) {
      for (const stmt of m.sql) if (stmt.trim()) client.run(stmt);
      client.run(`INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)`, [m.hash, m.folderMillis]);
    }
    installCacheTriggers(client);
  }).immediate();
  appendOnly(db);
  return pending.length;
}

/** Invariants drizzle-kit cannot express (triggers); idempotent. */
function appendOnly(db: Db): void {
  for (const stmt of AUDIT_APPEND_ONLY) db.$client.run(stmt);
}
