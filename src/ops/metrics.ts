// Prometheus metrics (DESIGN 14) through prom-client. Event counters (HTTP,
// transitions, callback deliveries) live in one process-wide registry the code
// paths bump with one call; everything that is state (heads, lag, endpoint
// health, queue sizes, balances) is read at scrape time from the gateway.
import { Counter, Gauge, Registry } from "../lib/prom";
import type { ChainCode } from "../chains/types";
import { chainState, rpcEndpoints, type Watchers } from "./chain-status";
import { events, feeTotals } from "../lib/event-metrics";
import { chainModule, hasChainModule } from "../chains/registry";
import { fromBaseUnits } from "../lib/money";
import { balanceMismatchCount, openUnmatchedCount, queuedCallbacks } from "./store";
import type { GasMonitor } from "./gas";
import type { OpsCtx } from "./readiness";
import { groupCommit } from "../db/group-commit";
import { walSyncs } from "../db/wal-sync";
import { isPg } from "../db/engine";
import type { LoopStallProbe } from "./loop-stalls";
import { mapSeq } from "../lib/async-seq";
import type { ClusterRole } from "./cluster-role";

export interface MetricsDeps {
  ctx: Pick<OpsCtx, "db" | "chains" | "clock">;
  watchers: Watchers;
  gas: GasMonitor;
  /** Event-loop stalls since start (src/ops/loop-stalls.ts); absent, no gauge. */
  loop?: LoopStallProbe;
  /** This gateway's cluster role (DESIGN 22); absent: alone on its database, the leader. */
  cluster?: Pick<ClusterRole, "isLeader">;
}

/** State gauges of one gateway, computed on each scrape. */
function stateRegistry(d: MetricsDeps): Registry {
  const r = new Registry();
  const chains = async () => await mapSeq([...d.ctx.chains.values()], async (a) => await chainState(a, d.watchers.get(a.chain), d.gas, d.ctx.clock.now()));
  new Gauge({
    name: "stablegate_chain_head_block",
    help: "latest block the node reported",
    labelNames: ["chain"],
    registers: [r],
    async collect() {
      for (const s of await chains()) if (s.head !== null) this.set({ chain: s.chainCode }, Number(s.head));
    },
  });
  new Gauge({
    name: "stablegate_chain_scanned_block",
    help: "block the watcher has scanned up to",
    labelNames: ["chain"],
    registers: [r],
    async collect() {
      for (const s of await chains()) if (s.scanned !== null) this.set({ chain: s.chainCode }, Number(s.scanned));
    },
  });
  new Gauge({
    name: "stablegate_chain_scan_lag_seconds",
    help: "seconds since the watcher last stood at or past the chain's final head",
    labelNames: ["chain"],
    registers: [r],
    async collect() {
      for (const s of await chains()) this.set({ chain: s.chainCode }, s.lagSeconds);
    },
  });
  new Gauge({
    name: "stablegate_rpc_endpoint_up",
    help: "1 when the last request to the endpoint succeeded",
    labelNames: ["chain", "endpoint"],
    registers: [r],
    collect() {
      this.reset();
      for (const a of d.ctx.chains.values()) for (const e of rpcEndpoints(a)) this.set({ chain: a.chain, endpoint: e.endpoint }, e.up ? 1 : 0);
    },
  });
  new Counter({
    name: "stablegate_rpc_requests_total",
    help: "HTTP requests to RPC endpoints by outcome (ok, http, timeout, network, rpc)",
    labelNames: ["chain", "endpoint", "outcome"],
    registers: [r],
    collect() {
      this.reset();
      for (const a of d.ctx.chains.values()) {
        for (const e of rpcEndpoints(a)) {
          for (const [outcome, n] of Object.entries(e.outcomes)) this.inc({ chain: a.chain, endpoint: e.endpoint, outcome }, n);
        }
      }
    },
  });
  new Counter({
    name: "stablegate_rpc_throttled_total",
    help: "answers from RPC endpoints that said slow down (HTTP 429, TronGrid's 403) since start; each call was retried after the endpoint's pause (DESIGN 25)",
    labelNames: ["chain", "endpoint"],
    registers: [r],
    collect() {
      this.reset();
      for (const a of d.ctx.chains.values()) for (const e of rpcEndpoints(a)) this.inc({ chain: a.chain, endpoint: e.endpoint }, e.throttled);
    },
  });
  new Counter({
    name: "stablegate_fees_native_total",
    help: "native coin (TRX, BNB, SOL) the gateway's own transactions burned or paid as fees since start, by transaction kind (payout, gas_topup, delegate, reclaim, stake, token_account); SOL counts the fee payer's lamports: fees plus the rent of token accounts it created",
    labelNames: ["chain", "kind"],
    registers: [r],
    collect() {
      this.reset();
      for (const [k, units] of feeTotals) {
        const [chain, kind] = k.split("\u0000") as [string, string];
        const decimals = hasChainModule(chain) ? chainModule(chain).native.decimals : 0;
        this.inc({ chain, kind }, Number(fromBaseUnits(units, decimals, 0)));
      }
    },
  });
  new Gauge({
    name: "stablegate_cluster_leader",
    help: "1 on the gateway that leads (runs the chain watchers, payouts and scheduled jobs), 0 on the others; a SQLite gateway is alone and always 1 (DESIGN 22)",
    registers: [r],
    collect() {
      this.set(d.cluster && !d.cluster.isLeader() ? 0 : 1);
    },
  });
  new Gauge({
    name: "stablegate_callbacks_pending",
    help: "callbacks not delivered yet (pending or in delivery)",
    registers: [r],
    async collect() {
      this.set(await queuedCallbacks(d.ctx.db));
    },
  });
  new Gauge({
    name: "stablegate_unmatched_deposits",
    help: "deposits that matched no order and wait for an operator",
    registers: [r],
    async collect() {
      this.set(await openUnmatchedCount(d.ctx.db));
    },
  });
  new Gauge({
    name: "stablegate_gas_wallet_balance",
    help: "gas wallet balance in native units (BNB, TRX, SOL), as last read",
    labelNames: ["chain"],
    registers: [r],
    async collect() {
      for (const code of d.ctx.chains.keys()) {
        const b = (await d.gas.get(code as ChainCode))?.balance;
        if (b != null) this.set({ chain: code }, Number(b));
      }
    },
  });
  new Gauge({
    name: "stablegate_reconciliation_mismatches",
    help: "address/token pairs whose chain balance differs from the ledger",
    registers: [r],
    async collect() {
      this.set(await balanceMismatchCount(d.ctx.db));
    },
  });
  // The group commit (db/group-commit.ts): commits, the writes they carried and the time spent in
  // COMMIT (the WAL fsync, on the event loop's thread). `make bench` reads these to tell how much
  // of the load window the loop spent waiting on the disk.
  const gc = () => groupCommit(d.ctx.db);
  new Counter({
    name: "stablegate_db_group_commits_total",
    help: "group commits (one BEGIN IMMEDIATE … COMMIT shared by concurrent writes) since start",
    registers: [r],
    collect() {
      this.reset();
      this.inc(gc().groups);
    },
  });
  new Counter({
    name: "stablegate_db_group_commit_writes_total",
    help: "writes (signed requests, callback claims) carried by the group commits since start",
    registers: [r],
    collect() {
      this.reset();
      this.inc(gc().jobs);
    },
  });
  new Counter({
    name: "stablegate_db_commit_seconds_total",
    help: "wall time spent in the group commits' COMMIT (on the event loop: the WAL fsync at synchronous FULL; with SG_SYNC_OFF_LOOP=1 it is off the loop, stablegate_db_wal_syncs_total) since start",
    registers: [r],
    collect() {
      this.reset();
      this.inc(gc().commitMs / 1000);
    },
  });
  new Counter({
    name: "stablegate_db_wal_syncs_total",
    help: "fdatasyncs of the SQLite WAL on the thread pool (SG_SYNC_OFF_LOOP=1, db/wal-sync.ts), each shared by the commits before it, since start",
    registers: [r],
    collect() {
      this.reset();
      // PostgreSQL has no WAL of ours to sync (and its handle has no $client: NotOnPostgres).
      this.inc(isPg(d.ctx.db) ? 0 : walSyncs(d.ctx.db.$client));
    },
  });
  const loop = d.loop;
  if (loop) {
    new Gauge({
      name: "stablegate_event_loop_stall_max_seconds",
      help: 'longest event-loop stall since start, per window (window="0-1s", "1-3s", "3s+" after start); measure="wall" (timer lateness) or "cpu" (the part the loop\'s thread spent on CPU)',
      labelNames: ["window", "measure"],
      registers: [r],
      collect() {
        for (const w of loop.windows) {
          this.set({ window: w.label, measure: "wall" }, w.wall / 1000);
          this.set({ window: w.label, measure: "cpu" }, w.cpu / 1000);
        }
      },
    });
  }
  return r;
}

export interface Metrics {
  contentType: string;
  render(): Promise<string>;
}

export function createMetrics(d: MetricsDeps): Metrics {
  const state = stateRegistry(d);
  return {
    contentType: events.contentType,
    render: () => Registry.merge([events, state]).metrics(),
  };
}
