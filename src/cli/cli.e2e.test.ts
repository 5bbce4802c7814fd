// The CLI contract (DESIGN 2) and the foundation's acceptance: run as a user would.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, startGatewayProcess, tempSetup, type TempSetup } from "../testing/process";
import { freePort } from "../testing/wait";
import { StablegateClient } from "../sdk/client";
import { VERSION } from "../version";

const dirs: string[] = [];
const setup = async (toml = "", opts?: { masterKey?: string | null; init?: boolean }) => {
  const s = await tempSetup(toml, opts);
  dirs.push(s.dir);
  return s;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const cli = (s: TempSetup, ...args: string[]) => runCli([...args, "--config", s.configPath], s.env);

describe("CLI", () => {
  test("merchant create --json prints exactly one JSON object on a fresh database", async () => {
    const s = await setup();
    const r = cli(s, "merchant", "create", "--name", "shop", "--json");
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const obj = JSON.parse(lines[0]);
    expect(Object.keys(obj).sort()).toEqual(["apiKey", "merchantUid"]);
    expect(obj.apiKey).toMatch(/^mch_[0-9a-f]{64}$/);
    expect(obj.merchantUid).toMatch(/^M\d{7}$/);
  });

  test("merchant list, disable, enable and key rotate", async () => {
    const s = await setup();
    const { merchantUid } = JSON.parse(cli(s, "merchant", "create", "--name", "a shop", "--json").stdout);
    expect(cli(s, "merchant", "disable", merchantUid).code).toBe(0);
    expect(JSON.parse(cli(s, "merchant", "list", "--json").stdout)).toMatchObject([{ merchantUid, name: "a shop", status: "disabled" }]);
    expect(cli(s, "merchant", "enable", merchantUid).code).toBe(0);
    const rotated = JSON.parse(cli(s, "key", "rotate", merchantUid, "--json").stdout);
    expect(rotated.merchantUid).toBe(merchantUid);
    expect(rotated.apiKey).toMatch(/^mch_/);
    expect(cli(s, "merchant", "disable", "M9999999").code).not.toBe(0);
    expect(cli(s, "frobnicate").code).not.toBe(0);
  });

  test("wallet gas lists a gas wallet address per enabled chain, the same on every call", async () => {
    const s = await setup();
    const a = JSON.parse(cli(s, "wallet", "gas", "--json").stdout);
    expect(a.map((r: { chainCode: string }) => r.chainCode)).toEqual(["TRON", "BSC", "SOL"]);
    expect(a[1].address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(JSON.parse(cli(s, "wallet", "gas", "--json").stdout)).toEqual(a);
  });

  test("--version prints the version", () => {
    const r = runCli(["--version"], process.env as Record<string, string>);
    expect(r.stdout.trim()).toBe(VERSION);
  });

  test("migrate on a fresh path says to run init; after init it applies migrations", async () => {
    const s = await setup("", { init: false });
    const refused = cli(s, "migrate");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("stablegate init");
    expect(existsSync(s.dbPath)).toBe(false);
    expect(cli(s, "init").code).toBe(0);
    expect(cli(s, "migrate").code).toBe(0);
    const db = new Database(s.dbPath);
    expect((db.query("SELECT count(*) AS n FROM schema_migrations").get() as { n: number }).n).toBeGreaterThan(0);
    db.close();
  });

  test("a broken config exits non-zero and names every bad key at once", async () => {
    const s = await setup("", { init: false });
    writeFileSync(
      s.configPath,
      `[server]\nport = "eighty"\nbogus = 1\n[database]\npath = "${s.dbPath}"\n[payin]\nexpire_after = "30 minutes"\n[chains.TRON]\nmode = "magic"\n[chains.TRON.tokens.USDC]\ndecimals = 6\n[nonsense]\nx = 1\n`,
    );
    const r = cli(s, "migrate");
    expect(r.code).not.toBe(0);
    for (const key of ["server.port", "server.bogus", "payin.expire_after", "chains.TRON.mode", "chains.TRON.tokens.USDC", "nonsense"]) {
      expect(r.stderr).toContain(key);
    }
    expect(existsSync(s.dbPath)).toBe(false);
  });

  test("serve: healthz, graceful SIGTERM; backup while writing is a consistent copy", async () => {
    const s = await setup(`[chains.TRON]\nblock_time = "50ms"`);
    const { merchantUid, apiKey } = JSON.parse(cli(s, "merchant", "create", "--name", "shop", "--json").stdout);
    const gw = await startGatewayProcess(s);
    try {
      const client = new StablegateClient({ baseUrl: s.url, merchantUid, apiKey });
      let writing = true;
      let sent = 0;
      const writer = (async () => {
        let i = 0;
        while (writing) {
          await client.request("POST", "/openapi/payin/orders", {
            body: { chainCode: "BSC", tokenSymbol: "USDT", merchantOrderNo: `BK-${i++}`, amount: `${1 + i}.25`, notifyUrl: "https://shop.example/cb" },
          }).catch(() => {});
          sent = i;
        }
        return i;
      })();
      // Writes under way (not a fixed sleep): the backup runs while they continue.
      for (let n = 0; n < 500 && sent < 5; n++) await Bun.sleep(10);
      const out = join(s.dir, "backup.db");
      const r = cli(s, "backup", "--out", out);
      writing = false;
      const written = await writer;
      expect(r.code).toBe(0);
      expect(written).toBeGreaterThan(0);
      const copy = new Database(out, { readonly: true });
      expect((copy.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check).toBe("ok");
      expect((copy.query("SELECT count(*) AS n FROM merchants").get() as { n: number }).n).toBe(1);
      copy.close();
      expect(cli(s, "backup", "--out", out).code).not.toBe(0); // never overwrites
    } finally {
      expect(await gw.kill("SIGTERM")).toBe(0);
    }
  });

  test("nothing secret in the database or the logs in clear text; key file is 0600", async () => {
    const s = await setup(`[log]\nlevel = "debug"`, { masterKey: null });
    const { merchantUid, apiKey } = JSON.parse(cli(s, "merchant", "create", "--name", "shop", "--json").stdout);
    const gw = await startGatewayProcess(s);
    let mnemonic = "";
    try {
      const client = new StablegateClient({ baseUrl: s.url, merchantUid, apiKey });
      await client.request("POST", "/openapi/payin/orders", { body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "S-1", amount: "1", notifyUrl: "https://shop.example/cb" } });
      // A request that fails auth with the key in a header must not log it either.
      await fetch(s.url + "/openapi/payin/orders/x", { headers: { "x-api-key": apiKey } });
      const { Cipher } = await import("../secrets/cipher");
      const key = readFileSync(join(s.dir, "data", "master.key"), "utf8").trim();
      const db = new Database(s.dbPath, { readonly: true });
      const seedRow = db.query("SELECT value FROM settings WHERE key = 'wallet_seed'").get() as { value: string };
      mnemonic = new Cipher(Buffer.from(key, "hex")).decrypt(seedRow.value);
      db.close();
    } finally {
      await gw.kill("SIGTERM");
    }
    expect(mnemonic.split(" ")).toHaveLength(24);
    expect((statSync(join(s.dir, "data", "master.key")).mode & 0o777).toString(8)).toBe("600");
    const dbBytes = Buffer.concat(["", "-wal", "-shm"].filter((x) => existsSync(s.dbPath + x)).map((x) => readFileSync(s.dbPath + x)));
    const logs = gw.stdout() + gw.stderr();
    for (const secret of [apiKey, apiKey.slice(4), mnemonic, mnemonic.split(" ").slice(0, 3).join(" ")]) {
      expect(dbBytes.includes(Buffer.from(secret))).toBe(false);
      expect(logs.includes(secret)).toBe(false);
    }
  });
});

describe("serve --demo (what `make run` starts)", () => {
  test("the first start prints the demo merchant's UID and key once, later starts only the URLs", async () => {
    const s = await setup("", { init: false });
    const first = await startGatewayProcess(s, { args: ["--demo"] });
    // Until its banner is through the pipe (not a fixed sleep).
    for (let n = 0; n < 500 && !first.stdout().includes("/healthz"); n++) await Bun.sleep(10);
    await first.kill("SIGTERM");
    const out1 = first.stdout();
    expect(out1).toContain(`${s.url}/healthz`);
    const uid = /merchant UID:\s+(M\d{7})/.exec(out1)?.[1];
    const key = /API key:\s+(mch_[0-9a-f]{64})/.exec(out1)?.[1];
    expect(uid).toBeDefined();
    expect(key).toBeDefined();
    // The printed credentials work.
    const again = await startGatewayProcess(s, { args: ["--demo"] });
    try {
      const client = new StablegateClient({ baseUrl: s.url, merchantUid: uid!, apiKey: key! });
      const e = (await client.request("GET", "/openapi/payin/orders/PI0").catch((x) => x)) as { code: number };
      expect(e.code).toBe(40108);
      // DESIGN 17, 23: `make run` shows all twelve networks in sandbox, the ones off by default too.
      const chains = (await (await fetch(`${s.url}/sandbox/chains`)).json()) as Array<{ chainCode: string }>;
      expect(chains.map((c) => c.chainCode)).toEqual(["TRON", "BSC", "SOL", "ETH", "POLYGON", "ARBITRUM", "BASE", "OPTIMISM", "AVALANCHE", "XLAYER", "PLASMA", "TON"]);
      const eth = await client.createPayinOrder({ chainCode: "ETH" as never, tokenSymbol: "USDT", merchantOrderNo: "demo-eth", amount: "1.5", notifyUrl: "https://shop.example/cb" });
      expect(eth.paymentUri).toBe(`ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=${eth.address}&uint256=1500000`);
      // DESIGN 23: TON in sandbox mode, a wallet v5r1 address in its non-bounceable form and Tonkeeper's transfer link.
      const ton = await client.createPayinOrder({ chainCode: "TON" as never, tokenSymbol: "USDT", merchantOrderNo: "demo-ton", amount: "2", notifyUrl: "https://shop.example/cb" });
      expect(ton.address).toMatch(/^UQ[A-Za-z0-9_-]{46}$/);
      expect(ton.paymentUri).toBe(`ton://transfer/${ton.address}?jetton=EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs&amount=2000000&text=${ton.orderNo}`);
    } finally {
      await again.kill("SIGTERM");
    }
    expect(again.stdout()).toContain(`${s.url}/healthz`);
    expect(again.stdout()).not.toContain("mch_");
    expect(again.stderr()).not.toContain(key!);
  });
});

/** What `make run` printed until the demo merchant's API key (or the deadline). */
async function untilDemoKey(proc: Bun.Subprocess<"ignore" | "inherit" | "pipe", "pipe", "pipe">, ms: number): Promise<string> {
  let out = "";
  const reader = proc.stdout.getReader();
  const deadline = Date.now() + ms;
  while (!/API key:\s+mch_/.test(out) && Date.now() < deadline) {
    const { done, value } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return out;
}

describe("make run", () => {
  test("--port and --data choose the port and data folder without a config file; STABLEGATE_DATA reaches the same database", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stablegate-run-"));
    dirs.push(dir);
    const port = await freePort();
    const env: Record<string, string> = { ...(process.env as Record<string, string>), STABLEGATE_MASTER_KEY: "run-flags-master-key" };
    delete env.STABLEGATE_CONFIG;
    const data = join(dir, "mydata");
    const proc = Bun.spawn(["make", "-s", "run", `ARGS=--port ${port} --data ${data}`], { cwd: join(import.meta.dir, "..", ".."), env, stdout: "pipe", stderr: "pipe" });
    try {
      const out = await untilDemoKey(proc, 60_000);
      expect(out).toContain(`http://127.0.0.1:${port}/healthz`);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      expect(existsSync(join(data, "stablegate.db"))).toBe(true);
      const uid = /merchant UID:\s+(M\d{7})/.exec(out)![1];
      // The same folder through the environment: the CLI sees the demo merchant.
      const listed = runCli(["merchant", "list", "--json"], { ...env, STABLEGATE_DATA: data });
      expect(JSON.parse(listed.stdout).map((m: { merchantUid: string }) => m.merchantUid)).toEqual([uid]);
      // A port that is no port: refused before anything starts.
      const bad = runCli(["serve", "--port", "http"], { ...env, STABLEGATE_DATA: data });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("must be a port number");
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  }, 120_000);

  test("serves /healthz and prints the demo credentials on first start (making the data folder)", async () => {
    const s = await setup("", { init: false });
    const proc = Bun.spawn(["make", "-s", "run", `ARGS=--config ${s.configPath}`], { cwd: join(import.meta.dir, "..", ".."), env: s.env, stdout: "pipe", stderr: "pipe" });
    try {
      const out = await untilDemoKey(proc, 30_000);
      expect(out).toMatch(/merchant UID:\s+M\d{7}/);
      expect(out).toMatch(/API key:\s+mch_[0-9a-f]{64}/);
      expect((await fetch(s.url + "/healthz")).status).toBe(200);
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  });
});

test("a wrong master key is refused with a clear message, before anything is written", async () => {
  const s = await setup();
  expect(cli(s, "merchant", "create", "--name", "a", "--json").code).toBe(0);
  const wrong = { ...s.env, STABLEGATE_MASTER_KEY: "not-the-original-key" };
  for (const args of [["merchant", "create", "--name", "b", "--json"], ["serve"], ["migrate"]]) {
    const r = runCli([...args, "--config", s.configPath], wrong);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("master key");
    expect(r.stderr).not.toContain("not-the-original-key");
  }
  expect(JSON.parse(cli(s, "merchant", "list", "--json").stdout)).toHaveLength(1);
});
