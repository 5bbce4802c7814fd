// The CLI with [database] url (DESIGN 22), as a user runs it, on the real PostgreSQL of the test
// run: `migrate` applies migrations/pg/ (once, then "up to date"), STABLEGATE_DATABASE_URL wins
// over the file, init, merchants, restore list/ack, wallet and energy; only serve --demo (a SQLite
// data folder) is refused. The other commands run through the engine-aware CLI suites
// (scripts/pg-suites.txt "The CLI"), backup/restore through src/backup/pg-backup.e2e.test.ts.
import { afterAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pgMigrations } from "../../migrations/pg";
import { BUN, ROOT, runCli, startGatewayProcess, tempSetups } from "../testing/process";
import { createTestDatabase } from "../testing/postgres";
import { eventually } from "../testing/wait";
import { sandboxClient } from "../testing/sandbox";
import { SANDBOX_TRON_ONLY } from "../testing/crash";
import { Cipher } from "../secrets/cipher";
import { keyFromString } from "../secrets/master-key";

const setup = tempSetups();
const clients: SQL[] = [];
afterAll(async () => {
  for (const c of clients) await c.close();
});

/** The CLI with `input` on stdin (wallet export-mnemonic asks for the key file's path). */
function runWithInput(args: string[], env: Record<string, string>, input: string) {
  const p = Bun.spawnSync([BUN, join(ROOT, "src/main.ts"), ...args], { cwd: ROOT, env, stdin: new TextEncoder().encode(input), stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

/** The database's URL with a password in it (trust auth ignores it), to prove it is never printed. */
const withPassword = (url: string) => url.replace("postgres://postgres@", "postgres://postgres:s3cret-pw@");

describe("stablegate on PostgreSQL: migrate, init, merchants, restore, wallet, energy", () => {
  test("migrate applies PostgreSQL's migrations once, then finds nothing to do; the password is never printed", async () => {
    const db = await createTestDatabase({ empty: true });
    const s = await setup("", { init: false });
    const url = withPassword(db.url);
    const env = { ...s.env, STABLEGATE_DATABASE_URL: url };
    const first = runCli(["migrate", "--config", s.configPath], env);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout.trim()).toBe(`migrated ${db.url.replace("postgres://postgres@", "postgres://")} (${pgMigrations.length} migration${pgMigrations.length === 1 ? "" : "s"} applied)`);
    expect(first.stdout + first.stderr).not.toContain("s3cret-pw");
    const again = runCli(["migrate", "--config", s.configPath], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("(up to date)");
    const c = new SQL(db.url);
    clients.push(c);
    expect((await c`SELECT name FROM schema_migrations ORDER BY name`).map((r: { name: string }) => r.name)).toEqual(pgMigrations.map((m) => m.name));
    expect(existsSync(s.dbPath)).toBe(false); // SQLite untouched
  });

  test("[database] url in the file works, and STABLEGATE_DATABASE_URL overrides it", async () => {
    const db = await createTestDatabase({ empty: true });
    const s = await setup("", { init: false });
    // The file's [database] section carries the url beside the path tempSetup writes there.
    writeFileSync(s.configPath, readFileSync(s.configPath, "utf8").replace(/(\[database\]\n)/, `$1url = "postgres://nobody@127.0.0.1:1/nothing"\n`));
    const wrong = runCli(["migrate", "--config", s.configPath], s.env);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.trim().split("\n")).toHaveLength(1);
    expect(wrong.stderr).toMatch(/^error: cannot migrate postgres:\/\/127\.0\.0\.1:1\/nothing: /);
    const right = runCli(["migrate", "--config", s.configPath], { ...s.env, STABLEGATE_DATABASE_URL: db.url });
    expect(right.code).toBe(0);
    expect(right.stdout).toContain(`/${db.name} (`);
  });

  test("restore list runs on PostgreSQL (restore/store.ts's PostgreSQL side): no unrecorded transfer, exit 0, no SQLite file", async () => {
    const db = await createTestDatabase();
    const s = await setup("", { init: false });
    const r = runCli(["restore", "list", "--json", "--config", s.configPath], { ...s.env, STABLEGATE_DATABASE_URL: db.url });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(existsSync(s.dbPath)).toBe(false);
  });

  test("init makes the key file beside the config and the sealed seed; a second init is refused changing nothing; merchant create/list/disable run on the database", async () => {
    const db = await createTestDatabase({ empty: true });
    const s = await setup("", { init: false });
    const env = { ...s.env, STABLEGATE_DATABASE_URL: db.url };
    delete (env as Record<string, string | undefined>).STABLEGATE_MASTER_KEY;
    const keyFile = join(dirname(s.configPath), "master.key");
    const init = runCli(["init", "--config", s.configPath], env);
    expect(init.stderr).toBe("");
    expect(init.code).toBe(0);
    expect(init.stdout).toContain(`master key:  ${keyFile} (new, mode 0600)`);
    expect(existsSync(keyFile)).toBe(true);
    const key = readFileSync(keyFile, "utf8");
    const c = new SQL(db.url);
    clients.push(c);
    const seed = (await c`SELECT value FROM settings WHERE key = 'wallet_seed'`)[0].value as string;
    const again = runCli(["init", "--config", s.configPath], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already has a wallet seed: this database is initialised (nothing was changed)");
    expect(readFileSync(keyFile, "utf8")).toBe(key);
    expect((await c`SELECT value FROM settings WHERE key = 'wallet_seed'`)[0].value).toBe(seed);
    const created = runCli(["merchant", "create", "--name", "Shop", "--json", "--config", s.configPath], env);
    expect(created.stderr).toBe("");
    const { merchantUid, apiKey } = JSON.parse(created.stdout) as { merchantUid: string; apiKey: string };
    expect(merchantUid).toMatch(/^M100\d{4}$/);
    expect(apiKey.length).toBeGreaterThan(20);
    const list = runCli(["merchant", "list", "--json", "--config", s.configPath], env);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ merchantUid, name: "Shop", status: "active" })]);
    expect(runCli(["merchant", "disable", merchantUid, "--config", s.configPath], env).stdout.trim()).toBe(`${merchantUid} disabled`);
    expect((await c`SELECT action FROM audit_log ORDER BY id`).map((r: { action: string }) => r.action)).toEqual(["merchant.create", "merchant.disable"]);
    expect(existsSync(s.dbPath)).toBe(false);
  }, 120_000);

  test("wallet export-mnemonic asks for the key file, refuses a wrong one naming the database, shows the seed once and audits it; wallet gas; energy status/stake/unstake through a serving gateway", async () => {
    const db = await createTestDatabase({ empty: true });
    const s = await setup(SANDBOX_TRON_ONLY.replace("[chains.TRON]\n", '[chains.TRON]\nenergy = { mode = "stake", fallback = "burn" }\n'), { init: false });
    s.env.STABLEGATE_DATABASE_URL = db.url;
    delete (s.env as Record<string, string | undefined>).STABLEGATE_MASTER_KEY;
    expect(runCli(["init", "--config", s.configPath], s.env).code).toBe(0);
    const keyFile = join(dirname(s.configPath), "master.key");
    const c = new SQL(db.url);
    clients.push(c);
    const exports = async () => (await c`SELECT actor FROM audit_log WHERE action = 'wallet.export_mnemonic'`).map((r: { actor: string }) => r.actor);

    const wrongKey = join(s.dir, "other.key");
    writeFileSync(wrongKey, "cd".repeat(32) + "\n");
    const wrong = runWithInput(["wallet", "export-mnemonic", "--config", s.configPath], s.env, wrongKey + "\n");
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`error: wrong master key: the key in ${wrongKey} does not open ${db.url.replace("postgres://postgres@", "postgres://")}; nothing was shown or changed`);
    expect(wrong.stdout).toBe("");
    expect(await exports()).toEqual([]);
    const shown = runWithInput(["wallet", "export-mnemonic", "--config", s.configPath], s.env, keyFile + "\n");
    expect(shown.code).toBe(0);
    const seedEnc = (await c`SELECT value FROM settings WHERE key = 'wallet_seed'`)[0].value as string;
    const words = new Cipher(keyFromString(readFileSync(keyFile, "utf8"))).decrypt(seedEnc);
    expect(shown.stdout).toBe(words + "\n");
    expect(await exports()).toEqual(["cli"]);

    const gas = JSON.parse(runCli(["wallet", "gas", "--json", "--config", s.configPath], s.env).stdout) as Array<{ chainCode: string; address: string }>;
    expect(gas.find((g) => g.chainCode === "TRON")).toMatchObject({ mode: "sandbox", address: expect.stringMatching(/^T/) });

    const gw = await startGatewayProcess(s);
    try {
      const status0 = runCli(["energy", "status", "--json", "--config", s.configPath], s.env);
      expect(status0.stderr).toBe("");
      const wallet = (JSON.parse(status0.stdout) as { address: string }).address;
      await sandboxClient(s.url).transfer({ chainCode: "TRON", tokenSymbol: "TRX", toAddress: wallet, amount: "500" });
      const staked = runCli(["energy", "stake", "--trx", "100", "--config", s.configPath], s.env);
      expect(staked.stderr).toBe("");
      expect(staked.stdout).toMatch(/^staked 100 TRX: [0-9a-f]{64}/);
      expect(JSON.parse(runCli(["energy", "status", "--json", "--config", s.configPath], s.env).stdout)).toMatchObject({ address: wallet, stakedTrx: "100" });
      expect(runCli(["energy", "unstake", "--trx", "100", "--config", s.configPath], s.env).stdout).toMatch(/^unstaked 100 TRX: [0-9a-f]{64}/);
    } finally {
      await gw.kill("SIGTERM");
    }
    expect(existsSync(s.dbPath)).toBe(false);
  }, 120_000);

  test("restore ack with nothing to acknowledge, callbacks resend of an unknown event, serve --demo: each refused in one line as on SQLite; no SQLite file", async () => {
    const db = await createTestDatabase({ empty: true });
    const s = await setup("", { init: false });
    s.env.STABLEGATE_DATABASE_URL = db.url;
    expect(runCli(["init", "--config", s.configPath], s.env).code).toBe(0);
    const ack = runCli(["restore", "ack", "TRON", "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7", "--config", s.configPath], s.env);
    expect(ack.code).not.toBe(0);
    expect(ack.stderr).not.toContain("PostgreSQL");
    const resend = runCli(["callbacks", "resend", "EV1", "--config", s.configPath], s.env);
    expect(resend.stderr.trim().split("\n")).toEqual(["no callback with event id EV1", "(stablegate callbacks --help shows its usage)"]);
    const demo = runCli(["serve", "--demo", "--config", s.configPath], s.env);
    expect(demo.code).toBe(2);
    expect(demo.stderr).toContain("serve --demo makes a data folder for SQLite; on PostgreSQL run `stablegate init` and `stablegate serve`");
    expect(existsSync(s.dbPath)).toBe(false);
  });

  test("serve starts on an initialised database: /healthz answers 200 with the database reachable; the back office offers its one-time setup link", async () => {
    const db = await createTestDatabase({ empty: true });
    const s = await setup("[log]\nlevel = \"warn\"", { init: false });
    s.env.STABLEGATE_DATABASE_URL = db.url;
    expect(runCli(["init", "--config", s.configPath], s.env).code).toBe(0);
    const gw = await startGatewayProcess(s);
    try {
      const r = await fetch(`${s.url}/healthz`);
      expect(r.status).toBe(200);
      expect(await r.json()).toMatchObject({ status: "ok", database: true });
      // Printed after the banner, once the token is stored.
      await eventually(() => /No operator yet\. Create the first one within 1 hour at:\s+\S+\/backoffice\/setup\/[\w-]+/.test(gw.stdout()), 20_000, "the setup link");
    } finally {
      await gw.kill("SIGTERM");
    }
    expect(existsSync(s.dbPath)).toBe(false);
  });
});
