// Rows written and read directly on either engine, for tests that seed or inspect tables below the
// services (docs/testing.md "Both engines"): a table is named by its db/schema.ts object; on
// PostgreSQL the same-named table of db/schema-pg.ts is used (the row types are identical).
import { eq, inArray } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { PgTable } from "drizzle-orm/pg-core";
import type { Db } from "../db/client";
import { isPg, pgOf } from "../db/engine";
import * as sqliteSchema from "../db/schema";
import * as pgSchema from "../db/schema-pg";

function pgTwin(table: SQLiteTable): PgTable & Record<string, unknown> {
  const name = Object.entries(sqliteSchema).find(([, v]) => v === table)?.[0];
  const twin = name ? (pgSchema as Record<string, unknown>)[name] : undefined;
  if (!twin) throw new Error("engine-rows: not a table of db/schema.ts");
  return twin as PgTable & Record<string, unknown>;
}

/** Inserts the rows (in batches: PostgreSQL takes at most 65535 parameters a statement). */
export async function insertRows<T extends SQLiteTable>(db: Db, table: T, rows: T["$inferInsert"][]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    const batch = rows.slice(i, i + 500);
    if (isPg(db)) await pgOf(db).insert(pgTwin(table)).values(batch as never[]);
    else db.insert(table).values(batch as never[]).run();
  }
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
  db.delete(table).where(inArray((table as unknown as Record<string, never>)[column], values)).run();
}

/** Writes `set` on the rows whose `column` equals `value`. */
export async function updateRows<T extends SQLiteTable>(db: Db, table: T, set: Partial<T["$inferInsert"]>, column: keyof T["$inferSelect"] & string, value: unknown): Promise<void> {
  if (isPg(db)) {
    const t = pgTwin(table);
    await pgOf(db).update(t).set(set as never).where(eq(t[column] as never, value));
    return;
  }
  db.update(table).set(set as never).where(eq((table as unknown as Record<string, never>)[column], value)).run();
}
