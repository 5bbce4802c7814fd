import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig, parseConfig, resolveConfigPath, runOverrides } from "./load";
import { renderExampleConfig } from "../cli/example-config";

const root = join(import.meta.dir, "..", "..");

describe("config", () => {
  test("the embedded default: every chain in sandbox mode, data under ./data", () => {
    const { config, publicUrl } = parseConfig({});
    for (const c of Object.values(config.chains)) expect(c.mode).toBe("sandbox");
    expect(config.database.path).toBe("data/stablegate.db");
    expect(config.callbacks.retry_delays).toEqual(["1m", "5m"]);
    expect(publicUrl).toBe("http://127.0.0.1:8080");
  });

  // DESIGN 17, 23: the EVM chains after BSC are opt-in; `serve --demo` (make run) shows all eleven in sandbox.
  test("ETH, POLYGON, ARBITRUM, BASE, OPTIMISM, AVALANCHE, XLAYER, PLASMA, TON are off by default; serve --demo turns on every chain a sandbox config leaves unset", () => {
    const NEW = ["ETH", "POLYGON", "ARBITRUM", "BASE", "OPTIMISM", "AVALANCHE", "XLAYER", "PLASMA", "TON"] as const;
    const plain = parseConfig({}).config.chains;
    expect(NEW.map((c) => plain[c].enabled)).toEqual(NEW.map(() => false));
    expect(["TRON", "BSC", "SOL"].map((c) => plain[c as "TRON"].enabled)).toEqual([true, true, true]);
    // Finality defaults per chain (docs/networks.md, "Finality per network").
    expect(Object.fromEntries(["BSC", ...NEW].map((c) => [c, (plain[c as "BSC"] as { finality?: string }).finality]))).toEqual({
      BSC: "confirmations", ETH: "confirmations", POLYGON: "finalized", ARBITRUM: "confirmations", BASE: "confirmations",
      OPTIMISM: "confirmations", AVALANCHE: "confirmations", XLAYER: "confirmations", PLASMA: "confirmations",
    });
    const demo = loadConfig(null, { demo: true }).config.chains;
    expect(Object.entries(demo).filter(([, c]) => !c.enabled || c.mode !== "sandbox")).toEqual([]);
    expect(Object.keys(demo)).toHaveLength(12);
    expect(runOverrides({ demo: true }, {}).demo).toBe(true);
    // What the config says stays: an explicit `enabled = false`, and every section of a gateway with an rpc chain.
    const dir = mkdtempSync(join(tmpdir(), "sg-demo-"));
    const write = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
    const offEth = loadConfig(write("a.toml", "[chains.ETH]\nenabled = false\n"), { demo: true }).config.chains;
    expect([offEth.ETH.enabled, offEth.BASE.enabled]).toEqual([false, true]);
    const rpc = loadConfig(write("b.toml", '[chains.BSC]\nmode = "rpc"\nrpc_urls = ["http://127.0.0.1:1"]\n[chains.TRON]\nenabled = false\n[chains.SOL]\nenabled = false\n'), { demo: true }).config.chains;
    expect(Object.entries(rpc).filter(([, c]) => c.enabled).map(([c]) => c)).toEqual(["BSC"]);
    // A bad finality is refused by name.
    expect(() => parseConfig({ chains: { BASE: { finality: "instant" } } })).toThrow('chains.BASE.finality: must be one of "confirmations", "safe", "finalized"');
  });

  test("--port / --data, else STABLEGATE_PORT / STABLEGATE_DATA, over the default or a config file", () => {
    expect(runOverrides({ port: "9001" }, { STABLEGATE_PORT: "9002", STABLEGATE_DATA: "/srv/sg" })).toEqual({ port: "9001", data: "/srv/sg" });
    expect(runOverrides({}, {})).toEqual({ port: undefined, data: undefined });
    const loaded = loadConfig(null, { port: "9003", data: "mydata" });
    expect(loaded.config.server.port).toBe(9003);
    expect(loaded.config.database.path).toBe(join("mydata", "stablegate.db"));
    expect(loaded.publicUrl).toBe("http://127.0.0.1:9003");
    // Over a file's values too (the other keys of its sections kept).
    const file = join(root, "config", "stablegate.example.toml");
    const over = loadConfig(file, { port: "9004", data: "/srv/sg" });
    expect(over.config.server.port).toBe(9004);
    expect(over.config.server.host).toBe(loadConfig(file).config.server.host);
    expect(over.config.database.path).toBe("/srv/sg/stablegate.db");
    for (const port of ["http", "70000", "-1", ""]) expect(() => loadConfig(null, { port })).toThrow(/port number/);
    expect(() => loadConfig(null, { data: " " })).toThrow(/must name a folder/);
  });

  test("precedence: --config, then STABLEGATE_CONFIG, then config/stablegate.toml", () => {
    expect(resolveConfigPath("a.toml", { STABLEGATE_CONFIG: "b.toml" })).toBe("a.toml");
    expect(resolveConfigPath(undefined, { STABLEGATE_CONFIG: "b.toml" })).toBe("b.toml");
  });

  test.each([
    [{ server: { port: "x" } }, "server.port"],
    [{ server: { nope: 1 } }, "server.nope: unknown key"],
    [{ auth: { timestamp_tolerance: "5 minutes" } }, "auth.timestamp_tolerance: must be a duration"],
    [{ chains: { BSC: { mode: "live" } } }, 'chains.BSC.mode: must be one of "sandbox", "rpc"'],
    [{ chains: { BSC: { mode: "rpc" } } }, "chains.BSC.rpc_urls"],
    [{ chains: { TRON: { tokens: { USDC: {} } } } }, "chains.TRON.tokens.USDC: unknown key"],
    [{ chains: { TRON: { tokens: { USDT: { min_amount: "5", max_amount: "1" } } } } }, "min_amount is above max_amount"],
    [{ callbacks: { retry_delays: ["1m", 5] } }, "callbacks.retry_delays.1"],
    [{ chains: { TRON: { mode: "rpc", rpc_urls: ["https://tron.example"] } } }, "sandbox.allow_mixed"],
    [{ alerts: { webhook_url: "https://ops.example/hook" } }, "alerts.webhook_secret: needed with alerts.webhook_url"],
    [{ callbacks: { allow_private_targets: false }, alerts: { webhook_url: "https://192.0.2.10/hook", webhook_secret: "s" } }, "alerts.webhook_url: must be a public address (or set callbacks.allow_private_targets = true)"],
    [{ callbacks: { allow_private_targets: false }, alerts: { webhook_url: "https://[64:ff9b::a00:1]/hook", webhook_secret: "s" } }, "alerts.webhook_url: must be a public address (or set callbacks.allow_private_targets = true)"],
    [{ alerts: { webhook_url: "https:///hook", webhook_secret: "s" } }, "alerts.webhook_url: must have a host"],
    [{ alerts: { telegram_bot_token: "1:abc" } }, "alerts.telegram_chat_id"],
    [{ ops: { max_scan_lag: "500ms" } }, "ops.max_scan_lag: must be at least 1s"],
    [{ ops: { metrics_token: "" } }, "ops.metrics_token"],
    [{ chains: { BSC: { gas_low_balance: "0,5" } } }, "chains.BSC.gas_low_balance"],
    [{ chains: { BSC: { rpc_urls: [{ url: "https://bsc.example", rate_limit: 0 }] } } }, "chains.BSC.rpc_urls.0"],
    [{ chains: { BSC: { rpc_urls: [{ url: "https://bsc.example", api_keys: [] }] } } }, "chains.BSC.rpc_urls.0"],
    [{ chains: { BSC: { rpc_urls: [{ url: "https://bsc.example", keys: ["k"] }] } } }, "chains.BSC.rpc_urls.0"],
    [{ payin: { sweep_every: "often" } }, "payin.sweep_every"],
  ])("%o is refused naming %s", (raw, text) => {
    expect(() => parseConfig(raw)).toThrow(text);
  });

  test("rpc_urls take URLs and { url, rate_limit, api_keys } tables side by side (DESIGN 25); the sweep's defaults", () => {
    const urls = [{ url: "https://p.example/v2/{api_key}", rate_limit: 2.5, api_keys: ["a", "b"] }, "https://bsc.example"];
    const { config } = parseConfig({ chains: { BSC: { mode: "rpc", rpc_urls: urls } }, sandbox: { allow_mixed: true } });
    expect(config.chains.BSC.rpc_urls).toEqual([{ url: "https://p.example/v2/{api_key}", rate_limit: 2.5, api_keys: ["a", "b"] }, "https://bsc.example"]);
    expect(config.payin).toMatchObject({ sweep_every: "5m", sweep_window: "24h" });
  });

  test("every problem is listed at once", () => {
    try {
      parseConfig({ server: { port: -1, x: 1 }, payin: { expire_after: "soon" } });
      throw new Error("accepted");
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).problems.length).toBe(3);
    }
  });

  test("config/stablegate.example.toml is current and loads as is", () => {
    const committed = readFileSync(join(root, "config/stablegate.example.toml"), "utf8");
    expect(committed).toBe(renderExampleConfig());
    expect(() => loadConfig(join(root, "config/stablegate.example.toml"))).not.toThrow();
  });
});

test.each([
  [{ public_url: "https://pay.example.com/" }, "https://pay.example.com"],
  [{ public_url: "https://example.com/pay/" }, "https://example.com/pay"],
  [{ host: "0.0.0.0", port: 9000 }, "http://127.0.0.1:9000"],
  [{ host: "::", port: 9000 }, "http://127.0.0.1:9000"],
  [{ host: "::1", port: 9000 }, "http://[::1]:9000"],
])("public URL from %o is %s", (server, url) => {
  expect(parseConfig({ server }).publicUrl).toBe(url);
});

test("public_url with a query is refused", () => {
  expect(() => parseConfig({ server: { public_url: "https://x.example/?a=1" } })).toThrow("server.public_url");
});

test.each([
  [{ schedule: "every hour" }, "backup.schedule: not a cron pattern"],
  [{ dir: "/srv/backups" }, "backup.schedule: needed for backup.dir and backup.s3_url"],
  [{ schedule: "15 * * * *", s3_url: "https://s3.example.com/b", s3_access_key: "AK" }, "backup.s3_secret_key: s3_access_key and s3_secret_key go together"],
  [{ schedule: "15 * * * *", s3_url: "https://s3.example.com" }, "backup.s3_url: name the bucket"],
  [{ schedule: "15 * * * *", s3_url: "ftp://x/b" }, "backup.s3_url"],
  [{ schedule: "15 * * * *", keep: 0 }, "backup.keep"],
])("[backup] %o is refused: %s", (backup, problem) => {
  expect(() => parseConfig({ backup })).toThrow(problem);
});

test("[backup] with a schedule, a folder, retention and a bucket loads", () => {
  const { config } = parseConfig({ backup: { schedule: "15 * * * *", dir: "/srv/backups", keep: 48, s3_url: "https://s3.eu-central-1.amazonaws.com/shop-backups/gw1", s3_access_key: "AK", s3_secret_key: "SK" } });
  expect(config.backup).toMatchObject({ schedule: "15 * * * *", keep: 48 });
});

describe("[database] url, pool_size and [cluster] takeover_after (DESIGN 22)", () => {
  test("defaults: SQLite (no url), a pool of 10, takeover after 15s", () => {
    const { config } = parseConfig({});
    expect(config.database.url).toBeUndefined();
    expect(config.database.pool_size).toBe(10);
    expect(config.cluster.takeover_after).toBe("15s");
  });

  test.each([
    "postgres://gw:pw@db.internal:5432/stablegate",
    "postgresql://db.internal/stablegate",
    "postgres://gw@10.0.0.5,10.0.0.6:5433/stablegate?target_session_attrs=read-write&sslmode=require",
    "postgres://gw:pw@[2001:db8::1]:5432/stablegate",
  ])("url %s loads", (url) => {
    expect(parseConfig({ database: { url, pool_size: 20 }, cluster: { takeover_after: "30s" } }).config.database).toMatchObject({ url, pool_size: 20 });
  });

  test.each([
    [{ database: { url: "mysql://db/x" } }, "database.url: must be a PostgreSQL URL"],
    [{ database: { url: "db.internal:5432/stablegate" } }, "database.url: must be a PostgreSQL URL"],
    [{ database: { url: "postgres://gw:pw@/stablegate" } }, "database.url: must name the server's host"],
    [{ database: { url: "postgres://gw:pw@db:99999/stablegate" } }, "database.url: has a bad port"],
    [{ database: { url: "postgres://gw:pw@db:5432" } }, "database.url: must name the database"],
    [{ database: { pool_size: 0 } }, "database.pool_size"],
    [{ cluster: { takeover_after: "soon" } }, "cluster.takeover_after: must be a duration"],
    [{ cluster: { takeover_after: "500ms" } }, "cluster.takeover_after: must be at least 1s"],
    [{ cluster: { leader: true } }, "cluster"],
  ])("%o is refused: %s", (raw, problem) => {
    expect(() => parseConfig(raw)).toThrow(problem);
  });

  test("a refused url is never repeated in the message (it may carry a password)", () => {
    try {
      parseConfig({ database: { url: "postgres://gw:hunter2@db:5432" } });
      throw new Error("accepted");
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as Error).message).not.toContain("hunter2");
    }
  });

  test("STABLEGATE_DATABASE_URL overrides [database] url; empty is refused", () => {
    const dir = mkdtempSync(join(tmpdir(), "sg-cfg-"));
    const path = join(dir, "stablegate.toml");
    writeFileSync(path, `[database]\npath = "x.db"\nurl = "postgres://a@file-host/db"\n`);
    expect(loadConfig(path, runOverrides({}, { STABLEGATE_DATABASE_URL: "postgres://a@env-host/db" })).config.database.url).toBe("postgres://a@env-host/db");
    expect(loadConfig(path, runOverrides({}, {})).config.database.url).toBe("postgres://a@file-host/db");
    expect(() => loadConfig(path, runOverrides({}, { STABLEGATE_DATABASE_URL: " " }))).toThrow("STABLEGATE_DATABASE_URL is set but empty");
    expect(loadConfig(path, runOverrides({ data: dir }, { STABLEGATE_DATABASE_URL: "postgres://a@env-host/db" })).config.database).toMatchObject({ path: join(dir, "stablegate.db"), url: "postgres://a@env-host/db" });
  });
});
