// Append-only migrations (DESIGN 16). Every numbered file in migrations/ runs
// once, in order, inside one write transaction per file; its checksum is
// stored, so an edited migration or a database made by a newer release stops
// start-up with a message naming what is wrong instead of a half-upgrade.
import type { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { migrations as embedded, type EmbeddedMigration } from "../../migrations/index";
import type { Db } from "./client";
import { cacheTriggersInstalled, installCacheTriggers } from "./cache-version";
import { AUDIT_APPEND_ONLY } from "./audit-triggers";

export const NEWER_SCHEMA = "the database schema is newer than this stablegate; install the newer release";

/** A database this build must not open; the message says why and what to do. */
export class MigrationError extends Error {
  override name = "MigrationError";
}

/** Line endings folded so a checkout with CRLF conversion keeps the same checksum. */
export function checksum(sql: string): string {
  return createHash("sha256").update(sql.replace(/\r\n/g, "\n")).digest("hex");
}

/** Applies pending migrations; returns how many ran. Throws MigrationError on a database it must not touch. */
export async function migrate(db: Db, list: readonly EmbeddedMigration[] = embedded): Promise<number> {
  const client = db.$client;
  const { pending, adopt } = plan(client, list);
  if (!pending.length && !adopt && cacheTriggersInstalled(client)) {
    appendOnly(client);
    return 0;
  }
  client.transaction(() => {
    client.run("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY NOT NULL, checksum TEXT NOT NULL, applied_at INTEGER NOT NULL)");
    if (adopt) client.run("INSERT INTO schema_migrations (name, checksum, applied_at) VALUES (?, ?, ?)", [adopt.name, adopt.checksum, adopt.appliedAt]);
  }).immediate();
  for (const m of pending) {
    client.transaction(() => {
      client.run(m.sql);
      client.run("INSERT INTO schema_migrations (name, checksum, applied_at) VALUES (?, ?, ?)", [m.name, checksum(m.sql), Date.now()]);
    }).immediate();
  }
  client.transaction(() => installCacheTriggers(client)).immediate();
  appendOnly(client);
  return pending.length;
}

/**
 * The migrations a database (a backup being checked) has applied, the drizzle-era baseline
 * counted as 0000_init; reads only. Throws MigrationError for one this build must not open.
 */
export function appliedMigrations(client: Database, list: readonly EmbeddedMigration[] = embedded): string[] {
  const { pending } = plan(client, list);
  const done = new Set(pending.map((m) => m.name));
  return list.filter((m) => !done.has(m.name)).map((m) => m.name);
}

interface Plan {
  pending: EmbeddedMigration[];
  /** The drizzle-era baseline, recorded as applied. */
  adopt?: { name: string; checksum: string; appliedAt: number };
}

/** What to run, after checking what was applied; reads only, so a refusal changes nothing. */
function plan(client: Database, list: readonly EmbeddedMigration[]): Plan {
  const applied = tableExists(client, "schema_migrations")
    ? client.query<{ name: string; checksum: string }, []>("SELECT name, checksum FROM schema_migrations ORDER BY name").all()
    : [];
  let adopt: Plan["adopt"];
  if (!applied.length) {
    adopt = drizzleBaseline(client, list);
    if (adopt) applied.push({ name: adopt.name, checksum: adopt.checksum });
    else if (userTables(client).length) {
      throw new MigrationError(`this database has tables (${userTables(client).slice(0, 3).join(", ")}) but no stablegate migration record: it is not a stablegate database`);
    }
  }
  return { pending: pendingAfter(applied, list, "sqlite"), adopt };
}

/**
 * The migrations of `list` a database has not applied, after refusing one it applied that this
 * build does not know (a newer release's) or whose file changed since (either engine's runner).
 */
export function pendingAfter(applied: readonly { name: string; checksum: string }[], list: readonly EmbeddedMigration[], folder: "sqlite" | "pg"): EmbeddedMigration[] {
  const known = new Map(list.map((m) => [m.name, m]));
  for (const row of applied) {
    const m = known.get(row.name);
    if (!m) throw new MigrationError(`${NEWER_SCHEMA} (it has migration ${row.name}, which this build does not know)`);
    if (checksum(m.sql) !== row.checksum) {
      throw new MigrationError(`migrations/${folder}/${row.name}.sql differs from the one applied to this database (checksum ${row.checksum.slice(0, 12)}…); a migration that has shipped must never be edited: restore the file and add a new migration`);
    }
  }
  const done = new Set(applied.map((r) => r.name));
  return list.filter((m) => !done.has(m.name));
}

/**
 * Databases made before numbered migrations carry drizzle's bookkeeping with
 * the hash of the one init file. The init of the baseline release is adopted
 * as 0000_init; any other hash was a pre-release schema, which no migration
 * path leads from.
 */
function drizzleBaseline(client: Database, list: readonly EmbeddedMigration[]): Plan["adopt"] {
  if (!tableExists(client, "__drizzle_migrations")) return undefined;
  const rows = client.query<{ hash: string; created_at: number }, []>("SELECT hash, created_at FROM __drizzle_migrations").all();
  const base = list[0];
  if (!rows.length) return undefined;
  if (!base || rows.length !== 1 || rows[0]!.hash !== createHash("sha256").update(base.sql).digest("hex")) {
    throw new MigrationError("this database was made by a pre-release stablegate whose schema predates the first release (migration baseline 0000_init); it cannot be upgraded in place: export what you need and start from `stablegate init`");
  }
  return { name: base.name, checksum: checksum(base.sql), appliedAt: Number(rows[0]!.created_at) };
}

function tableExists(client: Database, name: string): boolean {
  return !!client.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name);
}

function userTables(client: Database): string[] {
  return client
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT IN ('schema_migrations', '__drizzle_migrations') ORDER BY name")
    .all()
    .map((r) => r.name);
}

/** Invariants kept as triggers beside the migrations; idempotent. */
function appendOnly(client: Database): void {
  for (const stmt of AUDIT_APPEND_ONLY) client.run(stmt);
}
