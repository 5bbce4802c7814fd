// Typos never start a stranger (DESIGN 2, 16): unknown commands and flags, a missing or empty
// config, a missing database, a database path other than the data folder's; only `init` (and
// `serve --demo` on an empty folder) makes a data folder. Run as child processes, as a user would,
// from a scratch working directory so that an embedded-default fallback would show as ./data.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT, tempSetup, type TempSetup } from "../testing/process";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const scratch = () => {
  const d = mkdtempSync(join(tmpdir(), "stablegate-cwd-"));
  dirs.push(d);
  return d;
};
const setup = async (toml = "", opts: { masterKey?: string | null; init?: boolean } = {}) => {
  const s = await tempSetup(toml, opts);
  dirs.push(s.dir);
  return s;
};

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
/** The CLI in `cwd` (default: a fresh scratch folder), without STABLEGATE_CONFIG; `input` goes to stdin. */
function run(args: string[], opts: { cwd?: string; env?: Record<string, string>; input?: string } = {}): Run {
  const env = { ...(opts.env ?? (process.env as Record<string, string>)) };
  delete env.STABLEGATE_CONFIG;
  const p = Bun.spawnSync([BUN, join(ROOT, "src/main.ts"), ...args], { cwd: opts.cwd ?? scratch(), env, stdin: opts.input === undefined ? "ignore" : new TextEncoder().encode(opts.input), stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode ?? -1, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}
const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);

describe("unknown commands, subcommands, flags and arguments: exit 2, a short error and that command's usage", () => {
  test.each([
    [["serve", "--bogus"], /unknown option --bogus for serve/, "usage: stablegate serve"],
    [["serve", "--confg", "stablegate.toml"], /unknown option --confg for serve/, "usage: stablegate serve"],
    [["serve", "-c", "x.toml"], /unknown option -c for serve/, "usage: stablegate serve"],
    [["serve", "--config"], /--config needs a value/, "usage: stablegate serve"],
    [["serve", "--demo=yes"], /--demo takes no value/, "usage: stablegate serve"],
    [["serve", "now"], /unexpected argument for serve: now/, "usage: stablegate serve"],
    [["migrate", "--force"], /unknown option --force for migrate/, "usage: stablegate migrate"],
    [["merchant", "create", "--name", "a", "--nmae", "b"], /unknown option --nmae for merchant create/, "merchant create --name N"],
    [["merchant", "list", "--jsno"], /unknown option --jsno for merchant list/, "merchant list"],
    [["merchant", "frob"], /unknown merchant command: frob/, "merchant create"],
    [["merchant"], /merchant needs a subcommand/, "merchant create"],
    [["merchant", "disable"], /merchant disable needs an argument/, "merchant disable"],
    [["key", "rotate", "M1", "M2"], /unexpected argument for key rotate: M2/, "key rotate UID"],
    [["backup", "--ot", "x.db"], /unknown option --ot for backup/, "usage: stablegate backup"],
    [["user", "list", "--all"], /unknown option --all for user list/, "user list"],
    [["wallet", "export-mnemonic", "--json"], /unknown option --json for wallet export-mnemonic/, "wallet export-mnemonic"],
    [["init", "--force"], /unknown option --force for init/, "usage: stablegate init"],
    [["restore", "--form", "b.db"], /unknown option --form for restore/, "usage: stablegate"],
    [["restore", "ack", "TRON"], /restore ack needs 2 arguments/, "usage: stablegate"],
    [["frobnicate"], /unknown command: frobnicate/, "usage: stablegate <command>"],
    [["--bogus"], /no command given/, "usage: stablegate <command>"],
  ] as Array<[string[], RegExp, string]>)("%p", (args, problem, usage) => {
    const cwd = scratch();
    const r = run(args, { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")[0]).toMatch(problem);
    expect(r.stderr).toContain(usage);
    // That command's usage, not the whole help.
    expect(r.stderr).not.toContain("denylist add CHAIN");
    expect(r.stdout).toBe("");
    expect(readdirSync(cwd)).toEqual([]);
  });

  test("help and COMMAND --help still print, exit 0", () => {
    expect(run(["help"]).code).toBe(0);
    expect(run(["init", "--help"])).toMatchObject({ code: 0, stdout: expect.stringContaining("usage: stablegate init") });
    expect(run(["wallet", "--help"]).stdout).toContain("export-mnemonic");
    expect(run(["help", "init"]).stdout).toContain("usage: stablegate init");
  });
});

describe("the config file", () => {
  test("--config PATH that does not exist is an error, never the embedded default", () => {
    const cwd = scratch();
    const r = run(["serve", "--config", join(cwd, "stablegate.tmol")], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("does not exist");
    expect(readdirSync(cwd)).toEqual([]);
  });

  test.each([
    ["empty", ""],
    ["blank lines", "\n\n  \n"],
    ["comments only", "# [database]\n# path = \"data/stablegate.db\"\n"],
  ])("an %s config file is an error (even beside an existing master key)", async (_n, text) => {
    const s = await setup("", { masterKey: null });
    const keyBefore = readFileSync(join(s.dir, "data", "master.key"), "utf8");
    writeFileSync(s.configPath, text);
    for (const args of [["serve"], ["merchant", "list"], ["init"]]) {
      const r = run([...args, "--config", s.configPath], { cwd: s.dir, env: s.env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("is empty");
    }
    expect(readdirSync(s.dir).sort()).toEqual(["data", "stablegate.toml"]);
    expect(readFileSync(join(s.dir, "data", "master.key"), "utf8")).toBe(keyBefore);
  });
});

describe("stablegate init and the data folder", () => {
  test("init creates the data folder (0700): database, master key and marker 0600, a wallet seed; a second init changes nothing", async () => {
    const s = await setup("", { masterKey: null, init: false });
    expect(existsSync(join(s.dir, "data"))).toBe(false);
    const r = run(["init", "--config", s.configPath], { cwd: s.dir, env: s.env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(s.dbPath);
    expect(r.stdout).toContain("wallet export-mnemonic");
    const data = join(s.dir, "data");
    expect(mode(data)).toBe("700");
    for (const f of ["master.key", "stablegate.db", "data-folder.json"]) expect({ f, mode: mode(join(data, f)) }).toEqual({ f, mode: "600" });
    expect(JSON.parse(readFileSync(join(data, "data-folder.json"), "utf8")).database).toBe(s.dbPath);
    const db = new Database(s.dbPath, { readonly: true });
    expect(db.query("SELECT key FROM settings WHERE key = 'wallet_seed'").get()).toBeTruthy();
    db.close();

    const key = readFileSync(join(data, "master.key"), "utf8");
    const again = run(["init", "--config", s.configPath], { cwd: s.dir, env: s.env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already exists");
    expect(readFileSync(join(data, "master.key"), "utf8")).toBe(key);
    // The data folder works: commands run on it.
    expect(run(["merchant", "list", "--json", "--config", s.configPath], { cwd: s.dir, env: s.env })).toMatchObject({ code: 0, stdout: "[]\n" });
  });

  test("with STABLEGATE_MASTER_KEY set, init writes no key file and the env key opens the database", async () => {
    const s = await setup("", { init: false });
    expect(run(["init", "--config", s.configPath], { cwd: s.dir, env: s.env }).code).toBe(0);
    expect(existsSync(join(s.dir, "data", "master.key"))).toBe(false);
    expect(run(["merchant", "list", "--config", s.configPath], { cwd: s.dir, env: s.env }).code).toBe(0);
  });

  test.each([[["serve"]], [["migrate"]], [["merchant", "create", "--name", "x"]], [["wallet", "gas"]], [["backup", "--out", "b.db"]]] as Array<[string[]]>)(
    "%p on a missing database says how to create it (stablegate init) and creates nothing",
    async (args) => {
      const s = await setup("", { masterKey: null, init: false });
      const r = run([...args, "--config", s.configPath], { cwd: s.dir, env: s.env });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`no database at ${s.dbPath}`);
      expect(r.stderr).toContain(`stablegate init --config ${s.configPath}`);
      expect(readdirSync(s.dir)).toEqual(["stablegate.toml"]);
    },
  );

  test("without a config, on the embedded default: serve refuses and points to init or make run; ./data is not created", () => {
    const cwd = scratch();
    const env = { ...(process.env as Record<string, string>) };
    delete env.STABLEGATE_MASTER_KEY;
    const r = run(["serve"], { cwd, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("stablegate init");
    expect(r.stderr).toContain("make run");
    expect(readdirSync(cwd)).toEqual([]);
  });

  test("a deleted database: serve, init and serve --demo refuse; no new seed beside the master key", async () => {
    const s = await setup("", { masterKey: null });
    const key = readFileSync(join(s.dir, "data", "master.key"), "utf8");
    rmSync(s.dbPath);
    for (const args of [["serve"], ["init"], ["serve", "--demo"], ["merchant", "list"]]) {
      const r = run([...args, "--config", s.configPath], { cwd: s.dir, env: s.env });
      expect({ args, code: r.code }).toEqual({ args, code: 1 });
      expect(r.stderr).toContain(s.dbPath);
      expect(r.stderr).toMatch(/missing|restore/i);
    }
    expect(existsSync(s.dbPath)).toBe(false);
    expect(readFileSync(join(s.dir, "data", "master.key"), "utf8")).toBe(key);
  });

  test("a master key without a database or marker (e.g. a copied key): init refuses naming both", async () => {
    const s = await setup("", { masterKey: null, init: false });
    const dataDir = join(s.dir, "data");
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(join(dataDir, "master.key"), "ab".repeat(32) + "\n", { mode: 0o600 });
    const r = run(["init", "--config", s.configPath], { cwd: s.dir, env: s.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(join(dataDir, "master.key"));
    expect(r.stderr).toContain(s.dbPath);
    expect(readdirSync(dataDir)).toEqual(["master.key"]);
  });

  test("a database.path other than the one the data folder was made with: an error naming both, for every command and init", async () => {
    const s = await setup("", { masterKey: null });
    const typo = join(s.dir, "data", "stablegate.bd");
    writeFileSync(s.configPath, readFileSync(s.configPath, "utf8").replace(s.dbPath, typo));
    for (const args of [["serve"], ["init"], ["serve", "--demo"], ["merchant", "create", "--name", "x"]]) {
      const r = run([...args, "--config", s.configPath], { cwd: s.dir, env: s.env });
      expect({ args, code: r.code }).toEqual({ args, code: 1 });
      expect(r.stderr).toContain(typo);
      expect(r.stderr).toContain(s.dbPath);
    }
    expect(existsSync(typo)).toBe(false);
  });

  test("a database without a wallet seed: commands that need it stop; init completes it only if no address was ever derived", async () => {
    const s = await setup(`[chains.TRON]\nblock_time = "0s"`, { masterKey: null });
    const sql = (q: string) => {
      const db = new Database(s.dbPath);
      db.run(q);
      db.close();
    };
    const cli = (...args: string[]) => run([...args, "--config", s.configPath], { cwd: s.dir, env: s.env });
    // As `migrate` left a database before init existed: no seed, no address.
    sql("DELETE FROM settings WHERE key = 'wallet_seed'");
    expect(cli("merchant", "list").code).toBe(0);
    const refused = cli("wallet", "gas");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("run `stablegate init` to complete it");
    const done = cli("init");
    expect(done.code).toBe(0);
    expect(done.stdout).toContain("a wallet seed was added");
    expect(cli("wallet", "gas", "--json").code).toBe(0); // derives the gas wallets: addresses now exist
    expect(cli("init").stderr).toContain("already exists");
    // Addresses but no seed: damaged, and init will not paper over it.
    sql("DELETE FROM settings WHERE key = 'wallet_seed'");
    expect(cli("wallet", "gas").stderr).toContain("has addresses but no wallet seed");
    expect(cli("init").code).toBe(1);
  });

  test("serve --demo (make run) on an empty folder makes the data folder, then serves", async () => {
    const s = await setup("", { masterKey: null, init: false });
    const p = Bun.spawn([BUN, join(ROOT, "src/main.ts"), "serve", "--demo", "--config", s.configPath], { cwd: s.dir, env: s.env, stdout: "pipe", stderr: "pipe" });
    try {
      let out = "";
      const reader = p.stdout.getReader();
      while (!/API key:\s+mch_/.test(out)) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`serve --demo ended: ${await new Response(p.stderr).text()}`);
        out += new TextDecoder().decode(value);
      }
      expect(out).toContain("initialised the data folder");
      expect(existsSync(join(s.dir, "data", "master.key"))).toBe(true);
      expect((await fetch(s.url + "/healthz")).status).toBe(200);
    } finally {
      p.kill("SIGTERM");
      await p.exited;
    }
  });
});

describe("wallet export-mnemonic", () => {
  const seedOf = (s: TempSetup) => {
    const { Cipher } = require("../secrets/cipher") as typeof import("../secrets/cipher");
    const { keyFromString } = require("../secrets/master-key") as typeof import("../secrets/master-key");
    const db = new Database(s.dbPath, { readonly: true });
    try {
      const row = db.query("SELECT value FROM settings WHERE key = 'wallet_seed'").get() as { value: string };
      return new Cipher(keyFromString(readFileSync(join(s.dir, "data", "master.key"), "utf8"))).decrypt(row.value);
    } finally {
      db.close();
    }
  };
  const audits = (s: TempSetup) => {
    const db = new Database(s.dbPath, { readonly: true });
    try {
      return db.query("SELECT actor, action, target FROM audit_log WHERE action = 'wallet.export_mnemonic'").all();
    } finally {
      db.close();
    }
  };

  test("asks for the master key file, prints the seed once on stdout and records the export (actor cli)", async () => {
    const s = await setup("", { masterKey: null });
    const env = { ...s.env };
    delete env.STABLEGATE_MASTER_KEY;
    const r = run(["wallet", "export-mnemonic", "--config", s.configPath], { cwd: s.dir, env, input: join(s.dir, "data", "master.key") + "\n" });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("master key file");
    const words = seedOf(s);
    expect(r.stdout).toBe(words + "\n");
    expect(r.stderr).not.toContain(words.split(" ").slice(0, 3).join(" "));
    expect(audits(s)).toEqual([{ actor: "cli", action: "wallet.export_mnemonic", target: "wallet:seed" }]);
  });

  test.each([
    ["a wrong key file", (s: TempSetup) => {
      const f = join(s.dir, "other.key");
      writeFileSync(f, "cd".repeat(32) + "\n");
      return f;
    }, /wrong master key/],
    ["a path that does not exist", (s: TempSetup) => join(s.dir, "nope.key"), /cannot read the master key file/],
    ["nothing typed", () => "", /no master key file given/],
  ] as Array<[string, (s: TempSetup) => string, RegExp]>)("%s is refused before anything is shown or written", async (_n, file, msg) => {
    const s = await setup("", { masterKey: null });
    const env = { ...s.env };
    delete env.STABLEGATE_MASTER_KEY;
    const before = readFileSync(s.dbPath);
    const r = run(["wallet", "export-mnemonic", "--config", s.configPath], { cwd: s.dir, env, input: file(s) + "\n" });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(msg);
    expect(r.stdout).toBe("");
    expect(audits(s)).toEqual([]);
    expect(readFileSync(s.dbPath).equals(before)).toBe(true);
  });
});

describe("a start-up error exits non-zero with no half-started process", () => {
  const serveChild = (s: TempSetup, extraEnv: Record<string, string> = {}) =>
    Bun.spawn([BUN, join(ROOT, "src/main.ts"), "serve", "--config", s.configPath], { cwd: s.dir, env: { ...s.env, ...extraEnv }, stdout: "pipe", stderr: "pipe" });
  const exitWithin = async (p: Bun.Subprocess, ms: number) => {
    const timer = setTimeout(() => p.kill("SIGKILL"), ms);
    const code = await p.exited;
    clearTimeout(timer);
    return { code, killed: p.signalCode === "SIGKILL" };
  };

  test("an error after the listener opened: the process exits 1 and nothing answers /healthz", async () => {
    const s = await setup(`[chains.TRON]\nblock_time = "0s"`);
    const p = serveChild(s, { STABLEGATE_CRASH_AT: "fail:serve.started" });
    const r = await exitWithin(p, 20_000);
    expect(r).toEqual({ code: 1, killed: false });
    expect(await new Response(p.stderr).text()).toContain("injected failure at serve.started");
    expect(await fetch(s.url + "/healthz").then((x) => x.status).catch(() => "refused")).toBe("refused");
  });

  test("the port already in use: exits non-zero at once", async () => {
    const s = await setup(`[chains.TRON]\nblock_time = "0s"`);
    const holder = Bun.serve({ hostname: "127.0.0.1", port: s.port, fetch: () => new Response("someone else") });
    try {
      const p = serveChild(s);
      const r = await exitWithin(p, 20_000);
      expect(r.killed).toBe(false);
      expect(r.code).not.toBe(0);
      expect(await new Response(p.stderr).text()).toMatch(/in use|EADDRINUSE|port/i);
    } finally {
      void holder.stop(true);
    }
  });
});
