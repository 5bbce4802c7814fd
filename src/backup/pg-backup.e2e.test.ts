// `backup` / `restore` on PostgreSQL (DESIGN 22 "Operations") on the real server, through the CLI:
// a gateway database with real content (the upgrade fixture moved by migrate-to-postgres) is
// backed up with pg_dump (0600, checked, the live generation moved on), dropped, and restored with
// pg_restore into the recreated database: the same rows, a new generation, reconcile on. A
// non-empty target and a foreign master key are refused, changing nothing; a backup put back by
// hand is recognised by the generation check.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../db/client";
import { migrate } from "../db/migrate";
import { moveSqliteToPg } from "../db/move-to-pg";
import { runPgTool } from "../db/pg-tools";
import { checkPgGeneration } from "../restore/pg-restore";
import { pgFolderMarker, pgGeneration } from "../restore/pg-store";
import { createTestDatabase, testCluster, type TestDatabase } from "../testing/postgres";
import { runCliAsync } from "../testing/process";

const FIXTURES = join(import.meta.dir, "..", "db", "fixtures");
const dir = mkdtempSync(join(tmpdir(), "sg-pgbackup-"));
const masterKey = readFileSync(join(FIXTURES, "master.key"), "utf8").trim();
const env: Record<string, string> = { ...(process.env as Record<string, string>), STABLEGATE_MASTER_KEY: masterKey };
delete env.STABLEGATE_CONFIG;
delete env.STABLEGATE_DATABASE_URL;
const dbs: TestDatabase[] = [];
let db: TestDatabase;
let configPath: string;
const backupFile = join(dir, "backups", "gateway.dump");
/** Changed by reconcile (or the backup's marker): compared apart. */
const RECONCILED = new Set(["settings", "reconcile_chains", "derivation_floors"]);

async function withSql<T>(url: string, fn: (sql: SQL) => Promise<T>): Promise<T> {
  const sql = new SQL({ url, max: 1 });
  try {
    return await fn(sql);
  } finally {
    await sql.close();
  }
}

/** Every table's rows as one digest (md5 of the rows' text in order). */
async function digests(url: string): Promise<Record<string, string>> {
  return await withSql(url, async (sql) => {
    const tables = (await sql`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`) as { table_name: string }[];
    const out: Record<string, string> = {};
    for (const { table_name: t } of tables) {
      if (RECONCILED.has(t)) continue;
      const [r] = (await sql.unsafe(`SELECT count(*)::text || ':' || coalesce(md5(string_agg(x::text, '|' ORDER BY x::text)), '') AS d FROM "${t}" x`)) as { d: string }[];
      out[t] = r!.d;
    }
    return out;
  });
}

async function admin(statement: string): Promise<void> {
  await withSql(await testCluster(), async (sql) => void (await sql.unsafe(statement)));
}

beforeAll(async () => {
  mkdirSync(join(dir, "data"), { recursive: true });
  const source = join(dir, "data", "stablegate.db");
  copyFileSync(join(FIXTURES, "baseline-0000.db"), source);
  const lite = openDb(source);
  await migrate(lite);
  lite.$client.close();
  db = await createTestDatabase({ empty: true });
  dbs.push(db);
  await withSql(db.url, async (sql) => {
    await moveSqliteToPg({ from: source, sql, url: db.url });
    // A gateway's first start on it sets the generation marker.
    await checkPgGeneration(sql, { indexGap: 1000, now: Date.now() });
  });
  configPath = join(dir, "stablegate.toml");
  writeFileSync(configPath, `[database]\nurl = "${db.url}"\n`);
}, 120_000);

afterAll(async () => {
  for (const d of dbs) await d.drop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe("backup and restore on PostgreSQL", () => {
  let before: Record<string, string>;
  let backupGeneration: string | null;
  const figures: string[] = [];

  test("backup --out: a checked pg_dump archive, 0600; the live database moves on to a new generation", async () => {
    backupGeneration = await withSql(db.url, pgGeneration);
    before = await digests(db.url);
    mkdirSync(join(dir, "backups"), { mode: 0o700 });
    const t0 = performance.now();
    const r = await runCliAsync(["backup", "--out", backupFile, "--config", configPath], env);
    figures.push(`backup ${((performance.now() - t0) / 1000).toFixed(2)} s`);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/rows: merchants=\d+ payin_orders=\d+/);
    expect(statSync(backupFile).mode & 0o777).toBe(0o600);
    const [live, marker] = await withSql(db.url, async (sql) => [await pgGeneration(sql), await pgFolderMarker(sql)]);
    expect(live).not.toBe(backupGeneration);
    expect(marker).toBe(live);
    // A second backup to the same name is refused; nothing else is left in the folder.
    const again = await runCliAsync(["backup", "--out", backupFile, "--config", configPath], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
    const verify = await runCliAsync(["backup", "--verify", backupFile, "--config", configPath], env);
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(/schema 0\d+_\w+ \(\d+ migrations\), integrity ok/);
  }, 120_000);

  test("restore --from into the recreated database: the same rows, a new generation, reconcile on", async () => {
    await db.drop();
    await admin(`CREATE DATABASE ${db.name} TEMPLATE template0`);
    const t0 = performance.now();
    const r = await runCliAsync(["restore", "--from", backupFile, "--config", configPath], env);
    figures.push(`restore ${((performance.now() - t0) / 1000).toFixed(2)} s`);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/reconcile: new addresses start 1000 HD indexes further on/);
    expect(await digests(db.url)).toEqual(before);
    await withSql(db.url, async (sql) => {
      const generation = await pgGeneration(sql);
      expect(generation).not.toBe(backupGeneration);
      expect(await pgFolderMarker(sql)).toBe(generation);
      const chains = (await sql`SELECT chain, gap_from::int AS f, gap_to::int AS t, generation FROM reconcile_chains`) as { f: number; t: number; generation: string }[];
      expect(chains.length).toBeGreaterThan(0);
      for (const c of chains) expect([c.t - c.f, c.generation]).toEqual([1000, generation!]);
      // The next start finds the markers equal: no second reconcile.
      expect((await checkPgGeneration(sql, { indexGap: 1000, now: Date.now() })).restored).toBe(false);
    });
    console.log(`figures: ${figures.join(", ")} (${Object.keys(before).length} tables)`);
  }, 120_000);

  test("restore into a database that has rows is refused, nothing changed", async () => {
    const now = await digests(db.url);
    const r = await runCliAsync(["restore", "--from", backupFile, "--config", configPath], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/restore refused: .*is not empty.*nothing was changed/);
    expect(r.stderr).not.toContain("postgres@"); // the URL is shown without its user and password
    expect(await digests(db.url)).toEqual(now);
  }, 60_000);

  test("a backup made under another master key is refused before the database is touched", async () => {
    const other = await createTestDatabase({ empty: true });
    dbs.push(other);
    const cfg = join(dir, "other.toml");
    writeFileSync(cfg, `[database]\nurl = "${other.url}"\n`);
    const r = await runCliAsync(["restore", "--from", backupFile, "--config", cfg], { ...env, STABLEGATE_MASTER_KEY: "another-master-key" });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot decrypt this backup's wallet seed/);
    expect(await withSql(other.url, async (sql) => (await sql`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = current_schema()`) as { n: number }[])).toEqual([{ n: 0 }]);
  }, 60_000);

  test("a backup put back by hand (pg_restore into a new database) starts in reconcile", async () => {
    const hand = await createTestDatabase({ empty: true });
    dbs.push(hand);
    await runPgTool("pg_restore", ["--no-owner", "--no-acl", "--exit-on-error", backupFile], hand.url);
    const check = await withSql(hand.url, async (sql) => await checkPgGeneration(sql, { indexGap: 1000, now: Date.now() }));
    expect(check.restored).toBe(true);
  }, 60_000);

  test("a file that is not a backup is refused by --verify and by restore", async () => {
    const junk = join(dir, "junk.dump");
    writeFileSync(junk, "PGDMP but not really");
    const v = await runCliAsync(["backup", "--verify", junk, "--config", configPath], env);
    expect(v.code).toBe(1);
    expect(v.stderr).toMatch(/not a usable backup: pg_restore cannot read/);
    expect(existsSync(junk)).toBe(true);
  }, 60_000);
});
