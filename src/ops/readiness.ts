// /healthz (liveness: process and database) and /readyz (DESIGN 14): ready when the
// database takes writes and every enabled chain has an RPC endpoint up and a
// watcher within ops.max_scan_lag of its final head.
import type { ChainAdapter, ChainCode } from "../chains/types";
import type { Config } from "../config/schema";
import type { Db } from "../db/client";
import type { Clock } from "../lib/clock";
import { VERSION } from "../version";
import { chainProblems, chainState, type ChainState, type Watchers } from "./chain-status";
import type { GasMonitor } from "./gas";
import { parseDuration } from "../lib/duration";

/** What the ops probes, metrics and alerts read from the gateway. */
export interface OpsCtx {
  db: Db;
  clock: Clock;
  /** Enabled chains only. */
  chains: ReadonlyMap<ChainCode, ChainAdapter>;
  config: Pick<Config, "ops" | "chains" | "backup">;
}

export interface ReadinessDeps {
  ctx: OpsCtx;
  watchers: Watchers;
  gas: GasMonitor;
}

/** Sandbox is a whole-gateway mode: every enabled chain is a sandbox chain. */
export function isSandboxGateway(ctx: Pick<OpsCtx, "chains">): boolean {
  const chains = [...ctx.chains.values()];
  return chains.length > 0 && chains.every((c) => c.mode === "sandbox");
}

export function liveness(ctx: Pick<OpsCtx, "db" | "chains">) {
  let database = true;
  try {
    ctx.db.$client.query("SELECT 1").get();
  } catch {
    database = false;
  }
  return {
    ok: database,
    body: { status: database ? "ok" : "error", version: VERSION, sandbox: isSandboxGateway(ctx), database, chains: [...ctx.chains.values()].map((c) => ({ chainCode: c.chain, mode: c.mode })) },
  };
}

/** A real write (rolled back): a full disk or a read-only file fails here. */
function databaseWritable(ctx: Pick<OpsCtx, "db">): string | null {
  const c = ctx.db.$client;
  if (c.inTransaction) return null;
  // Another process holding the write lock (a backup) must not stall the probe for the
  // connection's full busy_timeout: wait briefly (the call is synchronous; restored below).
  const busy = (c.query("PRAGMA busy_timeout").get() as Record<string, number>) ?? {};
  const previous = Object.values(busy)[0] ?? 5000;
  c.run("PRAGMA busy_timeout = 250");
  try {
    c.transaction(() => {
      c.run("INSERT INTO settings (key, value, updated_at) VALUES ('ops.readyz', '1', 0) ON CONFLICT (key) DO UPDATE SET updated_at = updated_at + 1");
      throw new Rollback();
    }).immediate();
  } catch (e) {
    if (!(e instanceof Rollback)) return String((e as Error)?.message ?? e);
  } finally {
    c.run(`PRAGMA busy_timeout = ${Number(previous)}`);
  }
  return null;
}
class Rollback extends Error {}

export interface Readiness {
  ready: boolean;
  body: { status: "ready" | "not_ready"; sandbox: boolean; database: { writable: boolean }; reasons: string[]; chains: ChainState[] };
}

export function readiness(d: ReadinessDeps): Readiness {
  const now = d.ctx.clock.now();
  const maxLag = parseDuration(d.ctx.config.ops.max_scan_lag);
  const reasons: string[] = [];
  const dbError = databaseWritable(d.ctx);
  if (dbError) reasons.push(`database is not writable: ${dbError}`);
  const chains = [...d.ctx.chains.values()].map((a) => chainState(a, d.watchers.get(a.chain), d.gas, now));
  for (const s of chains) for (const p of chainProblems(s, maxLag)) reasons.push(`${p.chain}: ${p.detail}`);
  const ready = reasons.length === 0;
  return { ready, body: { status: ready ? "ready" : "not_ready", sandbox: isSandboxGateway(d.ctx), database: { writable: !dbError }, reasons, chains } };
}
