// Row-by-row comparison of a SQLite database and a PostgreSQL one through the two drizzle schemas
// (schema.ts, schema-pg.ts: identical row types, src/db/schema-pg.test.ts): every table read
// whole through each engine's driver, in primary-key order, and compared as the objects the code
// sees. What migrate-to-postgres must leave behind is the same rows, value for value.
import type { SQL } from "bun";
import { Database } from "bun:sqlite";
import { asc, getTableColumns, getTableName, Table, type Column } from "drizzle-orm";
import { drizzle as drizzleLite } from "drizzle-orm/bun-sqlite";
import { drizzle as drizzlePg } from "drizzle-orm/bun-sql";
import { getTableConfig as liteConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { getTableConfig as pgConfig, type PgTable } from "drizzle-orm/pg-core";
import * as lite from "../db/schema";
import * as pg from "../db/schema-pg";

export interface TableDiff {
  table: string;
  sqliteRows: number;
  pgRows: number;
  /** The first differing rows (at most 3), as each engine returned them. */
  differences: { sqlite: unknown; pg: unknown }[];
}

function tablesOf<T extends Table>(schema: Record<string, unknown>): Map<string, T> {
  const out = new Map<string, T>();
  for (const v of Object.values(schema)) if (v instanceof Table) out.set(getTableName(v), v as T);
  return out;
}

/** The order both reads use: the primary key (declared on a column or on the table), else every column. */
function keyColumns(table: Table, config: { primaryKeys: { columns: Column[] }[] }): Column[] {
  const cols = Object.values(getTableColumns(table)) as Column[];
  const own = cols.filter((c) => c.primary);
  if (own.length) return own;
  if (config.primaryKeys[0]) return config.primaryKeys[0].columns;
  return cols;
}

/** Every table's differences (empty when the two databases hold the same rows). */
export async function compareEngines(sqlitePath: string, pgClient: SQL): Promise<TableDiff[]> {
  const client = new Database(sqlitePath, { readonly: true });
  try {
    const dl = drizzleLite({ client, schema: lite });
    const dp = drizzlePg({ client: pgClient, schema: pg });
    const pgTables = tablesOf<PgTable>(pg);
    const out: TableDiff[] = [];
    for (const [name, lt] of tablesOf<SQLiteTable>(lite)) {
      const pt = pgTables.get(name);
      if (!pt) throw new Error(`table ${name} is in schema.ts only`);
      const lk = keyColumns(lt, liteConfig(lt)).map((c) => asc(c));
      const pk = keyColumns(pt, pgConfig(pt)).map((c) => asc(c));
      const a = (await dl.select().from(lt).orderBy(...lk)) as unknown[];
      const b = (await dp.select().from(pt).orderBy(...pk)) as unknown[];
      const differences: TableDiff["differences"] = [];
      for (let i = 0; i < Math.max(a.length, b.length) && differences.length < 3; i++) {
        if (!Bun.deepEquals(a[i], b[i], true)) differences.push({ sqlite: a[i], pg: b[i] });
      }
      if (differences.length || a.length !== b.length) out.push({ table: name, sqliteRows: a.length, pgRows: b.length, differences });
    }
    return out;
  } finally {
    client.close();
  }
}
