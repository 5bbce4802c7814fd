import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { Cron } from "croner";
import { configSchema, type Config } from "./schema";
import { DURATION_PATTERN, parseDuration } from "../lib/duration";
import { compareAmounts } from "../lib/money";
import { cidrProblem } from "../lib/client-ip";
import { notifyUrlProblem } from "../lib/target-url";
import { chainCodes, chainModule, hasChainModule } from "../chains/registry";

export class ConfigError extends Error {
  constructor(public readonly problems: string[], source: string) {
    super(`invalid config (${source}):\n` + problems.map((p) => `  - ${p}`).join("\n"));
  }
}

export interface LoadedConfig {
  config: Config;
  source: string;
  /** Derived values the rest of the code uses (ms, resolved URL). */
  publicUrl: string;
}

/** --config, then STABLEGATE_CONFIG, then config/stablegate.toml, then the embedded default. */
export function resolveConfigPath(flag?: string, env = process.env): string | null {
  if (flag) return flag;
  if (env.STABLEGATE_CONFIG) return env.STABLEGATE_CONFIG;
  if (existsSync("config/stablegate.toml")) return "config/stablegate.toml";
  return null;
}

/** The listen port and the data folder chosen without a config file (`make run ARGS="--port 8080 --data ./mydata"`). */
export interface RunOverrides {
  port?: string;
  data?: string;
  /** `serve --demo` (`make run`): a sandbox gateway shows every chain (DESIGN 17), the opt-in ones too. */
  demo?: boolean;
  /** STABLEGATE_DATABASE_URL: PostgreSQL, over `[database] url` (DESIGN 22). */
  databaseUrl?: string;
}

/** `--port` / `--data`, else STABLEGATE_PORT / STABLEGATE_DATA. */
export function runOverrides(flags: Record<string, string | true>, env = process.env): RunOverrides {
  const pick = (flag: string, name: string) => (typeof flags[flag] === "string" ? (flags[flag] as string) : env[name] || undefined);
  return {
    port: pick("port", "STABLEGATE_PORT"),
    data: pick("data", "STABLEGATE_DATA"),
    demo: flags.demo === true || undefined,
    databaseUrl: env.STABLEGATE_DATABASE_URL,
  };
}

/** The database file in a data folder given by `--data` / STABLEGATE_DATA (as the default's `data/stablegate.db`). */
export const DATA_FOLDER_DB = "stablegate.db";

export function loadConfig(path: string | null, over: RunOverrides = {}): LoadedConfig {
  let raw: Record<string, unknown> = {};
  const source = path ?? "embedded default";
  if (path) {
    // A named file must exist and say something: falling back to the embedded default (a
    // database under ./data) would start a stranger beside the real gateway (DESIGN 16).
    if (!existsSync(path)) throw new ConfigError([`the config file ${path} does not exist (it is never replaced by the embedded default)`], source);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (e) {
      throw new ConfigError([`cannot read ${path}: ${(e as Error).message}`], source);
    }
    try {
      raw = Bun.TOML.parse(text) as Record<string, unknown>;
    } catch (e) {
      throw new ConfigError([`not valid TOML: ${(e as Error).message}`], source);
    }
    if (!raw || typeof raw !== "object" || !Object.keys(raw).length) {
      throw new ConfigError([`the config file ${path} is empty (no settings): write at least [database] path (config/stablegate.example.toml lists every key)`], source);
    }
  }
  return parseConfig(withOverrides(raw, over, source), source);
}

/** server.port and database.path from the overrides, over whatever the file (or the default) says. */
function withOverrides(raw: Record<string, unknown>, over: RunOverrides, source: string): Record<string, unknown> {
  const section = (k: string) => ({ ...((raw[k] as Record<string, unknown> | undefined) ?? {}) });
  const out = { ...raw };
  if (over.port !== undefined) {
    if (!/^\d{1,5}$/.test(over.port.trim()) || Number(over.port) > 65535) throw new ConfigError([`--port / STABLEGATE_PORT must be a port number from 0 to 65535, not "${over.port}"`], source);
    out.server = { ...section("server"), port: Number(over.port) };
  }
  if (over.data !== undefined) {
    if (!over.data.trim()) throw new ConfigError(["--data / STABLEGATE_DATA must name a folder"], source);
    out.database = { ...section("database"), path: join(over.data, DATA_FOLDER_DB) };
  }
  if (over.demo) out.chains = demoChains(section("chains"));
  if (over.databaseUrl !== undefined) {
    if (!over.databaseUrl.trim()) throw new ConfigError(["STABLEGATE_DATABASE_URL is set but empty: unset it, or give a postgres:// URL"], source);
    out.database = { ...((out.database as Record<string, unknown> | undefined) ?? {}), url: over.databaseUrl.trim() };
  }
  return out;
}

/**
 * `serve --demo` on a sandbox gateway turns on every chain whose `enabled` the config does not
 * set (the chains that are off by default, DESIGN 17); a gateway with an rpc chain stays as written.
 */
function demoChains(chains: Record<string, unknown>): Record<string, unknown> {
  const sections = chains as Record<string, Record<string, unknown> | undefined>;
  if (Object.values(sections).some((c) => c?.mode === "rpc")) return chains;
  return { ...chains, ...Object.fromEntries(chainCodes().filter((c) => sections[c]?.enabled === undefined).map((c) => [c, { ...sections[c], enabled: true }])) };
}

export function parseConfig(raw: unknown, source = "inline"): LoadedConfig {
  const schema = configSchema();
  const withDefaults = Value.Default(schema, structuredClone(raw ?? {}));
  const problems: string[] = [];
  for (const e of Value.Errors(schema, withDefaults)) {
    const key = e.path.replace(/^\//, "").replace(/\//g, ".") || "(root)";
    problems.push(`${key}: ${explain(e.schema as Record<string, unknown>, e.message)}`);
  }
  if (problems.length) throw new ConfigError(dedupe(problems), source);
  const config = withDefaults as Config;
  sandboxDefaults(raw, config);
  semanticChecks(config, problems);
  if (problems.length) throw new ConfigError(problems, source);
  const publicUrl = (config.server.public_url ?? defaultPublicUrl(config.server.host, config.server.port)).replace(/\/+$/, "");
  return { config, source, publicUrl };
}

/** Without public_url: the listen address, with a wildcard bind shown as loopback. */
function defaultPublicUrl(host: string, port: number): string {
  const h = host === "0.0.0.0" || host === "::" || host === "" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  return `http://${h}:${port}`;
}

/** Plainer words than TypeBox's for the common mistakes. */
function explain(schema: Record<string, unknown>, message: string): string {
  if (message === "Unexpected property") return "unknown key";
  if (schema.pattern === DURATION_PATTERN) return 'must be a duration such as "500ms", "3s", "5m", "24h"';
  if (Array.isArray(schema.anyOf) && schema.anyOf.every((x: { const?: unknown }) => x.const !== undefined)) {
    return "must be one of " + schema.anyOf.map((x: { const?: unknown }) => JSON.stringify(x.const)).join(", ");
  }
  return message.replace(/^Expected/, "expected");
}

function semanticChecks(c: Config, problems: string[]): void {
  if (c.database.url !== undefined) {
    const why = databaseUrlProblem(c.database.url);
    if (why) problems.push(`database.url: ${why}`);
  }
  if (parseDuration(c.cluster.takeover_after) < 1000) problems.push("cluster.takeover_after: must be at least 1s");
  const timeout = parseDuration(c.callbacks.timeout);
  if (timeout < 100) problems.push("callbacks.timeout: must be at least 100ms");
  for (const cidr of c.server.trusted_proxies) {
    const p = cidrProblem(cidr);
    if (p) problems.push(`server.trusted_proxies: ${JSON.stringify(cidr)} ${p}`);
  }
  sandboxMix(c, problems);
  alertChecks(c, problems);
  ratesChecks(c, problems);
  backupChecks(c, problems);
  compatChecks(c, problems);
  if (parseDuration(c.ops.max_scan_lag) < 1000) problems.push("ops.max_scan_lag: must be at least 1s");
  for (const [code, ch] of Object.entries(c.chains)) {
    if (ch.enabled && ch.mode === "rpc" && ch.rpc_urls.length === 0) problems.push(`chains.${code}.rpc_urls: rpc mode needs at least one URL`);
    for (const [sym, tok] of Object.entries(ch.tokens)) {
      if (tok && compareAmounts(tok.min_amount, tok.max_amount) > 0) problems.push(`chains.${code}.tokens.${sym}: min_amount is above max_amount`);
    }
  }
}

/** DESIGN 19: compatibility orders are paid on one known chain and token. */
function compatChecks(c: Config, problems: string[]): void {
  const [chain = "", token = ""] = c.compat.payment.split(":");
  if (!hasChainModule(chain)) problems.push(`compat.payment: unknown chain ${JSON.stringify(chain)}`);
  else if (!chainModule(chain).defaults.tokens.some((t) => t.symbol === token)) problems.push(`compat.payment: ${chain} has no token ${JSON.stringify(token)}`);
}

/** Sandbox is a whole-gateway mode (DESIGN 8): a real chain next to sandbox ones needs an explicit opt-in. */
function sandboxMix(c: Config, problems: string[]): void {
  const enabled = Object.entries(c.chains).filter(([, ch]) => ch.enabled);
  const sandbox = enabled.filter(([, ch]) => ch.mode === "sandbox").map(([code]) => code);
  const rpc = enabled.filter(([, ch]) => ch.mode === "rpc").map(([code]) => code);
  if (sandbox.length && rpc.length && !c.sandbox.allow_mixed) {
    problems.push(
      `sandbox.allow_mixed: chains ${sandbox.join(", ")} are in sandbox mode while ${rpc.join(", ")} use rpc; ` +
        `set every enabled chain's mode (or enabled = false), or set [sandbox] allow_mixed = true (tests only)`,
    );
  }
}

/**
 * DESIGN 8: in a sandbox gateway callbacks.allow_private_targets defaults to true, so a developer's
 * receiver on 127.0.0.1 works out of the box; with any rpc chain it stays false unless set.
 */
function sandboxDefaults(raw: unknown, c: Config): void {
  const enabled = Object.values(c.chains).filter((ch) => ch.enabled);
  const sandbox = enabled.length > 0 && enabled.every((ch) => ch.mode === "sandbox");
  // Operators' second factor: on for a gateway that moves real money, off in sandbox mode.
  c.backoffice.require_2fa ??= !sandbox;
  const given = (raw as { callbacks?: { allow_private_targets?: unknown } } | null)?.callbacks?.allow_private_targets;
  if (given !== undefined) return;
  if (sandbox) c.callbacks.allow_private_targets = true;
}

function ratesChecks(c: Config, problems: string[]): void {
  const r = c.rates;
  for (const [cur, rate] of Object.entries(r.fixed)) if (compareAmounts(rate, "0") <= 0) problems.push(`rates.fixed.${cur}: must be greater than 0`);
  if (r.source === "coingecko" && parseDuration(r.refresh) >= parseDuration(r.max_age)) problems.push("rates.refresh: must be shorter than rates.max_age (else every rate goes stale between fetches)");
  if (parseDuration(r.refresh) < 10_000) problems.push("rates.refresh: must be at least 10s");
  if (compareAmounts(c.payin.underpay_tolerance_percent, "100") > 0) problems.push("payin.underpay_tolerance_percent: must be at most 100");
  if (compareAmounts(r.spread_percent, "100") > 0) problems.push("rates.spread_percent: must be at most 100");
}

function alertChecks(c: Config, problems: string[]): void {
  const a = c.alerts;
  if (a.webhook_url && !a.webhook_secret) problems.push("alerts.webhook_secret: needed with alerts.webhook_url");
  // The callbacks' target rules (DESIGN 10); delivery checks the resolved address again.
  const hook = a.webhook_url ? notifyUrlProblem(a.webhook_url, c.callbacks.allow_private_targets) : null;
  if (hook) problems.push(`alerts.webhook_url: ${hook}${hook === "must be a public address" ? " (or set callbacks.allow_private_targets = true)" : ""}`);
  if (!!a.telegram_bot_token !== !!a.telegram_chat_id) problems.push("alerts.telegram_chat_id: telegram_bot_token and telegram_chat_id go together");
}

function backupChecks(c: Config, problems: string[]): void {
  const b = c.backup;
  if (b.schedule !== undefined) {
    try {
      new Cron(b.schedule, { paused: true, timezone: "UTC" });
    } catch (e) {
      problems.push(`backup.schedule: not a cron pattern (${(e as Error).message})`);
    }
  } else if (b.dir !== undefined || b.s3_url !== undefined) problems.push("backup.schedule: needed for backup.dir and backup.s3_url to take effect");
  if (!!b.s3_access_key !== !!b.s3_secret_key) problems.push("backup.s3_secret_key: s3_access_key and s3_secret_key go together");
  if ((b.s3_access_key || b.s3_secret_key) && !b.s3_url) problems.push("backup.s3_url: needed with s3_access_key and s3_secret_key");
  if (b.s3_url) {
    const u = new URL(b.s3_url);
    if (u.protocol !== "s3:" && u.pathname.split("/").filter(Boolean).length === 0) problems.push("backup.s3_url: name the bucket in the path (https://ENDPOINT/BUCKET[/PREFIX])");
  }
}

function dedupe(xs: string[]): string[] {
  return [...new Set(xs)];
}

/**
 * What is wrong with a PostgreSQL URL (null when nothing is): libpq's URL form, scheme postgres or
 * postgresql, a host (several, comma-separated, for failover) and a database name. The message
 * never repeats the URL, which may carry a password.
 */
export function databaseUrlProblem(url: string): string | null {
  const m = /^(postgres|postgresql):\/\/(?:[^@/?#]*@)?([^/?#]*)(\/[^?#]*)?(\?[^#]*)?$/.exec(url.trim());
  if (!m) return 'must be a PostgreSQL URL such as "postgres://user:pass@host:5432/db" (scheme postgres:// or postgresql://)';
  const hosts = m[2]!.split(",");
  if (hosts.some((h) => !h || /^:/.test(h))) return "must name the server's host (postgres://user:pass@HOST:5432/db; several hosts comma-separated)";
  for (const h of hosts) {
    const port = /:(\d*)$/.exec(h.replace(/^\[[^\]]*\]/, ""))?.[1];
    if (port !== undefined && (!/^\d{1,5}$/.test(port) || Number(port) > 65535)) return `has a bad port in host "${h.replace(/:.*$/, "")}": a port is a number from 1 to 65535`;
  }
  const db = (m[3] ?? "").replace(/^\//, "");
  if (!db) return "must name the database (postgres://user:pass@host:5432/DATABASE)";
  return null;
}
