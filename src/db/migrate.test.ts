// Append-only migrations (DESIGN 16): what an upgrade meets, table by table.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { migrations } from "../../migrations/index";
import { openDb } from "./client";
import { checksum, migrate, MigrationError, NEWER_SCHEMA } from "./migrate";

const fresh = () => openDb(":memory:");
const names = (db: ReturnType<typeof fresh>) =>
  db.$client.query<{ name: string }, []>("SELECT name FROM schema_migrations ORDER BY name").all().map((r) => r.name);

/** A database as the drizzle-era releases left it: the init file plus drizzle's bookkeeping row. */
function drizzleEra(initSql: string) {
  const db = fresh();
  db.$client.run(initSql);
  db.$client.run("CREATE TABLE __drizzle_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)");
  db.$client.run("INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)", [createHash("sha256").update(initSql).digest("hex"), 1795374484498]);
  return db;
}

const extra = { name: "9001_test_column", sql: "ALTER TABLE merchants ADD COLUMN test_note TEXT;\nCREATE INDEX merchants_test_note ON merchants (test_note) WHERE test_note IS NOT NULL;" };

describe("migrate", () => {
  test("a fresh database gets every migration, recorded with its checksum, once", async () => {
    const db = fresh();
    expect(await migrate(db)).toBe(migrations.length);
    expect(names(db)).toEqual(migrations.map((m) => m.name));
    const row = db.$client.query<{ checksum: string }, [string]>("SELECT checksum FROM schema_migrations WHERE name = ?").get("0000_init")!;
    expect(row.checksum).toBe(checksum(migrations[0]!.sql));
    expect(await migrate(db)).toBe(0);
  });

  test("a new migration runs on a database that already has rows, and keeps them", async () => {
    const db = fresh();
    await migrate(db);
    db.$client.run("INSERT INTO merchants (uid, name, status, created_at, updated_at) VALUES ('M0000001', 'shop', 'active', 1, 1)");
    expect(await migrate(db, [...migrations, extra])).toBe(1);
    expect(db.$client.query("SELECT name, test_note FROM merchants").all()).toEqual([{ name: "shop", test_note: null }]);
    expect(names(db)).toContain(extra.name);
  });

  test("a database made by the drizzle-era baseline release is adopted without re-running its init", async () => {
    const db = drizzleEra(migrations[0]!.sql);
    db.$client.run("INSERT INTO merchants (uid, name, status, created_at, updated_at) VALUES ('M0000001', 'shop', 'active', 1, 1)");
    expect(await migrate(db)).toBe(migrations.length - 1);
    expect(names(db)).toEqual(migrations.map((m) => m.name));
    expect(db.$client.query("SELECT count(*) AS n FROM merchants").get()).toEqual({ n: 1 });
  });

  const refusals: [string, () => Promise<ReturnType<typeof fresh>>, readonly typeof migrations[number][], RegExp][] = [
    [
      "a database made by a newer release",
      async () => { const db = fresh(); await migrate(db, [...migrations, extra]); return db; },
      migrations,
      new RegExp(`^${NEWER_SCHEMA} \\(it has migration 9001_test_column`),
    ],
    [
      "an applied migration whose file was edited afterwards",
      async () => { const db = fresh(); await migrate(db, [...migrations, extra]); return db; },
      [...migrations, { ...extra, sql: extra.sql + "\n-- edited" }],
      /^migrations\/sqlite\/9001_test_column\.sql differs from the one applied/,
    ],
    [
      "a pre-release database (another init)",
      async () => drizzleEra("CREATE TABLE addresses (id INTEGER PRIMARY KEY);"),
      migrations,
      /made by a pre-release stablegate/,
    ],
    [
      "tables with no migration record (not a stablegate database)",
      async () => { const db = fresh(); db.$client.run("CREATE TABLE customers (id INTEGER)"); return db; },
      migrations,
      /not a stablegate database/,
    ],
  ];
  for (const [what, make, list, message] of refusals) {
    test(`refuses ${what}, and changes nothing`, async () => {
      const db = await make();
      const before = db.$client.query("SELECT type, name, sql FROM sqlite_master ORDER BY name").all();
      let err: unknown;
      try {
        await migrate(db, list);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(MigrationError);
      expect((err as Error).message).toMatch(message);
      const after = db.$client.query("SELECT type, name, sql FROM sqlite_master WHERE name <> 'schema_migrations' ORDER BY name").all();
      expect(after).toEqual(before.filter((r) => (r as { name: string }).name !== "schema_migrations"));
    });
  }

  test("a failing migration rolls back whole: no half-applied schema, not recorded", async () => {
    const db = fresh();
    await migrate(db);
    const bad = { name: "9002_broken", sql: "ALTER TABLE merchants ADD COLUMN half TEXT;\nCREATE TABLE broken (;" };
    await expect((async () => await migrate(db, [...migrations, bad]))()).rejects.toThrow();
    const cols = db.$client.query<{ name: string }, []>("PRAGMA table_info(merchants)").all().map((c) => c.name);
    expect(cols).not.toContain("half");
    expect(names(db)).not.toContain(bad.name);
  });
});
