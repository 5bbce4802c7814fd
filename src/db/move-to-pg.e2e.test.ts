// `stablegate migrate-to-postgres` (DESIGN 22 "Moving") on the real server: a SQLite gateway
// database with real content (the upgrade fixture, made by the real services with rows in every
// state, upgraded by this build and then used by a gateway: merchants, pay-ins paid on the
// sandbox chains, callbacks delivered, a binding, a refund) is copied by the CLI into an empty
// PostgreSQL database; every table is then compared row by row through the two drizzle schemas.
// Refusals and a failure mid-copy leave nothing behind.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "./client";
import { migrate } from "./migrate";
import { acquireInstanceLock } from "./instance-lock";
import { MIGRATION_SEEDED, MoveRefused, moveSqliteToPg } from "./move-to-pg";
import { createTestDatabase, type TestDatabase } from "../testing/postgres";
import { compareEngines } from "../testing/compare-engines";
import { startTestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { startReceiver } from "../testing/receiver";
import { eventually } from "../testing/wait";
import { runCliAsync } from "../testing/process";
import { randomAddress } from "../wallet/hd";

const FIXTURES = join(import.meta.dir, "fixtures");
const dir = mkdtempSync(join(tmpdir(), "sg-move-"));
const source = join(dir, "data", "stablegate.db");
const masterKey = readFileSync(join(FIXTURES, "master.key"), "utf8").trim();
const dbs: TestDatabase[] = [];

async function emptyDatabase(): Promise<TestDatabase> {
  const d = await createTestDatabase({ empty: true });
  dbs.push(d);
  return d;
}

/** Rows per table (every base table but schema_migrations). */
async function counts(url: string): Promise<Record<string, number>> {
  const sql = new SQL({ url, max: 1 });
  try {
    const tables = (await sql`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations' ORDER BY 1`) as { table_name: string }[];
    const out: Record<string, number> = {};
    for (const { table_name } of tables) out[table_name] = Number(((await sql.unsafe(`SELECT count(*) AS n FROM "${table_name}"`)) as { n: string }[])[0]!.n);
    return out;
  } finally {
    await sql.close();
  }
}

/** The fixture, upgraded by this build, then used by a gateway of this build. */
async function buildSource(): Promise<void> {
  const { mkdirSync } = await import("node:fs");
  mkdirSync(join(dir, "data"), { recursive: true, mode: 0o700 });
  copyFileSync(join(FIXTURES, "baseline-0000.db"), source);
  const db = openDb(source);
  await migrate(db);
  db.$client.close();
  const rx = startReceiver();
  const gw = await startTestGateway({
    config: { database: { path: source }, chains: { TRON: { confirmations: 1 }, BSC: { confirmations: 1 } } },
    env: { STABLEGATE_MASTER_KEY: masterKey },
  });
  try {
    const sb = sandboxClient(gw.url);
    const orders: Awaited<ReturnType<typeof gw.client.createPayinOrder>>[] = [];
    for (const [i, chainCode] of (["TRON", "BSC", "TRON"] as const).entries()) {
      orders.push(await gw.client.createPayinOrder({ chainCode, tokenSymbol: "USDT", merchantOrderNo: `move-${i}`, amount: `${12 + i}.34`, notifyUrl: rx.url + "/cb" }));
    }
    for (const o of orders.slice(0, 2)) await sb.transfer({ chainCode: o.chainCode, tokenSymbol: "USDT", toAddress: o.address, amount: o.amount });
    await sb.mine("TRON", 2);
    await sb.mine("BSC", 2);
    await eventually(async () => (await gw.client.getPayinOrder(orders[0]!.orderNo)).status === "completed" && (await gw.client.getPayinOrder(orders[1]!.orderNo)).status === "completed", 20_000, "paid");
    await gw.client.createRefund(orders[0]!.orderNo, { refundNo: "move-r1", amount: "2.5", toAddress: randomAddress("TRON") });
    await gw.client.createExclusiveBinding({ chainCode: "TRON", tokenSymbol: "USDT", bindKey: "move-user", notifyUrl: rx.url + "/cb" });
    await rx.waitFor((r) => r.length >= 2, 20_000);
  } finally {
    await gw.stop();
    await rx.stop();
  }
}

beforeAll(async () => {
  await buildSource();
}, 120_000);

afterAll(async () => {
  for (const d of dbs) await d.drop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe("migrate-to-postgres", () => {
  test("the tables the PostgreSQL migrations give rows are MIGRATION_SEEDED", async () => {
    const d = await createTestDatabase();
    dbs.push(d);
    const c = await counts(d.url);
    expect(Object.keys(c).filter((t) => c[t]! > 0).sort()).toEqual([...MIGRATION_SEEDED].sort());
  });

  test("copies every table: the CLI prints the checks, and both engines hold the same rows", async () => {
    const d = await emptyDatabase();
    const r = await runCliAsync(["migrate-to-postgres", "--from", source, "--to", d.url], { ...(process.env as Record<string, string>), STABLEGATE_MASTER_KEY: masterKey });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/payin_orders\s+\d+\s+\d+\s+amount=\d+/);
    expect(r.stdout).toMatch(/copied \d+ rows in \d+ tables/);
    const sql = new SQL({ url: d.url, max: 2 });
    try {
      expect(await compareEngines(source, sql)).toEqual([]);
      // Identities continue after the copied ids; the triggers are back on.
      const [m] = (await sql`SELECT max(id)::bigint AS m FROM payin_orders`) as { m: string }[];
      const [n] = (await sql`SELECT nextval(pg_get_serial_sequence('payin_orders', 'id'))::bigint AS n`) as { n: string }[];
      expect(BigInt(n!.n)).toBeGreaterThan(BigInt(m!.m));
      const off = (await sql`SELECT tgname FROM pg_trigger WHERE NOT tgisinternal AND tgenabled <> 'O'`) as unknown[];
      expect(off).toEqual([]);
    } finally {
      await sql.close();
    }
  }, 120_000);

  test("a database that has rows is refused before anything is written", async () => {
    const d = await emptyDatabase();
    const sql = new SQL({ url: d.url, max: 2 });
    try {
      await moveSqliteToPg({ from: source, sql, url: d.url });
      const before = await counts(d.url);
      await expect(moveSqliteToPg({ from: source, sql, url: d.url })).rejects.toThrow(/is not empty \(rows in .*nothing was written/);
      expect(await counts(d.url)).toEqual(before);
    } finally {
      await sql.close();
    }
  }, 120_000);

  test("a failure mid-copy rolls everything back: no row is left behind", async () => {
    const d = await emptyDatabase();
    const sql = new SQL({ url: d.url, max: 2 });
    process.env.STABLEGATE_CRASH_AT = "fail:migrate-to-postgres.copied:payin_orders";
    try {
      await expect(moveSqliteToPg({ from: source, sql, url: d.url })).rejects.toThrow(/injected failure/);
    } finally {
      delete process.env.STABLEGATE_CRASH_AT;
      await sql.close();
    }
    const after = await counts(d.url);
    expect(Object.entries(after).filter(([t, n]) => n > 0 && !(MIGRATION_SEEDED as readonly string[]).includes(t))).toEqual([]);
    // The seeded rows are the migrations' again (the DELETE of them rolled back too).
    expect(after.cache_versions).toBe(1);
    expect(after.address_watch_seq).toBe(1);
  }, 120_000);

  test("a SQLite database a gateway serves is refused (the instance lock)", async () => {
    const d = await emptyDatabase();
    const lock = acquireInstanceLock(source);
    const sql = new SQL({ url: d.url, max: 1 });
    try {
      await expect(moveSqliteToPg({ from: source, sql, url: d.url })).rejects.toThrow(MoveRefused);
      await expect(moveSqliteToPg({ from: source, sql, url: d.url })).rejects.toThrow(/another stablegate is serving .*stop every gateway/);
    } finally {
      lock.release();
      await sql.close();
    }
    expect(await counts(d.url)).toEqual({});
  }, 60_000);
});
