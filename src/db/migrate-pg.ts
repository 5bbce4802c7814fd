// PostgreSQL's append-only migrations (DESIGN 16, 22): every file of migrations/pg/ runs once,
// in order, each in its own transaction (PostgreSQL's DDL is transactional), recorded with its
// checksum in schema_migrations as on SQLite. The whole run holds a session advisory lock, so
// gateways starting together against one database migrate once: the others wait, then find
// nothing pending. A changed checksum or an unknown applied name refuses before any change.
import type { SQL } from "bun";
import type { EmbeddedMigration } from "../../migrations/index";
import { pgMigrations } from "../../migrations/pg";
import { checksum, MigrationError, pendingAfter } from "./migrate";

/** pg_advisory_lock key of the migration run ("SGMIGR" in ASCII); no other lock of stablegate uses it. */
export const MIGRATION_LOCK_KEY = 0x5347_4d49_4752n;

/** Applies pending PostgreSQL migrations; returns how many ran. Throws MigrationError on a database it must not touch. */
export async function migratePg(sql: SQL, list: readonly EmbeddedMigration[] = pgMigrations): Promise<number> {
  const conn = await sql.reserve();
  try {
    await conn`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    try {
      const pending = await planPg(conn, list);
      for (const m of pending) {
        await conn.begin(async (tx) => {
          await tx.unsafe(m.sql);
          await tx`INSERT INTO schema_migrations (name, checksum, applied_at) VALUES (${m.name}, ${checksum(m.sql)}, ${Date.now()})`;
        });
      }
      return pending.length;
    } finally {
      await conn`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
    }
  } finally {
    void conn.release();
  }
}

/** The migrations a PostgreSQL database has applied, in order (reads only). */
export async function appliedPgMigrations(sql: SQL): Promise<{ name: string; checksum: string }[]> {
  if (!(await hasTable(sql, "schema_migrations"))) return [];
  return (await sql`SELECT name, checksum FROM schema_migrations ORDER BY name`) as { name: string; checksum: string }[];
}

/** What to run, after checking what was applied; a refusal changes nothing. */
async function planPg(sql: SQL, list: readonly EmbeddedMigration[]): Promise<EmbeddedMigration[]> {
  if (!(await hasTable(sql, "schema_migrations"))) {
    const tables = await userTables(sql);
    if (tables.length) throw new MigrationError(`this database has tables (${tables.slice(0, 3).join(", ")}) but no stablegate migration record: it is not a stablegate database`);
    await sql.unsafe("CREATE TABLE schema_migrations (name text PRIMARY KEY NOT NULL, checksum text NOT NULL, applied_at bigint NOT NULL)");
  }
  return pendingAfter(await appliedPgMigrations(sql), list, "pg");
}

async function hasTable(sql: SQL, name: string): Promise<boolean> {
  const rows = await sql`SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ${name}`;
  return rows.length > 0;
}

async function userTables(sql: SQL): Promise<string[]> {
  const rows = (await sql`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name`) as { table_name: string }[];
  return rows.map((r) => r.table_name);
}
