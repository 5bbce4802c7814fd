// The crash set-up the crash suites share: a gateway child process on a temp config and
// database, started with STABLEGATE_CRASH_AT so it SIGKILLs itself at that point
// (src/lib/crash.ts), restarted without it, and read back. The child runs on the test process's
// engine (SG_TEST_DB, src/testing/engines.ts): a SQLite file, or a PostgreSQL database of its own
// cloned from the run's migrated template; `read`/`rows` read it on either engine (engine-rows).
import { Database } from "bun:sqlite";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SQL } from "drizzle-orm";
import type { ChainCode } from "../chains/types";
import { closeDb, closeSqlite, dbOver, type Db } from "../db/client";
import { openPgDb } from "../db/tx-pg";
import { StablegateClient } from "../sdk/client";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { addresses, sandboxTransfers, solTokenAccounts } from "../db/schema";
import { tableRows, testSql } from "./engine-rows";
import { TEST_ENGINE, type TestEngine } from "./engines";
import { createTestDatabase } from "./postgres";
import { eventually, exitsWithin } from "./wait";
import { BUN, ROOT, rpcChainToml, startGatewayProcess, tail, tempSetup, type GatewayProcess, type TempSetup } from "./process";

/** Sandbox TRON only, 2 confirmations, no block time: what the sandbox crash tests run on. */
export const SANDBOX_TRON_ONLY = `[log]
level = "warn"
[chains.TRON]
confirmations = 2
block_time = "0s"
[chains.BSC]
enabled = false
[chains.SOL]
enabled = false
`;

export interface CrashGateway {
  s: TempSetup;
  merchantUid: string;
  apiKey: string;
  client: StablegateClient;
  /** Starts `serve`; with `crashAt` it kills itself (SIGKILL) when it reaches that point. */
  start(crashAt?: string): Promise<GatewayProcess>;
  /** Runs the CLI on this config (spawned: the nodes and other cases in this process keep running). */
  cli(...args: string[]): Promise<CliResult>;
  /**
   * `restore --from FILE` the way an operator restores on the gateway's engine (the gateway stopped):
   * SQLite in place; PostgreSQL (pg_restore, DESIGN 22) into a new empty database that the config
   * then names, as the refusal of a database with rows tells the operator. Reads follow it.
   */
  restore(from: string): Promise<CliResult>;
  /** Runs `fn` on a handle to the gateway's database, on its engine (tableRows, testSql, stores). */
  read<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /** One portable statement (drizzle's `sql`) on the gateway's database; its rows. */
  rows<T = Record<string, unknown>>(q: SQL): Promise<T[]>;
}

export type CrashGatewayOptions = (
  | { merchantName: string; toml: string }
  | { merchantName: string; rpc: { chain: ChainCode; url: string; confirmations: number; pollInterval: string } }
) & {
  /** The child's engine (default: the test process's, SG_TEST_DB). */
  engine?: TestEngine;
};

const live: Array<() => Promise<unknown> | unknown> = [];

/**
 * Process starts at once: a crash suite's rows start their gateways and CLI calls together, and
 * a bun start is the most CPU a row spends at once; on two loaded cores seventeen of them at once
 * ran past the 45 s start deadline. A start (until /healthz answers) or a CLI run takes a slot.
 */
const START_SLOTS = 4;
let startsRunning = 0;
const startQueue: Array<() => void> = [];

async function inStartSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (startsRunning >= START_SLOTS) await new Promise<void>((go) => startQueue.push(go));
  else startsRunning++;
  try {
    return await fn();
  } finally {
    // The slot passes to the next waiter, or is freed.
    const next = startQueue.shift();
    if (next) next();
    else startsRunning--;
  }
}

/** A temp setup (sandbox `toml`, or one chain in rpc mode) with a merchant made by the CLI. */
export async function crashGateway(opts: CrashGatewayOptions): Promise<CrashGateway> {
  const engine = opts.engine ?? TEST_ENGINE;
  const s = await tempSetup("rpc" in opts ? rpcChainToml(opts.rpc.chain, opts.rpc.url, opts.rpc) : opts.toml, { engine, fromTemplate: true });
  live.push(async () => {
    rmSync(s.dir, { recursive: true, force: true });
    await s.drop?.();
  });
  const { merchantUid, apiKey } = await createMerchantByCli(s, opts.merchantName);
  const read = readerOf(s);
  return {
    s,
    merchantUid,
    apiKey,
    client: new StablegateClient({ baseUrl: s.url, merchantUid, apiKey }),
    async start(crashAt) {
      // Crash suites start many child gateways at once on shared cores: a generous start deadline.
      const g = await inStartSlot(() => startGatewayProcess(s, { extraEnv: crashAt ? { STABLEGATE_CRASH_AT: crashAt } : {}, timeoutMs: 45_000 }));
      live.push(() => (g.proc.exitCode === null && g.proc.signalCode === null ? g.kill("SIGKILL") : undefined));
      return g;
    },
    cli: (...args) => cli([...args, "--config", s.configPath], s.env),
    async restore(from) {
      if (s.dbUrl) await pointAtEmptyDatabase(s);
      return await cli(["restore", "--from", from, "--config", s.configPath], s.env);
    },
    read,
    rows: <T>(q: SQL) => read((db) => testSql<T>(db, q)),
  };
}

/**
 * The reader of a child's database: SQLite opened read-only per read (the child may be running or
 * killed; nothing kept open across its restarts), PostgreSQL one small pool kept until dispose.
 */
function readerOf(s: TempSetup): <T>(fn: (db: Db) => Promise<T>) => Promise<T> {
  if (!s.dbUrl) {
    return async (fn) => {
      const db = dbOver(new Database(s.dbPath, { readonly: true, strict: true }));
      try {
        return await fn(db);
      } finally {
        // Finalizing drizzle's prepared statements releases the file now: a lazy close kept it
        // open until they were collected, and `restore` then found the database in use.
        closeSqlite(db, true);
      }
    };
  }
  let pool: { url: string; db: Db } | null = null;
  const close = async () => {
    if (pool) await closeDb(pool.db).catch(() => undefined);
    pool = null;
  };
  // Closed before the database is dropped (live runs newest first).
  live.push(close);
  return async (fn) => {
    // After a restore the config names another database (pointAtEmptyDatabase): read that one.
    if (pool && pool.url !== s.dbUrl) await close();
    pool ??= { url: s.dbUrl!, db: openPgDb(s.dbUrl!, 2) };
    return await fn(pool.db);
  };
}

/** A new empty PostgreSQL database for `s`, named by its config's [database] url from now on (the old one kept, dropped at dispose). */
async function pointAtEmptyDatabase(s: TempSetup): Promise<void> {
  const fresh = await createTestDatabase({ empty: true });
  live.push(() => fresh.drop().catch(() => undefined));
  const config = readFileSync(s.configPath, "utf8");
  if (!config.includes(`url = "${s.dbUrl}"`)) throw new Error("crash gateway: the config does not name its database");
  writeFileSync(s.configPath, config.replace(`url = "${s.dbUrl}"`, `url = "${fresh.url}"`));
  s.dbUrl = fresh.url;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A CLI run's deadline: a command waiting on a dead node or a locked database fails the case naming it. */
const CLI_DEADLINE_MS = 120_000;

/** runCli without blocking: the test nodes (TRON, SOL) answer from this process meanwhile. */
function cli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return inStartSlot(async () => {
    const p = Bun.spawn([BUN, join(ROOT, "src/main.ts"), ...args], { cwd: ROOT, env, stdout: "pipe", stderr: "pipe" });
    const out = Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
    if (!(await exitsWithin(p, CLI_DEADLINE_MS))) {
      p.kill("SIGKILL");
      const [, stderr] = await out;
      throw new Error(`\`${args.slice(0, 2).join(" ")}\` did not finish within ${CLI_DEADLINE_MS / 1000} s (killed); stderr: ${tail(stderr)}`);
    }
    const [[stdout, stderr], code] = await Promise.all([out, p.exited]);
    return { code, stdout, stderr };
  });
}

/** `merchant create --json` through the CLI, as an operator would. */
async function createMerchantByCli(s: TempSetup, name: string): Promise<{ merchantUid: string; apiKey: string }> {
  const made = await cli(["merchant", "create", "--name", name, "--json", "--config", s.configPath], s.env);
  if (made.code !== 0) throw new Error(`merchant create failed: ${made.stderr}`);
  return JSON.parse(made.stdout) as { merchantUid: string; apiKey: string };
}

/** Kills what crashGateway() started and removes its folders (newest first); for afterAll. */
export async function disposeCrashGateways(): Promise<void> {
  for (const c of live.splice(0).reverse()) await c();
}

/** The rows of `table` matching `match` on the child's database, in insertion order (either engine). */
export function rowsOf<T extends SQLiteTable>(c: CrashGateway, table: T, match: Partial<T["$inferSelect"]> = {}): Promise<T["$inferSelect"][]> {
  return c.read((db) => tableRows(db, table, match));
}

/** The sandbox chain's mined transfers matching `match` (e.g. `{ fromAddress }`), in insertion order. */
export async function minedTransfers(c: CrashGateway, match: Partial<typeof sandboxTransfers.$inferSelect>): Promise<Array<typeof sandboxTransfers.$inferSelect>> {
  return (await rowsOf(c, sandboxTransfers, match)).filter((t) => t.blockNumber !== null);
}

/** The Solana token-accounts row of the receiving address `address` (undefined: none yet). */
export async function solTokenAccountOf(c: CrashGateway, address: string): Promise<typeof solTokenAccounts.$inferSelect | undefined> {
  const [a] = await rowsOf(c, addresses, { chain: "SOL", address });
  return a ? (await rowsOf(c, solTokenAccounts, { addressId: a.id }))[0] : undefined;
}

/** Until the Solana token-accounts job has sent (or finished) `address`'s token account, as it does for every receiving address. */
export function solTokenAccountMade(c: CrashGateway, address: string): Promise<unknown> {
  return eventually(
    async () => (await solTokenAccountOf(c, address))?.status.match(/^(broadcasted|created)$/),
    60_000,
    "the source's token account created by the gas wallet",
    50,
  );
}

/**
 * Until a child started with `start(point)` has killed itself there (SIGKILL). One that has not
 * within `ms` (a request that failed for another reason, so the point is never reached) is killed
 * and fails the case naming the point, instead of holding it until the runner's timeout.
 */
export async function killedAt(g: GatewayProcess, point: string, ms = 60_000): Promise<void> {
  const output = () => `stdout: ${tail(g.stdout())}\nstderr: ${tail(g.stderr())}`;
  if (!(await exitsWithin(g.proc, ms))) {
    g.proc.kill("SIGKILL");
    await g.proc.exited;
    throw new Error(`the child gateway did not kill itself at ${point} within ${ms / 1000} s (killed now)\n${output()}`);
  }
  if (g.proc.signalCode !== "SIGKILL") throw new Error(`the child gateway exited (${g.proc.signalCode ?? g.proc.exitCode}) before ${point}\n${output()}`);
}

/** Until a payout is final (confirmed or failed), through the merchant API; returns it. */
export function payoutSettled(client: StablegateClient, orderNo: string): Promise<Record<string, any>> {
  return eventually(
    async () => {
      const x = await client.request<Record<string, any>>("GET", `/openapi/payout/orders/${orderNo}`);
      return x.status === "confirmed" || x.status === "failed" ? x : null;
    },
    40_000,
    "the payout settled",
    50,
  );
}
