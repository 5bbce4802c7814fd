// `stablegate restore` through the CLI, on a sandbox gateway's data folder: a good backup is put
// in place (the database that was there kept aside, 0600) and starts in reconcile with the HD
// index moved on; a database put back by hand is recognised the same way; a corrupt, foreign or
// wrong-key backup, or a serving gateway, is refused with the reason and changes nothing.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync, closeSync } from "node:fs";
import { join } from "node:path";
import { BUN, ROOT, runCli, startGatewayProcess, tempSetup, type TempSetup } from "../testing/process";
import { markerPath } from "./generation";

const TOML = `[log]\nlevel = "warn"\n[restore]\nindex_gap = 1000\n`;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function setup(): Promise<TempSetup & { cli: (...a: string[]) => ReturnType<typeof runCli> }> {
  // Initialised by the CLI, not in-process: no connection of this process may stay open on the database restore replaces.
  const s = await tempSetup(TOML, { init: false });
  dirs.push(s.dir);
  const cli = (...a: string[]) => runCli([...a, "--config", s.configPath], s.env);
  expect(cli("init").code).toBe(0);
  expect(cli("merchant", "create", "--name", "restore-test", "--json").code).toBe(0);
  return { ...s, cli };
}

/**
 * A new exclusive address of the first merchant on TRON, made as the API would, in a child
 * process: no connection of this process may stay open on the database `restore` replaces.
 */
function handOut(s: TempSetup, bindKey: string): { index: number; address: string; restored: boolean } {
  const script = `
    const { createContext } = await import(${JSON.stringify(join(import.meta.dir, "../app/context"))});
    const { makeChains } = await import(${JSON.stringify(join(import.meta.dir, "../chains/factory"))});
    const { loadConfig } = await import(${JSON.stringify(join(import.meta.dir, "../config/load"))});
    const { writeTx } = await import(${JSON.stringify(join(import.meta.dir, "../db/client"))});
    const { silentLogger } = await import(${JSON.stringify(join(import.meta.dir, "../lib/logger"))});
    const { exclusiveAddress } = await import(${JSON.stringify(join(import.meta.dir, "../wallet/addresses"))});
    const ctx = await createContext({ loaded: loadConfig(${JSON.stringify(s.configPath)}), makeChains, logger: silentLogger });
    const restored = ctx.db.$client.query("SELECT count(*) AS n FROM reconcile_chains").get().n > 0;
    const a = await writeTx(ctx.db, (tx) => exclusiveAddress(tx, ctx.chains.get("TRON"), ctx.seed, 1, ${JSON.stringify(bindKey)}, ctx.clock.now()));
    console.log(JSON.stringify({ index: a.derivationIndex, address: a.address, restored }));
  `;
  const p = Bun.spawnSync([BUN, "-e", script], { cwd: ROOT, env: s.env, stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`handOut failed: ${p.stderr.toString()}`);
  return JSON.parse(p.stdout.toString().trim().split("\n").pop()!) as { index: number; address: string; restored: boolean };
}

/** Every file of the data folder with its SHA-256 and mode: "nothing changed" is this being equal. */
function folderState(s: TempSetup): Record<string, string> {
  const dir = join(s.dir, "data");
  return Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((f) => [f, `${createHash("sha256").update(readFileSync(join(dir, f))).digest("hex")} ${(statSync(join(dir, f)).mode & 0o777).toString(8)}`]),
  );
}

describe("restore --from FILE", () => {
  test("puts a backup in place, keeps the database aside (0600) and moves the HD index on by restore.index_gap; a copy put back by hand is recognised too", async () => {
    const s = await setup();
    const backup = join(s.dir, "b1.db");
    expect(handOut(s, "before").index).toBe(1);
    expect(s.cli("backup", "--out", backup).code).toBe(0);
    // Handed out after the backup: the restored database does not know it.
    const after = handOut(s, "after-backup");
    expect(after.index).toBe(2);
    const marker = readFileSync(markerPath(s.dbPath), "utf8");

    const r = s.cli("restore", "--from", backup);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`restored ${backup} to ${s.dbPath}`);
    const aside = /kept as (\S+)/.exec(r.stdout)![1]!;
    expect(aside).toStartWith(`${s.dbPath}.before-restore-`);
    expect(statSync(aside).mode & 0o777).toBe(0o600);
    expect(statSync(s.dbPath).mode & 0o777).toBe(0o600);
    expect(readFileSync(markerPath(s.dbPath), "utf8")).not.toBe(marker);
    // The database aside still has the address handed out after the backup.
    const old = new Database(aside, { readonly: true });
    expect(old.query("SELECT count(*) AS n FROM addresses WHERE bind_key = 'after-backup'").get()).toEqual({ n: 1 });
    old.close();

    const next = handOut(s, "after-restore");
    expect(next.restored).toBe(true);
    expect(next.index).toBe(2 + 1000);
    expect(next.address).not.toBe(after.address);

    // Put back by hand (gateway stopped, files copied): the marker differs, so reconcile again.
    for (const f of ["", "-wal", "-shm"]) rmSync(s.dbPath + f, { force: true });
    copyFileSync(backup, s.dbPath);
    const byHand = handOut(s, "after-hand-restore");
    expect(byHand.restored).toBe(true);
    expect(byHand.index).toBe(2 + 1000);
    // Opened again: the markers agree now, nothing moves.
    expect(handOut(s, "later").index).toBe(2 + 1000 + 1);
  }, 60_000);

  test("two restores back to back (within one second) leave two kept-aside copies, each named in its message, neither overwritten", async () => {
    const s = await setup();
    const b1 = join(s.dir, "b1.db");
    expect(s.cli("backup", "--out", b1).code).toBe(0);
    handOut(s, "between-backups");
    const b2 = join(s.dir, "b2.db");
    expect(s.cli("backup", "--out", b2).code).toBe(0);
    handOut(s, "after-backups");

    const first = s.cli("restore", "--from", b2);
    const second = s.cli("restore", "--from", b1);
    expect([first.code, second.code]).toEqual([0, 0]);
    const asides = [first, second].map((r) => /kept as (\S+)/.exec(r.stdout)![1]!);
    expect(asides[0]).not.toBe(asides[1]);
    for (const a of asides) expect(a).toMatch(/\.before-restore-\d{8}T\d{6}\.\d{3}Z-\d+$/);
    const kept = readdirSync(join(s.dir, "data")).filter((f) => /\.before-restore-[^-]+-\d+$/.test(f));
    expect(kept.length).toBe(2);
    // The first aside is the live database that was in place, the second the restored b2.
    const count = (path: string, key: string) => {
      const db = new Database(path, { readonly: true });
      try {
        return (db.query("SELECT count(*) AS n FROM addresses WHERE bind_key = ?").get(key) as { n: number }).n;
      } finally {
        db.close();
      }
    };
    expect([count(asides[0]!, "after-backups"), count(asides[0]!, "between-backups")]).toEqual([1, 1]);
    expect([count(asides[1]!, "after-backups"), count(asides[1]!, "between-backups")]).toEqual([0, 1]);
  }, 60_000);

  test("a corrupt backup, a foreign database, a file that is no database and a wrong master key are refused with the reason; nothing changes", async () => {
    const s = await setup();
    const good = join(s.dir, "good.db");
    expect(s.cli("backup", "--out", good).code).toBe(0);

    const corrupt = join(s.dir, "corrupt.db");
    copyFileSync(good, corrupt);
    const fd = openSync(corrupt, "r+");
    writeSync(fd, Buffer.alloc(64 * 1024, 0xa5), 0, 64 * 1024, 4096);
    closeSync(fd);

    const foreign = join(s.dir, "foreign.db");
    const f = new Database(foreign, { create: true });
    f.run("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)");
    f.close();

    const text = join(s.dir, "notes.txt");
    writeFileSync(text, "not a database at all\n");

    const before = folderState(s);
    const cases: Array<[string, string, Record<string, string>]> = [
      [corrupt, "is corrupt", s.env],
      [foreign, "is not a stablegate backup", s.env],
      [text, "is not a SQLite database", s.env],
      [join(s.dir, "missing.db"), "no such file", s.env],
      [good, "cannot decrypt this backup's", { ...s.env, STABLEGATE_MASTER_KEY: "another-master-key" }],
    ];
    for (const [file, reason, env] of cases) {
      const r = runCli(["restore", "--from", file, "--config", s.configPath], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("restore refused");
      expect(r.stderr).toContain(reason);
      expect(r.stderr).toContain("nothing was changed");
      expect(folderState(s)).toEqual(before);
    }
  }, 60_000);

  test("a serving gateway is not pulled from under: refused, nothing changes", async () => {
    const s = await setup();
    const backup = join(s.dir, "b.db");
    expect(s.cli("backup", "--out", backup).code).toBe(0);
    const g = await startGatewayProcess(s);
    try {
      // The gateway writes meanwhile: the same files and the same marker, nothing moved aside.
      const files = () => readdirSync(join(s.dir, "data")).sort();
      const before = files();
      const marker = readFileSync(markerPath(s.dbPath), "utf8");
      const r = s.cli("restore", "--from", backup);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`serving ${s.dbPath}`);
      expect(files()).toEqual(before);
      expect(readFileSync(markerPath(s.dbPath), "utf8")).toBe(marker);
    } finally {
      await g.kill("SIGTERM");
    }
    expect(existsSync(s.dbPath)).toBe(true);
  }, 60_000);

  test("restore ack with nothing to acknowledge is an error naming the source", async () => {
    const s = await setup();
    const r = s.cli("restore", "ack", "TRON", "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no unrecorded outgoing transfer from TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL on TRON");
  }, 30_000);
});
