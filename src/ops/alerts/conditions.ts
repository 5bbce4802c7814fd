// The alert conditions of DESIGN 14, each evaluated to the set of subjects it
// holds for right now. Firing once on start and once on resolve is the store's job.
import { storageProblems, type OpsCtx } from "../readiness";
import type { StorageMonitor } from "../storage";
import { openDiscrepancies } from "../../payout/balances";
import { parseDuration } from "../../lib/duration";
import { chainProblems, chainState, type Watchers } from "../chain-status";
import type { GasMonitor } from "../gas";
import type { Config } from "../../config/schema";
import { staleRates } from "../../rates/book";
import { failedBackup } from "../../backup/schedule";
import { detectionStats, HOUR_MS } from "../detection";
import { noLeader, type ClusterRole } from "../cluster-role";
import { failedCallbacksSince, failedPayoutsSince, openUnmatchedCount, stuckPayouts, stuckTopups, sweepFoundSince, unrecordedByChain } from "../store";

export const CONDITIONS = [
  "scanner_stalled",
  "rpc_down",
  "gas_low",
  "callbacks_failing",
  "payout_failed",
  "payout_stuck",
  "unmatched_deposit",
  "reconciliation_mismatch",
  "storage_unwritable",
  "disk_low",
  "backup_failed",
  "rate_stale",
  "unrecorded_outgoing",
  "scan_missed",
  "detection_slow",
  "no_leader",
] as const;
export type Condition = (typeof CONDITIONS)[number];

/** Failed callbacks and payouts count for this long after they happen. */
export const RECENT_WINDOW_MS = 60 * 60 * 1000;

export interface ActiveCondition {
  condition: Condition;
  /** What it is about: a chain code, or "gateway" for gateway-wide conditions. */
  subject: string;
  message: string;
}

export interface ConditionDeps {
  ctx: OpsCtx & { config: Pick<Config, "rates"> };
  watchers: Watchers;
  gas: GasMonitor;
  storage: StorageMonitor;
  /** The cluster's leadership (DESIGN 22); absent: a gateway alone on its database, which always leads. */
  cluster?: Pick<ClusterRole, "leaderlessFor" | "takeoverAfterMs"> & Partial<Pick<ClusterRole, "isLeader">>;
}

const plural = (n: number, one: string, many = one + "s") => `${n} ${n === 1 ? one : many}`;

export async function evaluateConditions(d: ConditionDeps): Promise<ActiveCondition[]> {
  const now = d.ctx.clock.now();
  const db = d.ctx.db;
  const out: ActiveCondition[] = [];
  const maxLag = parseDuration(d.ctx.config.ops.max_scan_lag);

  // First: with storage failing, the queries below may fail too, and these two must still fire.
  const storage = storageProblems(await d.storage.check());
  if (storage.unwritable) out.push({ condition: "storage_unwritable", subject: "gateway", message: storage.unwritable });
  if (storage.diskLow) out.push({ condition: "disk_low", subject: "gateway", message: storage.diskLow });

  // The chain probes (watcher lag, RPC, gas wallet) are the leader's: it runs the watchers and the
  // gas balance job; a follower's are idle (and a former leader's stale).
  const watching = d.cluster?.isLeader?.() ?? true;
  for (const adapter of watching ? d.ctx.chains.values() : []) {
    const s = await chainState(adapter, d.watchers.get(adapter.chain), d.gas, now);
    for (const p of chainProblems(s, maxLag)) if (p.kind !== "starting") out.push({ condition: p.kind, subject: p.chain, message: `${p.chain}: ${p.detail}` });
    const threshold = d.ctx.config.chains[adapter.chain].gas_low_balance;
    if (s.gasWallet?.low && threshold !== undefined) {
      out.push({ condition: "gas_low", subject: adapter.chain, message: `${adapter.chain}: gas wallet ${s.gasWallet.address} holds ${s.gasWallet.balance}, below gas_low_balance ${threshold}; payouts stop when it runs dry` });
    }
  }

  const since = now - RECENT_WINDOW_MS;
  const cb = await failedCallbacksSince(db, since);
  if (cb > 0) out.push({ condition: "callbacks_failing", subject: "gateway", message: `${plural(cb, "callback")} gave up after every delivery attempt in the last hour (stablegate callbacks list --failed)` });

  const po = await failedPayoutsSince(db, since);
  if (po.length) {
    const shown = po.slice(0, 5).join(", ");
    out.push({ condition: "payout_failed", subject: "gateway", message: `${plural(po.length, "payout")} failed in the last hour: ${shown}${po.length > 5 ? ", …" : ""}` });
  }

  // A payout whose own transaction is stuck at the cap, or that waits for a gas top-up stuck there.
  const stuck = await stuckPayouts(db);
  const stuckFunding = await stuckTopups(db);
  for (const chain of new Set([...stuck, ...stuckFunding].map((r) => r.chain))) {
    const listed = (rows: typeof stuck) => {
      const orders = rows.filter((r) => r.chain === chain).map((r) => r.order_no);
      return { n: orders.length, shown: orders.slice(0, 5).join(", ") + (orders.length > 5 ? ", …" : "") };
    };
    const [own, funding] = [listed(stuck), listed(stuckFunding)];
    const parts = [
      ...(own.n > 0 ? [`${plural(own.n, "payout")} not confirming at chains.${chain}.gas_price_cap, with no replacement left under it (${own.shown})`] : []),
      ...(funding.n > 0 ? [`${plural(funding.n, "payout")} waiting for a gas top-up not landing at chains.${chain}.gas_price_cap, with no replacement left under it (${funding.shown})`] : []),
    ];
    out.push({ condition: "payout_stuck", subject: chain, message: `${chain}: ${parts.join("; ")}; raise the cap or wait for fees to fall` });
  }

  const um = await openUnmatchedCount(db);
  if (um > 0) out.push({ condition: "unmatched_deposit", subject: "gateway", message: `${plural(um, "deposit")} matched no order and wait for an operator (stablegate deposit list --unmatched)` });

  // Until a scheduled backup succeeds again (none is scheduled: nothing to fail).
  const bk = d.ctx.config.backup.schedule ? await failedBackup(d.ctx.db) : null;
  if (bk) out.push({ condition: "backup_failed", subject: "gateway", message: `the scheduled backup of ${new Date(bk.startedAt).toISOString()} failed: ${bk.error}` });

  // One call site so a richer balances service can replace it.
  const mismatches = await openDiscrepancies(d.ctx.db);
  for (const chain of new Set(mismatches.map((m) => m.chain))) {
    const n = mismatches.filter((m) => m.chain === chain).length;
    out.push({ condition: "reconciliation_mismatch", subject: chain, message: `${chain}: ${plural(n, "address balance")} on chain differ from the ledger` });
  }
  await clusterConditions(d, out);
  await rateConditions(d, out);
  await detectionConditions(d, now, out);

  // DESIGN 25: the sweep recorded transfers the block scan missed (a node that drops logs, a scan fault).
  for (const m of await sweepFoundSince(db, since)) {
    out.push({
      condition: "scan_missed",
      subject: m.chain,
      message: `${m.chain}: the sweep found ${plural(m.n, "transfer")} the block scan missed in the last hour (e.g. ${m.tx}), now credited; check the chain's RPC endpoints (one may answer log or block queries with nothing) and the gateway's log`,
    });
  }

  // After a restore: transfers a payout source made that the restored database did not know (src/restore/reconcile.ts).
  const unrecorded = await unrecordedByChain(db);
  for (const u of unrecorded) {
    out.push({
      condition: "unrecorded_outgoing",
      subject: u.chain,
      message: `${u.chain}: ${plural(u.n, "outgoing transfer")} from ${plural(u.a, "payout source")} since the restored backup that the database did not record; sends from them are held until acknowledged (stablegate restore ack ${u.chain} ADDRESS, or the back office's Exceptions page)`,
    });
  }
  return out;
}

/** DESIGN 22: no gateway has led for twice [cluster] takeover_after (every gateway evaluates it; incidents are one per condition). */
async function clusterConditions(d: ConditionDeps, out: ActiveCondition[]): Promise<void> {
  if (!d.cluster) return;
  const ms = await d.cluster.leaderlessFor();
  if (!noLeader(ms, d.cluster.takeoverAfterMs)) return;
  out.push({
    condition: "no_leader",
    subject: "gateway",
    message: `no gateway has led for ${Math.round(ms! / 1000)} s (twice cluster.takeover_after is ${Math.round((2 * d.cluster.takeoverAfterMs) / 1000)} s): chain watchers, payouts and scheduled jobs are stopped; check that the gateways reach the database (docs/operations.md, "More than one gateway")`,
  });
}

/** DESIGN 18: a stale rate refuses new invoices in its currency (56001); the operator hears of it. */
async function rateConditions(d: ConditionDeps, out: ActiveCondition[]): Promise<void> {
  const r = await staleRates(d.ctx);
  const why = r.lastError ? ` (last fetch: ${r.lastError})` : "";
  if (r.neverFetched) out.push({ condition: "rate_stale", subject: "rates", message: `no exchange rate could be fetched yet${why}; invoices priced in a fiat currency other than USD get 56001` });
  for (const c of r.stale) {
    out.push({ condition: "rate_stale", subject: c, message: `the ${c} rate is older than rates.max_age (${d.ctx.config.rates.max_age})${why}; new ${c} invoices get 56001` });
  }
}

/** DESIGN 25: per chain, the last hour's p95 of block time → first seen above [ops] detection_slo. */
async function detectionConditions(d: ConditionDeps, now: number, out: ActiveCondition[]): Promise<void> {
  const slo = parseDuration(d.ctx.config.ops.detection_slo);
  for (const c of await detectionStats(d.ctx.db, now, HOUR_MS)) {
    const p95 = c.detection.p95;
    if (p95 === null || p95 * 1000 <= slo) continue;
    out.push({
      condition: "detection_slow",
      subject: c.chain,
      message: `${c.chain}: payments seen ${Math.round(p95)} s after their block (p95 of ${plural(c.detection.count, "credited transfer")} in the last hour), above ops.detection_slo ${slo / 1000} s; check the node's lag and the scan (stablegate_detection_seconds)`,
    });
  }
}
