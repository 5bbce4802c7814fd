// Runs the gateway as a real child process (`bun src/main.ts ...`), for tests
// that kill it, restart it or drive the CLI.
import { JSC_RAM_ENV } from "../lib/jsc-heap";
import { afterAll } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exitsWithin, freePort } from "./wait";
import { initDataFolder } from "../app/data-folder";
import { initPostgres } from "../app/postgres";
import { createTestDatabase } from "./postgres";
import { loadConfig } from "../config/load";
import { chainCodes } from "../chains/registry";
import type { ChainCode } from "../chains/types";

export const ROOT = join(import.meta.dir, "..", "..");
export const BUN = process.execPath;

export interface TempSetup {
  dir: string;
  configPath: string;
  dbPath: string;
  port: number;
  url: string;
  env: Record<string, string>;
  /** engine "pg": the PostgreSQL database's URL ([database] url; dbPath is then unused). */
  dbUrl?: string;
  /** Drops the PostgreSQL database (tempSetups does after the file's tests). */
  drop?: () => Promise<void>;
}

/**
 * A temp folder with a config file (`toml` is appended after the basics) and its data folder
 * made as `stablegate init` makes it (in-process, the same function); `init: false` leaves the
 * database path empty (tests of init itself, of refusals, of upgrades).
 */
export async function tempSetup(toml = "", opts: TempSetupOptions = {}): Promise<TempSetup> {
  const dir = mkdtempSync(join(tmpdir(), "stablegate-proc-"));
  const port = await freePort();
  const dbPath = join(dir, "data", "stablegate.db");
  const configPath = join(dir, "stablegate.toml");
  // engine "pg": a database of its own on the test run's PostgreSQL, made as `stablegate init` makes it.
  // fromTemplate: cloned from the run's migrated template (init then finds nothing to migrate: cheaper).
  const pg = opts.engine === "pg" ? await createTestDatabase({ empty: !opts.fromTemplate }) : null;
  const database = pg ? `url = "${pg.url}"` : `path = "${dbPath}"`;
  writeFileSync(
    configPath,
    `[server]\nhost = "127.0.0.1"\nport = ${port}\n[database]\n${database}\n[callbacks]\nallow_private_targets = true\n${toml}\n`,
  );
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  delete env.STABLEGATE_CONFIG;
  if (opts.masterKey !== null) env.STABLEGATE_MASTER_KEY = opts.masterKey ?? "proc-test-master-key";
  else delete env.STABLEGATE_MASTER_KEY;
  if (opts.init !== false) {
    if (pg) await initPostgres(loadConfig(configPath), env);
    else await initDataFolder(loadConfig(configPath), env);
  }
  return { dir, configPath, dbPath, port, url: `http://127.0.0.1:${port}`, env, ...(pg ? { dbUrl: pg.url, drop: async () => await pg.drop().catch(() => undefined) } : {}) };
}

export interface TempSetupOptions {
  masterKey?: string | null;
  init?: boolean;
  /** "pg": the gateway runs on PostgreSQL (default SQLite; pass TEST_ENGINE for both engines). */
  engine?: "sqlite" | "pg";
  /** engine "pg": clone the database from the migrated template instead of migrating an empty one. */
  fromTemplate?: boolean;
}

/** tempSetup for one test file: every folder it makes is removed after the file's tests. */
export function tempSetups(): (toml?: string, opts?: TempSetupOptions) => Promise<TempSetup> {
  const made: TempSetup[] = [];
  afterAll(async () => {
    for (const s of made) {
      rmSync(s.dir, { recursive: true, force: true });
      await s.drop?.();
    }
  });
  return async (toml = "", opts = {}) => {
    const s = await tempSetup(toml, opts);
    made.push(s);
    return s;
  };
}

export function runCli(args: string[], env: Record<string, string>, cmd: string[] = [BUN, join(ROOT, "src/main.ts")]) {
  const p = Bun.spawnSync([...cmd, ...args], { cwd: ROOT, env, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

/** runCli without blocking this process (a test that holds a lock while the command runs). */
export async function runCliAsync(args: string[], env: Record<string, string>, cmd: string[] = [BUN, join(ROOT, "src/main.ts")]) {
  const p = Bun.spawn([...cmd, ...args], { cwd: ROOT, env, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}

export interface GatewayProcess {
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  stdout(): string;
  stderr(): string;
  kill(signal?: NodeJS.Signals | number): Promise<number>;
}

/** Starts `serve` and waits until /healthz answers. */
export async function startGatewayProcess(
  s: TempSetup,
  opts: { extraEnv?: Record<string, string>; args?: string[]; cmd?: string[]; timeoutMs?: number; cwd?: string } = {},
): Promise<GatewayProcess> {
  const cmd = opts.cmd ?? [BUN, join(ROOT, "src/main.ts")];
  const proc = Bun.spawn([...cmd, "serve", "--config", s.configPath, ...(opts.args ?? [])], {
    cwd: opts.cwd ?? ROOT,
    // The heap sizing `make run` and the systemd unit give the gateway (lib/jsc-heap.ts), unless the caller's environment sets its own.
    env: { ...JSC_RAM_ENV, ...s.env, ...opts.extraEnv },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  let out = "";
  let err = "";
  const pump = async (stream: ReadableStream<Uint8Array>, add: (t: string) => void) => {
    const dec = new TextDecoder();
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      add(dec.decode(value, { stream: true }));
    }
  };
  void pump(proc.stdout, (t) => (out += t));
  void pump(proc.stderr, (t) => (err += t));
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`gateway exited ${proc.exitCode}: ${err}`);
    try {
      // Bounded: a connection accepted and never answered would otherwise outlive the deadline.
      const r = await fetch(s.url + "/healthz", { signal: AbortSignal.timeout(Math.max(1_000, Math.min(5_000, deadline - Date.now()))) });
      if (r.ok) break;
    } catch {}
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`gateway did not start: ${err}`);
    }
    await Bun.sleep(50);
  }
  return {
    proc,
    stdout: () => out,
    stderr: () => err,
    async kill(signal = "SIGTERM") {
      proc.kill(signal as NodeJS.Signals);
      if (await exitsWithin(proc, STOP_DEADLINE_MS)) return await proc.exited;
      // Shutdown takes at most 5 s (usage.ts): a child still up is hung; say so, not the runner's timeout.
      proc.kill("SIGKILL");
      await proc.exited;
      throw new Error(`gateway did not exit within ${STOP_DEADLINE_MS / 1000} s of ${signal} (killed); stderr: ${tail(err)}`);
    },
  };
}

/** How long a child gateway may take to stop on a signal (its own shutdown takes at most 5 s; loaded cores). */
const STOP_DEADLINE_MS = 30_000;

/** The end of a child's output, for failure messages. */
export const tail = (text: string, chars = 2_000): string => (text.length > chars ? "…" + text.slice(-chars) : text);

/** Config lines enabling only `chain`, in rpc mode against `rpcUrl`. */
export function rpcChainToml(chain: ChainCode, rpcUrl: string, opts: { confirmations: number; pollInterval: string }): string {
  // Every other registered chain off (the opt-in ones are off by default; saying so keeps the file self-explaining).
  const others = chainCodes().filter((c) => c !== chain);
  return (
    `[log]\nlevel = "warn"\n[chains.${chain}]\nenabled = true\nmode = "rpc"\nrpc_urls = ["${rpcUrl}"]\nconfirmations = ${opts.confirmations}\npoll_interval = "${opts.pollInterval}"\n` +
    others.map((c) => `[chains.${c}]\nenabled = false\n`).join("")
  );
}

/**
 * A temp config with only `chain` enabled, in rpc mode against `rpcUrl`, and a
 * merchant created through the CLI with a signing client for it.
 */
export async function rpcChainSetup(
  chain: ChainCode,
  rpcUrl: string,
  opts: { confirmations: number; pollInterval: string; merchantName: string },
) {
  const s = await tempSetup(rpcChainToml(chain, rpcUrl, opts));
  const made = runCli(["merchant", "create", "--name", opts.merchantName, "--json", "--config", s.configPath], s.env);
  if (made.code !== 0) throw new Error(`merchant create failed: ${made.stderr}`);
  const { merchantUid, apiKey } = JSON.parse(made.stdout) as { merchantUid: string; apiKey: string };
  const { StablegateClient } = await import("../sdk/client");
  return { s, merchantUid, apiKey, client: new StablegateClient({ baseUrl: s.url, merchantUid, apiKey }) };
}
