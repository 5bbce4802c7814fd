// The crash set-up the crash suites share: a gateway child process on a temp config and
// database, started with STABLEGATE_CRASH_AT so it SIGKILLs itself at that point
// (src/lib/crash.ts), restarted without it, and read back through its SQLite file.
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import type { ChainCode } from "../chains/types";
import { StablegateClient } from "../sdk/client";
import { openStore } from "../app/context";
import { CLI_ACTOR } from "../audit/log";
import { loadConfig } from "../config/load";
import { createMerchant } from "../merchants/service";
import { rpcChainToml, runCli, startGatewayProcess, tempSetup, type GatewayProcess, type TempSetup } from "./process";

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
  /** Runs the CLI on this config. */
  cli(...args: string[]): ReturnType<typeof runCli>;
  /** A read-only query on the gateway's database. */
  query<T>(sql: string, ...args: Array<string | number>): T[];
}

export type CrashGatewayOptions =
  | { merchantName: string; toml: string }
  | { merchantName: string; rpc: { chain: ChainCode; url: string; confirmations: number; pollInterval: string } };

const live: Array<() => Promise<unknown> | unknown> = [];

/** A temp setup (sandbox `toml`, or one chain in rpc mode) with a merchant made by the CLI. */
export async function crashGateway(opts: CrashGatewayOptions): Promise<CrashGateway> {
  const s = await tempSetup("rpc" in opts ? rpcChainToml(opts.rpc.chain, opts.rpc.url, opts.rpc) : opts.toml);
  const { merchantUid, apiKey } = createMerchantAsCli(s, opts.merchantName);
  live.push(() => rmSync(s.dir, { recursive: true, force: true }));
  return {
    s,
    merchantUid,
    apiKey,
    client: new StablegateClient({ baseUrl: s.url, merchantUid, apiKey }),
    async start(crashAt) {
      const g = await startGatewayProcess(s, { extraEnv: crashAt ? { STABLEGATE_CRASH_AT: crashAt } : {} });
      live.push(() => (g.proc.exitCode === null && g.proc.signalCode === null ? g.kill("SIGKILL") : undefined));
      return g;
    },
    cli: (...args) => runCli([...args, "--config", s.configPath], s.env),
    query<T>(sql: string, ...args: Array<string | number>): T[] {
      const db = new Database(s.dbPath, { readonly: true });
      try {
        return db.query(sql).all(...args) as T[];
      } finally {
        db.close();
      }
    },
  };
}

/**
 * What `merchant create` does, in this process: the same config, store and service, without
 * paying for a CLI process start per crash test (the suites test crashes, not the CLI).
 */
function createMerchantAsCli(s: TempSetup, name: string): { merchantUid: string; apiKey: string } {
  const { db, cipher } = openStore(loadConfig(s.configPath), s.env);
  try {
    const { merchant, apiKey } = createMerchant({ db, cipher, now: () => Date.now() }, { name }, CLI_ACTOR);
    return { merchantUid: merchant.uid, apiKey };
  } finally {
    db.$client.close();
  }
}

/** Kills what crashGateway() started and removes its folders (newest first); for afterAll. */
export async function disposeCrashGateways(): Promise<void> {
  for (const c of live.splice(0).reverse()) await c();
}
