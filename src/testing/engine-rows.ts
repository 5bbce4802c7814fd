// Rows written and read directly on either engine, for tests that seed or inspect tables below the
// services (docs/testing.md "Both engines"): a table is named by its db/schema.ts object; on
// PostgreSQL the same-named table of db/schema-pg.ts is used (the row types are identical).
// Their writes are fixtures: on SQLite each runs in a transaction of its own (src/testing/seed.ts),
// which the strict write check (src/testing/strict-writes.ts) allows; inside a transaction body it joins it.
import { and, asc, eq, getTableColumns, inArray, is, sql, type SQL } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { PgTable } from "drizzle-orm/pg-core";
import type { Db } from "../db/client";
import { isPg, pgOf } from "../db/engine";
import * as sqliteSchema from "../db/schema";
import * as pgSchema from "../db/schema-pg";
import { seedRows } from "./seed";

function pgTwin(table: SQLiteTable): PgTable & Record<string, unknown> {
  const name = Object.entries(sqliteSchema).find(([, v]) => v === table)?.[0];
  const twin = name ? (pgSchema as Record<string, unknown>)[name] : undefined;
  if (!twin) throw new Error("engine-rows: not a table of db/schema.ts");
  return twin as PgTable & Record<string, unknown>;
}

/** Inserts the rows (in batches: PostgreSQL takes at most 65535 parameters a statement); the rows as stored. */
export async function insertRows<T extends SQLiteTable>(db: Db, table: T, rows: T["$inferInsert"][]): Promise<T["$inferSelect"][]> {
  const out: T["$inferSelect"][] = [];
  for (let i = 0; i < rows.length; i += 500) {
    const batch = rows.slice(i, i + 500);
    if (isPg(db)) out.push(...((await pgOf(db).insert(pgTwin(table)).values(batch as never[]).returning()) as T["$inferSelect"][]));
    else out.push(...(await seedRows(db, (tx) => tx.insert(table).values(batch as never[]).returning().all() as T["$inferSelect"][])));
  }
  return out;
}

function matching(table: SQLiteTable | PgTable, match: Record<string, unknown>): SQL | undefined {
  const cols = getTableColumns(table) as Record<string, never>;
  const conds = Object.entries(match).map(([k, v]) => {
    if (!(k in cols)) throw new Error(`engine-rows: the table has no column ${k}`);
    return eq(cols[k], v as never);
  });
  return conds.length ? and(...conds) : undefined;
}

/**
 * Insertion order: the integer id; a table keyed otherwise (a text id is a hash) in SQLite's rowid
 * order, on PostgreSQL (no rowid) by its insert sequence where it has one (callbacks.seq), else by
 * creation time.
 */
function insertionOrder(table: SQLiteTable | PgTable) {
  const cols = getTableColumns(table) as Record<string, { dataType: string }>;
  if (cols.id?.dataType === "number") return [asc(cols.id as never)];
  if (!is(table, PgTable)) return [sql`rowid`];
  if (cols.seq) return [asc(cols.seq as never)];
  return cols.createdAt ? [asc(cols.createdAt as never)] : [];
}

/** The rows whose columns equal `match` (by field name; none: every row), in insertion order. */
export async function tableRows<T extends SQLiteTable>(db: Db, table: T, match: Partial<T["$inferSelect"]> = {}): Promise<T["$inferSelect"][]> {
  if (!isPg(db)) return db.select().from(table as SQLiteTable).where(matching(table, match)).orderBy(...insertionOrder(table)).all() as T["$inferSelect"][];
  const t = pgTwin(table);
  return (await pgOf(db).select().from(t).where(matching(t, match)).orderBy(...insertionOrder(t))) as T["$inferSelect"][];
}

/** The first row matching `match` (undefined: none). */
export async function tableRow<T extends SQLiteTable>(db: Db, table: T, match: Partial<T["$inferSelect"]>): Promise<T["$inferSelect"] | undefined> {
  return (await tableRows(db, table, match))[0];
}

/** Every row of the table. */
export async function allRows<T extends SQLiteTable>(db: Db, table: T): Promise<T["$inferSelect"][]> {
  if (isPg(db)) return (await pgOf(db).select().from(pgTwin(table))) as T["$inferSelect"][];
  return db.select().from(table).all() as T["$inferSelect"][];
}

/** Deletes the rows whose `column` (a key of the row) is one of `values`. */
export async function deleteRows<T extends SQLiteTable>(db: Db, table: T, column: keyof T["$inferSelect"] & string, values: unknown[]): Promise<void> {
  if (isPg(db)) {
    const t = pgTwin(table);
    await pgOf(db).delete(t).where(inArray(t[column] as never, values));
    return;
  }
  await seedRows(db, (tx) => void tx.delete(table).where(inArray((table as unknown as Record<string, never>)[column], values)).run());
}

/** Writes `set` on the rows whose `column` equals `value`. */
export async function updateRows<T extends SQLiteTable>(db: Db, table: T, set: Partial<T["$inferInsert"]>, column: keyof T["$inferSelect"] & string, value: unknown): Promise<void> {
  if (isPg(db)) {
    const t = pgTwin(table);
    await pgOf(db).update(t).set(set as never).where(eq(t[column] as never, value));
    return;
  }
  await seedRows(db, (tx) => void tx.update(table).set(set as never).where(eq((table as unknown as Record<string, never>)[column], value)).run());
}

/**
 * Runs one statement written with drizzle's `sql` (snake_case columns, portable SQL) on either
 * engine and returns its rows: for a test's set-up that no store offers (a row put in a state
 * another gateway or an earlier run would leave). Reads of what a test checks go through stores.
 */
export async function testSql<T = Record<string, unknown>>(db: Db, q: SQL): Promise<T[]> {
  if (isPg(db)) {
    try {
      return (await pgOf(db).execute(q)) as unknown as T[];
    } catch (e) {
      // drizzle's "Failed query" wrapper: the server's own error (a trigger's message) is its cause.
      throw (e as { cause?: unknown }).cause ?? e;
    }
  }
  if (readsOnly(db, q)) return db.all(q) as T[];
  return await seedRows(db, (tx) => tx.all(q) as T[]);
}

/** A statement that only reads (SELECT, or a WITH holding no write): it stays on the read connection, outside any transaction. */
function readsOnly(db: Db, q: SQL): boolean {
  const text = (db as unknown as { dialect: { sqlToQuery(q: SQL): { sql: string } } }).dialect.sqlToQuery(q).sql.trimStart();
  return /^select\b/i.test(text) || (/^with\b/i.test(text) && !/\b(insert|update|delete|replace)\b/i.test(text));
}
