// Upgrades (DESIGN 16): every committed fixture database, made by an earlier release with rows in
// every state (scripts/make-upgrade-fixture.ts), is migrated by this build's `migrate` and served
// by its `serve` (child processes, real HTTP): migrations recorded, rows kept, the stored orders
// answer the signed merchant API as stored, the back office signs its user in.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { migrations } from "../../migrations/index";
import { runCli, startGatewayProcess, tempSetup, type TempSetup } from "../testing/process";
import { StablegateClient } from "../sdk/client";
import { backofficeSignIn } from "../testing/backoffice-client";
import { amountOf } from "../orders/amount";

type Obj = Record<string, any>;
interface Manifest {
  migrations: string[];
  merchant: { uid: string; apiKey: string };
  payins: Record<string, string>;
  payouts: Record<string, string>;
  users: Record<string, { username: string; password: string }>;
  counts: Record<string, number>;
}

const FIXTURES = join(import.meta.dir, "fixtures");
const NAMES = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".db"))
  .map((f) => f.slice(0, -3));
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A temp data folder holding a copy of the fixture and the fixtures' TEST-ONLY master key file. */
async function install(name: string): Promise<TempSetup> {
  // The fixture's chains: all three in sandbox mode, 3 confirmations (as the script made it).
  const s = await tempSetup(`[log]\nlevel = "warn"\n[chains.TRON]\nconfirmations = 3\nblock_time = "0s"\n[chains.BSC]\nconfirmations = 3\nblock_time = "0s"\n[chains.SOL]\nblock_time = "0s"`, { masterKey: null, init: false });
  dirs.push(s.dir);
  mkdirSync(join(s.dir, "data"), { recursive: true, mode: 0o700 });
  copyFileSync(join(FIXTURES, `${name}.db`), s.dbPath);
  copyFileSync(join(FIXTURES, "master.key"), join(s.dir, "data", "master.key"));
  return s;
}

const rows = <T>(path: string, sql: string, ...args: string[]): T[] => {
  const db = new Database(path, { readonly: true });
  try {
    return db.query(sql).all(...args) as T[];
  } finally {
    db.close();
  }
};
const countOf = (path: string, table: string) => rows<{ n: number }>(path, `SELECT count(*) AS n FROM "${table}"`)[0]!.n;

test("there is at least the baseline fixture", () => {
  expect(NAMES).toContain("baseline-0000");
});

describe.each(NAMES)("fixture %s", (name) => {
  const manifest = JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), "utf8")) as Manifest;

  test("migrate upgrades it with every row kept; serve answers its orders and signs its user in", async () => {
    const s = await install(name);
    const before = {
      payin: rows<Obj>(s.dbPath, "SELECT * FROM payin_orders WHERE order_no = ?", manifest.payins.completed)[0]!,
      payout: rows<Obj>(s.dbPath, "SELECT * FROM payout_orders WHERE order_no = ?", manifest.payouts.confirmed)[0]!,
    };

    const migrated = runCli(["migrate", "--config", s.configPath], s.env);
    expect(migrated.stderr).toBe("");
    expect(migrated.code).toBe(0);
    // The data folder made before markers existed is recognised, and its marker written.
    expect(JSON.parse(readFileSync(join(s.dir, "data", "data-folder.json"), "utf8")).database).toBe(s.dbPath);
    const applied = rows<{ name: string }>(s.dbPath, "SELECT name FROM schema_migrations ORDER BY name").map((r) => r.name);
    expect(applied).toEqual(migrations.map((m) => m.name));
    expect(applied.slice(0, manifest.migrations.length)).toEqual(manifest.migrations);
    // Every table the fixture had keeps its rows (a later migration that reshapes a table says so
    // here); bookkeeping tables a migration or start-up may add to (settings, migrations, cache
    // versions) aside.
    for (const [table, n] of Object.entries(manifest.counts)) {
      if (["schema_migrations", "settings", "cache_versions"].includes(table)) continue;
      expect({ table, n: countOf(s.dbPath, table) }).toEqual({ table, n });
    }

    const gw = await startGatewayProcess(s, { timeoutMs: 30_000 });
    try {
      const client = new StablegateClient({ baseUrl: s.url, merchantUid: manifest.merchant.uid, apiKey: manifest.merchant.apiKey });
      const payin = await client.request<Obj>("GET", `/openapi/payin/orders/${manifest.payins.completed}`);
      expect(payin).toMatchObject({ orderNo: before.payin.order_no, merchantOrderNo: before.payin.merchant_order_no, status: "completed", address: before.payin.address, txHash: before.payin.tx_hash });
      expect(payin.amount).toBe(amountOf(before.payin as { decimals: number }, before.payin.amount));
      const payout = await client.request<Obj>("GET", `/openapi/payout/orders/${manifest.payouts.confirmed}`);
      expect(payout).toMatchObject({ orderNo: before.payout.order_no, merchantOrderNo: before.payout.merchant_order_no, status: "confirmed", toAddress: before.payout.to_address, txHash: before.payout.tx_hash });
      expect(payout.amount).toBe(amountOf(before.payout as { decimals: number }, before.payout.amount));
      // Every stored order still answers, in the status the fixture left it (or later along its rules).
      for (const [status, orderNo] of Object.entries(manifest.payouts)) {
        expect((await client.request<Obj>("GET", `/openapi/payout/orders/${orderNo}`)).orderNo, status).toBe(orderNo);
      }
      for (const orderNo of Object.values(manifest.payins)) expect((await client.request<Obj>("GET", `/openapi/payin/orders/${orderNo}`)).orderNo).toBe(orderNo);

      const bo = await backofficeSignIn(s.url, manifest.users.operator!);
      const home = await bo.get("/backoffice");
      expect(home.status).toBe(200);
      // The disabled user stays out.
      await expect(backofficeSignIn(s.url, manifest.users.disabled!)).rejects.toThrow();
    } finally {
      expect(await gw.kill("SIGTERM")).toBe(0);
    }
    for (const table of ["merchants", "api_keys", "payin_orders", "payout_orders", "bindings", "backoffice_users", "payout_batches", "deny_list", "transfers"]) {
      expect({ table, n: countOf(s.dbPath, table) }).toEqual({ table, n: manifest.counts[table] });
    }
  }, 120_000);
});

