// Hand-written statements on either engine (the back office's keyset lists and search build their
// SQL as text so the query-plan tests EXPLAIN exactly what runs). `?` placeholders; on PostgreSQL
// each becomes a bound parameter of drizzle's `sql` on the caller's transaction or the pool
// (db/engine.ts pgOf). Integers come back as numbers on both engines only where the caller says so:
// PostgreSQL's bigint arrives as a string, so callers Number() the columns they read.
import { type SQL, sql } from "drizzle-orm";
import { dbForSql, type DbOrTx } from "./client";
import { isPg, pgOf } from "./engine";

/** Sees every hand-written PostgreSQL statement built here (the plan tests EXPLAIN what ran); none in production. */
export const pgStatementTrace: { on: ((text: string, params: readonly unknown[]) => void) | null } = { on: null };

/** `text` with its `?` placeholders bound to `params`, as a drizzle SQL for PostgreSQL. */
export function pgStatement(text: string, params: readonly unknown[]): SQL {
  pgStatementTrace.on?.(text, params);
  const parts = text.split("?");
  if (parts.length !== params.length + 1) throw new Error(`pgStatement: ${parts.length - 1} placeholders, ${params.length} parameters`);
  const chunks: SQL[] = [sql.raw(parts[0]!)];
  params.forEach((p, i) => chunks.push(sql`${p}`, sql.raw(parts[i + 1]!)));
  return sql.join(chunks);
}

/** Every row of a statement. */
export async function rawAll<T>(db: DbOrTx, text: string, params: readonly unknown[] = []): Promise<T[]> {
  if (isPg(db)) return (await pgOf(db).execute(pgStatement(text, params))) as unknown as T[];
  return dbForSql(db, text).$client.query<T, never[]>(text).all(...(params as never[]));
}

/** The first row of a statement, if any. */
export async function rawGet<T>(db: DbOrTx, text: string, params: readonly unknown[] = []): Promise<T | undefined> {
  return (await rawAll<T>(db, text, params))[0];
}
