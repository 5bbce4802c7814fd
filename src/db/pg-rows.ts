// Hot reads on PostgreSQL without drizzle's select builder (issue 38, the signed GET): a table's
// columns as its field names (`order_no AS "orderNo", …`), built once, and the driver's values
// mapped as drizzle maps them (a bigint "number" column from its text). The statement goes through
// `db.execute(sql…)`: its text is fixed, so the connection's prepared statement is reused.
import { type Column, getTableColumns, sql, type SQL } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";

export interface PgRowReader<Row> {
  /** The SELECT list: every column aliased to its field name. */
  columns: SQL;
  /** The same list as text, for a statement of fixed text sent without drizzle (db/tx-pg.ts pgSend). */
  list: string;
  /** A raw row of that list as drizzle's select returns it. */
  decode(raw: Record<string, unknown>): Row;
}

export function pgRowReader<T extends PgTable>(table: T): PgRowReader<T["$inferSelect"]> {
  const cols = Object.entries(getTableColumns(table)).map(([field, col]) => ({ field, col: col as Column }));
  const list = cols.map(({ field, col }) => `"${col.name}" AS "${field}"`).join(", ");
  return {
    columns: sql.raw(list),
    list,
    decode(raw) {
      const row: Record<string, unknown> = {};
      for (const { field, col } of cols) {
        const v = raw[field];
        row[field] = v === null || v === undefined ? null : col.mapFromDriverValue(v);
      }
      return row as T["$inferSelect"];
    },
  };
}
