// Engine-neutral reads of whole tables for tests (docs/testing.md "Both engines"): the rows of a
// table named by its SQLite schema object, optionally those whose columns equal `match` (by field
// name), in insertion order (byId). On PostgreSQL the same table of schema-pg.ts is read
// through the seam (pgOf), so one test body checks both engines without `db.select` on a PG handle.
import { and, asc, eq, getTableColumns, getTableName, is, sql, type SQL } from "drizzle-orm";
import { PgTable } from "drizzle-orm/pg-core";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/client";
import { isPg, pgOf } from "../db/engine";
import * as pgSchema from "../db/schema-pg";

const pgTables = new Map<string, PgTable>();
for (const t of Object.values(pgSchema)) if (is(t, PgTable)) pgTables.set(getTableName(t), t);

function where(table: SQLiteTable | PgTable, match: Record<string, unknown>): SQL | undefined {
  const cols = getTableColumns(table) as Record<string, never>;
  const conds = Object.entries(match).map(([k, v]) => {
    if (!(k in cols)) throw new Error(`tableRows: ${getTableName(table)} has no column ${k}`);
    return eq(cols[k], v as never);
  });
  return conds.length ? and(...conds) : undefined;
}

/**
 * Insertion order: the integer id; a table keyed otherwise (a text id is a hash) in SQLite's rowid
 * order, on PostgreSQL (no rowid) by its insert sequence where it has one (callbacks.seq), else by
 * creation time.
 */
const byId = (table: SQLiteTable | PgTable) => {
  const cols = getTableColumns(table) as Record<string, { dataType: string }>;
  if (cols.id?.dataType === "number") return [asc(cols.id as never)];
  if (!is(table, PgTable)) return [sql`rowid`];
  if (cols.seq) return [asc(cols.seq as never)];
  return cols.createdAt ? [asc(cols.createdAt as never)] : [];
};

/** Every row of `table` (those matching `match`), on the handle's engine. */
export async function tableRows<T extends SQLiteTable>(db: Db, table: T, match: Partial<T["$inferSelect"]> = {}): Promise<T["$inferSelect"][]> {
  if (!isPg(db)) return db.select().from(table as SQLiteTable).where(where(table, match)).orderBy(...byId(table)).all() as T["$inferSelect"][];
  const pt = pgTables.get(getTableName(table));
  if (!pt) throw new Error(`tableRows: no PostgreSQL table ${getTableName(table)}`);
  return (await pgOf(db).select().from(pt).where(where(pt, match)).orderBy(...byId(pt))) as T["$inferSelect"][];
}

/** The first row of `table` matching `match` (undefined: none). */
export async function tableRow<T extends SQLiteTable>(db: Db, table: T, match: Partial<T["$inferSelect"]>): Promise<T["$inferSelect"] | undefined> {
  return (await tableRows(db, table, match))[0];
}

/** Inserts fixture rows into `table` on the handle's engine (the rows a contract test builds on), returning them. */
export async function insertRows<T extends SQLiteTable>(db: Db, table: T, rows: T["$inferInsert"][]): Promise<T["$inferSelect"][]> {
  if (rows.length === 0) return [];
  if (!isPg(db)) return db.insert(table as SQLiteTable).values(rows as never).returning().all() as T["$inferSelect"][];
  const pt = pgTables.get(getTableName(table));
  if (!pt) throw new Error(`insertRows: no PostgreSQL table ${getTableName(table)}`);
  return (await pgOf(db).insert(pt).values(rows as never).returning()) as T["$inferSelect"][];
}
