// PostgreSQL's migrations on the real server (src/testing/postgres.ts): gateways starting together
// migrate once, an edited migration is refused before any change, and the migrated database is
// exactly src/db/schema-pg.ts (columns, types, nullability and indexes from the catalog).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import { pgMigrations } from "../../migrations/pg";
import { createTestDatabase, type TestDatabase } from "../testing/postgres";
import { checksum, MigrationError } from "./migrate";
import { appliedPgMigrations, migratePg } from "./migrate-pg";
import * as schema from "./schema-pg";

const open: SQL[] = [];
function client(url: string, max = 4): SQL {
  const s = new SQL({ url, max });
  open.push(s);
  return s;
}
afterAll(async () => {
  for (const s of open) await s.close();
});

const extra = { name: "9001_test_column", sql: "ALTER TABLE settings ADD COLUMN test_note text;" };

describe("migrations on PostgreSQL", () => {
  test("two runners started together migrate once (advisory lock), in order, each migration recorded with its checksum", async () => {
    const db = await createTestDatabase({ empty: true });
    const a = client(db.url);
    const b = client(db.url);
    const list = [...pgMigrations, extra];
    const counts = await Promise.all([migratePg(a, list), migratePg(b, list)]);
    expect(counts.sort()).toEqual([0, list.length]);
    const applied = await appliedPgMigrations(a);
    expect(applied).toEqual(list.map((m) => ({ name: m.name, checksum: checksum(m.sql) })));
    expect(await migratePg(a, list)).toBe(0);
  });

  test.each([
    ["an applied migration whose file was edited afterwards", [...pgMigrations, { ...extra, sql: extra.sql + "\n-- edited" }], /^migrations\/pg\/9001_test_column\.sql differs from the one applied/],
    ["a database a newer release migrated", pgMigrations, /newer than this stablegate.*9001_test_column/],
  ])("refuses %s, changing nothing", async (_, list, message) => {
    const db = await createTestDatabase({ empty: true });
    const s = client(db.url);
    await migratePg(s, [...pgMigrations, extra]);
    const before = await appliedPgMigrations(s);
    const err = await migratePg(s, [...list, { name: "9002_more", sql: "CREATE TABLE more_rows (id bigint);" }]).catch((e) => e);
    expect(err).toBeInstanceOf(MigrationError);
    expect(String(err.message)).toMatch(message);
    expect(await appliedPgMigrations(s)).toEqual(before);
    expect((await s`SELECT to_regclass('more_rows') AS t`)[0].t).toBeNull();
  });

  test("refuses a database with tables but no migration record (not a stablegate database)", async () => {
    const db = await createTestDatabase({ empty: true });
    const s = client(db.url);
    await s`CREATE TABLE someone_elses (id int)`;
    expect(migratePg(s)).rejects.toThrow(/not a stablegate database/);
  });
});

describe("the migrated PostgreSQL database is schema-pg.ts", () => {
  let db: TestDatabase;
  let s: SQL;
  beforeAll(async () => {
    db = await createTestDatabase();
    s = client(db.url);
  });

  test("every table and column, with its type and nullability, and nothing else", async () => {
    const rows = (await s`
      SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name IN (SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE')
      ORDER BY table_name, column_name`) as { table_name: string; column_name: string; data_type: string; is_nullable: string }[];
    const have = rows.filter((r) => r.table_name !== "schema_migrations").map((r) => `${r.table_name}.${r.column_name} ${r.data_type}${r.is_nullable === "NO" ? " not null" : ""}`);
    const want: string[] = [];
    for (const value of Object.values(schema)) {
      if (!(value instanceof PgTable)) continue;
      const t = getTableConfig(value);
      const pk = new Set(t.primaryKeys.flatMap((k) => k.columns.map((c) => c.name)));
      for (const c of t.columns) want.push(`${t.name}.${c.name} ${c.getSQLType()}${c.notNull || c.primary || pk.has(c.name) ? " not null" : ""}`);
    }
    expect(have).toEqual(want.sort());
  });

  test("every index schema-pg.ts declares, unique where it says so", async () => {
    const rows = (await s`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'`) as { indexname: string; indexdef: string }[];
    const have = new Map(rows.map((r) => [r.indexname, r.indexdef]));
    for (const value of Object.values(schema)) {
      if (!(value instanceof PgTable)) continue;
      const t = getTableConfig(value);
      for (const idx of t.indexes) {
        const def = have.get(idx.config.name ?? "");
        expect(def, `index ${idx.config.name} on ${t.name}`).toBeDefined();
        expect(def!.startsWith("CREATE UNIQUE INDEX"), `${idx.config.name} unique`).toBe(!!idx.config.unique);
      }
    }
  });

  test("the ledger trigger keeps a balance exactly past 2^64 (hi/lo split as on SQLite)", async () => {
    const now = Date.now();
    await s`INSERT INTO merchants (uid, name, created_at, updated_at) VALUES ('m1', 'M', ${now}, ${now})`;
    const [m] = await s`SELECT id FROM merchants WHERE uid = 'm1'`;
    await s`INSERT INTO addresses (id, merchant_id, chain, kind, derivation_index, address, created_at) VALUES ('a1', ${m.id}, 'bsc', 'exclusive', 0, '0xabc', ${now})`;
    const big = "123456789012345678901234567"; // > 2^64 base units
    const row = { address_id: "a1", chain: "bsc", token: "USDT", kind: "deposit", amount: big, ref_type: "transfer", ref_id: "1", created_at: now };
    await s`INSERT INTO ledger_entries ${s(row)}`;
    await s`INSERT INTO ledger_entries ${s({ ...row, kind: "adjustment", amount: "-1", ref_id: "2" })}`;
    const [b] = await s`SELECT hi, lo, entries, merchant_id FROM address_balances WHERE address_id = 'a1'`;
    expect((BigInt(b.hi) * 10n ** 12n + BigInt(b.lo)).toString()).toBe((BigInt(big) - 1n).toString());
    expect(Number(b.entries)).toBe(2);
    expect(Number(b.merchant_id)).toBe(Number(m.id));
    const [w] = await s`SELECT watch_seq FROM addresses WHERE id = 'a1'`;
    expect(Number(w.watch_seq)).toBe(1);
  });
});
