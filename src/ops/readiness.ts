// /healthz (liveness: process and database) and /readyz (DESIGN 14): ready when the
// database takes writes that reach the disk, its file is the one opened, the disk
// has ops.min_free_disk_mb free (src/ops/storage.ts), and every enabled chain has
// an RPC endpoint up and a watcher within ops.max_scan_lag of its final head.
import type { ChainAdapter, ChainCode } from "../chains/types";
import type { Config } from "../config/schema";
import type { Db } from "../db/client";
import type { Clock } from "../lib/clock";
import { VERSION } from "../version";
import { chainProblems, chainState, type ChainState, type Watchers } from "./chain-status";
import type { GasMonitor } from "./gas";
import { parseDuration } from "../lib/duration";
import type { StorageMonitor, StorageState } from "./storage";
import { ping } from "./store";
import { describeFault } from "../db/storage-fault";
import { mapSeq } from "../lib/async-seq";
import type { ClusterRole, Role } from "./cluster-role";

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
  storage: StorageMonitor;
  /**
   * This gateway's cluster role (DESIGN 22); absent: alone on its database, the leader. The leader
   * runs the chain watchers: a follower's readiness is its database's (its own watchers are idle).
   */
  cluster?: Pick<ClusterRole, "isLeader">;
}

/** Sandbox is a whole-gateway mode: every enabled chain is a sandbox chain. */
export function isSandboxGateway(ctx: Pick<OpsCtx, "chains">): boolean {
  const chains = [...ctx.chains.values()];
  return chains.length > 0 && chains.every((c) => c.mode === "sandbox");
}

/** `role`: this gateway's cluster role (DESIGN 22); a SQLite gateway is alone, the leader. */
export async function liveness(ctx: Pick<OpsCtx, "db" | "chains">, role: Role = "leader") {
  let database = true;
  try {
    await ping(ctx.db);
  } catch {
    database = false;
  }
  return {
    ok: database,
    body: { status: database ? "ok" : "error", version: VERSION, sandbox: isSandboxGateway(ctx), database, role, chains: [...ctx.chains.values()].map((c) => ({ chainCode: c.chain, mode: c.mode })) },
  };
}

export interface Readiness {
  ready: boolean;
  body: {
    status: "ready" | "not_ready";
    sandbox: boolean;
    database: { writable: boolean; file: StorageState["file"]; freeBytes: number | null; minFreeBytes: number; diskLow: boolean };
    reasons: string[];
    chains: ChainState[];
  };
}

/** The storage problems, as readiness reasons and alert messages. */
export function storageProblems(s: StorageState): { unwritable: string | null; diskLow: string | null } {
  const mib = (n: number) => `${Math.floor(n / 1024 / 1024)} MiB`;
  return {
    unwritable:
      s.file !== "ok"
        ? `database file ${s.file} under the running gateway: writes stopped; restore it and restart (docs/operations.md, "Storage faults")`
        : s.error
          ? `database is not writable: ${s.error}`
          : null,
    diskLow: s.diskLow && s.freeBytes !== null ? `disk space low: ${mib(s.freeBytes)} free where the database lives, below ops.min_free_disk_mb (${mib(s.minFreeBytes)})` : null,
  };
}

export async function readiness(d: ReadinessDeps): Promise<Readiness> {
  const now = d.ctx.clock.now();
  const maxLag = parseDuration(d.ctx.config.ops.max_scan_lag);
  const reasons: string[] = [];
  const st = await d.storage.check();
  const problems = storageProblems(st);
  if (problems.unwritable) reasons.push(problems.unwritable);
  if (problems.diskLow) reasons.push(problems.diskLow);
  // The chains' state reads the database too (the scan cursor): unreadable while it is down, which the storage reason already says.
  const chains = await mapSeq([...d.ctx.chains.values()], async (a) => await chainState(a, d.watchers.get(a.chain), d.gas, now)).catch((e: unknown) => {
    reasons.push(`chain state unreadable: ${describeFault(e)}`);
    return [] as ChainState[];
  });
  const watching = d.cluster?.isLeader() ?? true;
  if (watching) for (const s of chains) for (const p of chainProblems(s, maxLag)) reasons.push(`${p.chain}: ${p.detail}`);
  const ready = reasons.length === 0;
  return { ready, body: { status: ready ? "ready" : "not_ready", sandbox: isSandboxGateway(d.ctx), database: { writable: st.writable, file: st.file, freeBytes: st.freeBytes, minFreeBytes: st.minFreeBytes, diskLow: st.diskLow }, reasons, chains } };
}
