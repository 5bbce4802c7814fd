// One SQLite connection per process (bun:sqlite is synchronous, so it is also
// the single writer); pragmas set here and only here.
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { eq, getTableName, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import * as schema from "./schema";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };
/**
 * The handle a transaction callback receives. With one connection a transaction
 * is simply "the database while BEGIN is open", so it is the same handle.
 */
export type Tx = Db;
/** Services take this so they compose inside a caller's transaction. */
export type DbOrTx = Db;

export const PRAGMAS = [
  "PRAGMA journal_mode = WAL",
  // FULL: a committed payment or payout survives power loss, not only a crash.
  "PRAGMA synchronous = FULL",
  "PRAGMA foreign_keys = ON",
  // Another process (backup, CLI while serving) may hold the lock briefly.
  "PRAGMA busy_timeout = 5000",
  "PRAGMA temp_store = MEMORY",
];

export function openDb(path: string): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { create: true, strict: true });
  for (const p of PRAGMAS) sqlite.run(p);
  return drizzle({ client: sqlite, schema }) as Db;
}

/** A read-only connection (checks that must not touch the file, e.g. a master key before use). */
export function openReadonlyDb(path: string): Db {
  const sqlite = new Database(path, { readonly: true, strict: true });
  sqlite.run("PRAGMA busy_timeout = 5000");
  return drizzle({ client: sqlite, schema }) as Db;
}

/**
 * A write transaction that takes the write lock up front (no upgrade deadlocks).
 * Inside an open transaction (e.g. a request that records its nonce and its
 * order in one commit) it joins that transaction instead of nesting.
 */
export function writeTx<T>(db: Db, fn: (tx: Tx) => T): T {
  if (db.$client.inTransaction) return fn(db);
  return db.$client.transaction(() => fn(db)).immediate();
}

const preparedCache = new WeakMap<Database, Map<string, unknown>>();

/** A statement built once per connection (hot paths: drizzle builds SQL on every call otherwise). */
export function prepared<T>(db: Db, name: string, build: (db: Db) => T): T {
  let m = preparedCache.get(db.$client);
  if (!m) preparedCache.set(db.$client, (m = new Map()));
  let s = m.get(name) as T | undefined;
  if (s === undefined) m.set(name, (s = build(db)));
  return s;
}

/**
 * UPDATE … SET <the columns of `set`> WHERE id = ? RETURNING *, as a statement
 * built once per (table, set of columns): the funnels that patch rows with
 * varying columns (status changes) skip drizzle's query building per call.
 */
export function updateById<Row>(db: Db, table: SQLiteTable & { id: SQLiteColumn }, id: number, set: Record<string, unknown>): Row | undefined {
  const keys = Object.keys(set).filter((k) => set[k] !== undefined).sort();
  const name = `updateById:${getTableName(table)}:${keys.join(",")}`;
  const stmt = prepared(db, name, (d) =>
    d
      .update(table)
      .set(Object.fromEntries(keys.map((k) => [k, sql.placeholder(k)])) as never)
      .where(eq(table.id, sql.placeholder("__id")))
      .returning()
      .prepare(),
  );
  const params: Record<string, unknown> = { __id: id };
  for (const k of keys) params[k] = set[k];
  return (stmt as unknown as { get(p: Record<string, unknown>): Row | undefined }).get(params);
}
