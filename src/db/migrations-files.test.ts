// The migrations folder as a release ships it: numbered, embedded, never edited,
// and agreeing with src/db/schema.ts (the types the code is written against).
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { migrations } from "../../migrations/index";
import { pgMigrations } from "../../migrations/pg";
import { openDb } from "./client";
import { checksum, migrate } from "./migrate";
import { MIGRATION_FILE, PG_BASELINE, unpairedNumbers } from "./migration-names";
import * as schema from "./schema";

const root = join(import.meta.dir, "../../migrations");
const sqlFiles = (engine: string) => readdirSync(join(root, engine)).filter((f) => f.endsWith(".sql")).sort();

/**
 * Checksums of migrations that have shipped. Append a line when a release
 * ships a new migration; a line never changes (edit a shipped file and this fails).
 */
const SHIPPED: Record<string, string> = {
  "0000_init": "d6f2ed38afb7de9e131a04cff5e24f341752848e2d1f1e6cfed75943d4064254",
};

describe("migrations folder", () => {
  test.each([
    ["sqlite", migrations],
    ["pg", pgMigrations],
  ] as const)("every file of migrations/%s is NNNN_topic.sql, numbers unique and ascending, and migrations/index.ts (pg.ts) embeds exactly these", (engine, list) => {
    const files = sqlFiles(engine);
    for (const f of files) expect(f).toMatch(MIGRATION_FILE);
    const numbers = files.map((f) => f.slice(0, 4));
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(list.map((m) => `${m.name}.sql`)).toEqual(files); // else: bun scripts/embed-migrations.ts
  });

  test("no migration outside the engine folders", () => {
    expect(readdirSync(root).filter((f) => f.endsWith(".sql"))).toEqual([]);
  });

  test("PostgreSQL starts from one baseline, and every later number exists for both engines", () => {
    expect(pgMigrations[0]?.name).toBe(PG_BASELINE);
    expect(unpairedNumbers(migrations.map((m) => m.name), pgMigrations.map((m) => m.name))).toEqual([]);
  });

  test.each([
    ["paired after the baseline", ["0345_detection_times", "0350_a"], [PG_BASELINE, "0350_a_pg"], []],
    ["a SQLite number PostgreSQL lacks", ["0345_detection_times", "0350_a"], [PG_BASELINE], ["0350 (sqlite only)"]],
    ["a PostgreSQL number SQLite lacks", ["0345_detection_times"], [PG_BASELINE, "0360_b"], ["0360 (pg only)"]],
    ["a PostgreSQL number at or before the baseline", ["0300_x", "0345_detection_times"], ["0300_x", PG_BASELINE], ["0300 (pg, at or before the baseline)"]],
  ])("the pairing rule: %s", (_, sqlite, pg, want) => {
    expect(unpairedNumbers(sqlite, pg)).toEqual(want);
  });

  test("shipped migrations are unchanged (the move to migrations/sqlite/ kept every checksum)", () => {
    for (const [name, sum] of Object.entries(SHIPPED)) {
      const m = migrations.find((x) => x.name === name);
      expect(m, `${name} is missing`).toBeDefined();
      expect(checksum(m!.sql), `migrations/${name}.sql was edited after it shipped`).toBe(sum);
    }
  });

  test("the migrated schema has every table, column and index src/db/schema.ts declares", async () => {
    const db = openDb(":memory:");
    await migrate(db);
    const c = db.$client;
    for (const value of Object.values(schema)) {
      if (!(value instanceof SQLiteTable)) continue;
      const t = getTableConfig(value);
      const cols = c.query<{ name: string; notnull: number }, []>(`PRAGMA table_info(${t.name})`).all();
      expect(cols.length, `table ${t.name}`).toBeGreaterThan(0);
      const have = new Map(cols.map((x) => [x.name, x]));
      for (const col of t.columns) {
        expect(have.has(col.name), `${t.name}.${col.name}`).toBe(true);
        expect(!!have.get(col.name)!.notnull || col.primary, `${t.name}.${col.name} NOT NULL`).toBe(col.notNull || col.primary);
      }
      const indexes = new Set(c.query<{ name: string }, []>(`PRAGMA index_list(${t.name})`).all().map((i) => i.name));
      for (const idx of t.indexes) expect(indexes.has(idx.config.name), `index ${idx.config.name} on ${t.name}`).toBe(true);
    }
  });
});
