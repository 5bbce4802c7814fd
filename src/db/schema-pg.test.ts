// One product, two engines (DESIGN 22): the PostgreSQL schema has exactly the SQLite schema's
// tables and columns, and every table's row types are identical, so the code is written once.
import { describe, expect, test } from "bun:test";
import { getTableColumns, getTableName, Table, type InferInsertModel, type InferSelectModel } from "drizzle-orm";
import * as lite from "./schema";
import * as pg from "./schema-pg";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type TableNames<S> = { [K in keyof S]: S[K] extends Table ? K : never }[keyof S];
type Lite = typeof lite;
type Pg = typeof pg;
/** The tables whose select or insert row differs between the engines (or that one engine lacks): must be none. */
type Differing = {
  [K in TableNames<Lite> | TableNames<Pg>]: K extends TableNames<Lite> & TableNames<Pg>
    ? [Equal<InferSelectModel<Lite[K]>, InferSelectModel<Pg[K]>>, Equal<InferInsertModel<Lite[K]>, InferInsertModel<Pg[K]>>] extends [true, true]
      ? never
      : K
    : K;
}[TableNames<Lite> | TableNames<Pg>];
// A type error here names the tables whose row types differ (tsc runs before every test run).
const differing: Record<Differing, true> = {};

function tables(schema: Record<string, unknown>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const value of Object.values(schema)) {
    if (!(value instanceof Table)) continue;
    out.set(getTableName(value), Object.values(getTableColumns(value) as Record<string, { name: string }>).map((c) => c.name).sort());
  }
  return out;
}

describe("schema-pg.ts is schema.ts on PostgreSQL", () => {
  test("every table's select and insert row types are identical (checked by tsc)", () => {
    expect(Object.keys(differing)).toEqual([]);
  });

  test("the same tables with the same column names", () => {
    const a = tables(lite);
    const b = tables(pg);
    expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
    for (const [name, cols] of a) expect(b.get(name), name).toEqual(cols);
  });

  test("the same keys exported, in the same order (a table added to one file only is caught by name)", () => {
    const names = (s: Record<string, unknown>) => Object.keys(s).filter((k) => s[k] instanceof Table);
    expect(names(pg)).toEqual(names(lite));
  });
});
