// Live state of each enabled chain, read from what the watchers and the failover
// RPC clients already track (nothing here calls a node): /readyz, /metrics and
// the alert job all read it.
import type { ChainAdapter, ChainCode } from "../chains/types";
import type { ChainWatcher } from "../watcher/watcher";
import type { GasMonitor } from "./gas";

export interface EndpointState {
  /** Scheme and host only: provider URLs carry keys in paths and queries. */
  endpoint: string;
  up: boolean;
  lastError: string | null;
  outcomes: Record<string, number>;
  /** Answers that said "slow down" (429, TronGrid's 403) since start (DESIGN 25). */
  throttled: number;
}

export interface ChainState {
  chainCode: ChainCode;
  mode: "sandbox" | "rpc";
  head: string | null;
  final: string | null;
  scanned: string | null;
  lagBlocks: string | null;
  lagSeconds: number;
  rpc: Array<Omit<EndpointState, "outcomes" | "throttled">>;
  gasWallet: { address: string; balance: string | null; low: boolean } | null;
}

interface HasHealth {
  rpc: { healthSnapshot(): Array<{ url: string; up: boolean; lastError?: string; outcomes: Record<string, number>; throttled?: number }> };
}

/** The failover client's per-URL health; a sandbox chain has no endpoints. */
export function rpcEndpoints(adapter: ChainAdapter): EndpointState[] {
  const rpc = (adapter as Partial<HasHealth>).rpc;
  if (!rpc || typeof rpc.healthSnapshot !== "function") return [];
  return rpc.healthSnapshot().map((h) => ({ endpoint: endpointLabel(h.url), up: h.up, lastError: h.lastError ?? null, outcomes: h.outcomes, throttled: h.throttled ?? 0 }));
}

/** redactUrl's form without the "/…" marker: scheme://host. */
export function endpointLabel(url: string): string {
  return url.replace(/\/….*$/, "");
}

export async function chainState(adapter: ChainAdapter, watcher: ChainWatcher | undefined, gas: GasMonitor | undefined, now: number): Promise<ChainState> {
  const head = watcher?.status.head ?? null;
  const scanned = await watcher?.scanned() ?? null;
  const lagBlocks = head && scanned !== null ? (head.final > scanned ? head.final - scanned : 0n) : null;
  const g = await gas?.get(adapter.chain);
  return {
    chainCode: adapter.chain,
    mode: adapter.mode,
    head: head ? head.latest.toString() : null,
    final: head ? head.final.toString() : null,
    scanned: scanned === null ? null : scanned.toString(),
    lagBlocks: lagBlocks === null ? null : lagBlocks.toString(),
    lagSeconds: watcher ? Math.max(0, Math.floor((now - watcher.status.caughtUpAt) / 100) / 10) : 0,
    rpc: rpcEndpoints(adapter).map(({ endpoint, up, lastError }) => ({ endpoint, up, lastError })),
    gasWallet: g ? { address: g.address, balance: g.balance, low: g.low } : null,
  };
}

export interface ChainProblem {
  chain: ChainCode;
  /** "starting": no watcher tick has read the head yet (not ready, but nothing to alert on). */
  kind: "rpc_down" | "scanner_stalled" | "starting";
  detail: string;
}

/** Why a chain is not ready (empty when it is). */
export function chainProblems(s: ChainState, maxLagMs: number): ChainProblem[] {
  const out: ChainProblem[] = [];
  if (s.mode === "rpc" && s.rpc.length && !s.rpc.some((e) => e.up)) {
    const why = s.rpc.map((e) => `${e.endpoint}: ${e.lastError ?? "down"}`).join("; ");
    out.push({ chain: s.chainCode, kind: "rpc_down", detail: `no RPC endpoint is up (${why})` });
  }
  if (s.head === null && !out.length) out.push({ chain: s.chainCode, kind: "starting", detail: "the watcher has not read the chain head yet" });
  if (s.lagSeconds * 1000 > maxLagMs) {
    out.push({ chain: s.chainCode, kind: "scanner_stalled", detail: `watcher ${s.lagSeconds} s behind the final head (ops.max_scan_lag ${Math.round(maxLagMs / 1000)} s)` });
  }
  return out;
}

export type Watchers = Map<ChainCode, ChainWatcher>;
