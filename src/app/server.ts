// Wires routes and jobs into one running gateway.
import type { Server } from "bun";
import { Elysia } from "elysia";
import { baseApp } from "../http/app";
import { assignRequestId, requestIdOf } from "../http/request-id";
import { compatDeps, compatRoutes } from "../compat/routes";
import { healthRoutes } from "../http/health";
import { StorageMonitor } from "../ops/storage";
import { LogLimiter } from "../lib/log-limit";
import { docsRoutes } from "../http/docs-page";
import { authDeps } from "../http/signed";
import { Scheduler } from "../jobs/scheduler";
import { pruneNonces } from "../auth/verify";
import { RateLimiter } from "../auth/rate-limit";
import { type CallbackWorker, startCallbackWorker } from "../callbacks/worker";
import { CallbackWakeRelay } from "../callbacks/cluster-wake";
import { merchantApiRoutes } from "../http/merchant-api";
import { expireDueOrders } from "../payin/service";
import { sandboxRoutes } from "../http/routes/sandbox";
import { PayoutExecutor, type KeyedLock, type PayoutChainOps } from "../payout/executor";
import { reconcileChain } from "../payout/balances";
import { payoutStore } from "../payout/store";
import { pruneDeliveredCallbacks } from "../callbacks/retention";
import { optimizeDatabase, OPTIMIZE_EVERY_MS } from "../db/optimize";
import { DbMaintenance } from "../db/maintenance";
import { chainBundle } from "../chains/factory";
import { addressBook } from "../wallet/addresses";
import { ReconcileGate } from "../restore/reconcile";
import { gapStep, gapWatched } from "../restore/gap-addresses";
import { checkoutRoutes } from "../checkout/routes";
import { runBatches } from "../treasury/batch";
import { runCollections } from "../treasury/collection";
import { TreasuryRunner } from "../treasury/runner";
import { gatewayCheckoutDeps } from "../checkout/gateway-deps";
import { SandboxChain } from "../chains/sandbox/chain";
import { ChainWatcher } from "../watcher/watcher";
import { PayinSweep } from "../payin/sweep";
import { payinTransferPort } from "../payin/deposits";
import { parseDuration } from "../lib/duration";
import type { ChainAdapter, ChainCode } from "../chains/types";
import type { AppContext } from "./context";
import { rememberPeer } from "../lib/client-ip";
import { isBackofficePath, lazyBackoffice } from "../backoffice/lazy";
import { GasMonitor } from "../ops/gas";
import { createMetrics, type Metrics } from "../ops/metrics";
import { observeHttp } from "../lib/event-metrics";
import { callbacksDue } from "../db/callbacks-due";
import { isSandboxGateway } from "../ops/readiness";
import { routeOf } from "../ops/http-route";
import { routable } from "../http/host";
import { EXACT_TARGETS, markExactTarget } from "../http/raw-target";
import { withSecurityHeaders } from "../http/security-headers";
import { electedRole, singleGateway, type ClusterRole } from "../ops/cluster-role";
import type { LeaderElector } from "../cluster/leader";
import type { ClusterBus } from "../cluster/notify";
import type { Stoppable } from "../cluster/while-leader";
import { keyCache } from "../merchants/key-cache";
import { AlertEngine } from "../ops/alerts/engine";
import { RateRefresher } from "../rates/refresher";
import { expireDueInvoices } from "../invoices/service";
import { ScheduledBackups } from "../backup/schedule";
import { LoopStallProbe } from "../ops/loop-stalls";
import { isPg, NotOnPostgres, pgSide, pgState } from "../db/engine";

// The cluster's parts (DESIGN 22): a PostgreSQL gateway's only, loaded when it starts them.
const leader = pgSide<typeof import("../cluster/leader")>(() => require("../cluster/leader"));
const notify = pgSide<typeof import("../cluster/notify")>(() => require("../cluster/notify"));
const leaderWork = pgSide<typeof import("../cluster/while-leader")>(() => require("../cluster/while-leader"));
const fence = pgSide<typeof import("../cluster/fence")>(() => require("../cluster/fence"));

export interface RunningGateway {
  url: string;
  port: number;
  runtime: Runtime;
  /** The jobs' intervals and phases (src/jobs/phases.ts); empty when jobs are off. */
  jobPlan: Scheduler["plan"];
  stop(): Promise<void>;
}

/** Long-lived workers the routes and jobs share. */
export interface Runtime {
  watchers: Map<ChainCode, ChainWatcher>;
  /** The second detection path per rpc-mode chain (DESIGN 25, src/payin/sweep.ts). */
  sweeps: Map<ChainCode, PayinSweep>;
  /** Signs, broadcasts and tracks payouts. */
  payouts: PayoutExecutor;
  /** Drives confirmed batch payouts and collection runs (their items become payout orders). */
  treasury: TreasuryRunner;
  /**
   * Wakes the callback worker: the one path, callbacksDue() (src/db/callbacks-due.ts), which the
   * outbox calls on every insert; kept here for the back office's explicit wake-ups.
   */
  kick(): void;
  /** A chain moved: scan it, then follow its payouts (sandbox endpoints wait for this). */
  afterChainChange(chain: ChainCode): Promise<void>;
  /**
   * This gateway's cluster role (DESIGN 22): /healthz, stablegate_cluster_leader, no_leader. A
   * SQLite gateway is alone on its file and always the leader (src/ops/cluster-role.ts); on
   * PostgreSQL it is the elector's (src/cluster/leader.ts).
   */
  cluster: ClusterRole;
  /**
   * PostgreSQL (DESIGN 22): this gateway's elector (its own connection; started with the jobs) and
   * its notification bus (cache invalidations and wake-ups between gateways); null on SQLite.
   */
  clusterParts: ClusterParts | null;
  /** The callback worker the jobs run (null before they start, without jobs, and once stopped). */
  callbackWorker: CallbackWorker | null;
  /** Gas balances, metrics and alerts (src/ops). */
  ops: { gas: GasMonitor; storage: StorageMonitor; metrics: Metrics; alerts: AlertEngine; backups: ScheduledBackups | null; loop: LoopStallProbe };
  /** Fetches exchange rates for invoices ([rates] source = "coingecko"). */
  rates: RateRefresher;
  /**
   * WAL checkpoints and planner statistics on a worker thread with its own connection
   * (src/db/maintenance.ts), from start to stop, jobs or not; null for an in-memory database.
   */
  maintenance: DbMaintenance | null;
}

/** How long a follower's /sandbox request waits for the leader's watcher (it answers either way). */
const FOLLOWER_SCAN_WAIT_MS = 5000;

/** Until the leader's watcher (its cursor in the shared database) stands at the chain's head, at most FOLLOWER_SCAN_WAIT_MS. */
async function leaderScannedPast(ctx: AppContext, watcher: ChainWatcher | undefined, chain: ChainCode): Promise<void> {
  const adapter = ctx.chains.get(chain);
  if (!watcher || !adapter) return;
  const head = (await adapter.head()).latest;
  const end = Date.now() + FOLLOWER_SCAN_WAIT_MS;
  while (Date.now() < end) {
    const at = await watcher.scanned();
    if (at !== null && at >= head) return;
    await Bun.sleep(50);
  }
}

/** Chain-specific payout steps (nonces, gas top-ups, fee payers); sandbox chains need none. */
function chainPayoutOps(ctx: AppContext, adapter: ChainAdapter, locks: KeyedLock): PayoutChainOps | undefined {
  return chainBundle(adapter).payoutOps?.(ctx, { locks, addresses: addressBook, payouts: payoutStore });
}

export function createRuntime(ctx: AppContext): Runtime {
  const watchers = new Map<ChainCode, ChainWatcher>();
  const gas = new GasMonitor(ctx);
  const storage = new StorageMonitor(ctx);
  const loop = new LoopStallProbe();
  const clusterParts = isPg(ctx.db) ? clusterOf(ctx, () => runtime) : null;
  const cluster = clusterParts ? electedRole(clusterParts.elector) : singleGateway(parseDuration(ctx.config.cluster.takeover_after));
  const payouts = new PayoutExecutor({ ...ctx, gate: new ReconcileGate({ ...ctx, payouts: payoutStore }) }, { ops: (adapter, locks) => chainPayoutOps(ctx, adapter, locks) });
  const runtime: Runtime = {
    cluster,
    clusterParts,
    ops: { gas, storage, metrics: createMetrics({ ctx, watchers, gas, loop, cluster }), alerts: new AlertEngine({ ctx, watchers, gas, storage, cluster }), backups: ctx.config.backup.schedule ? new ScheduledBackups(ctx) : null, loop },
    watchers,
    sweeps: new Map(),
    rates: new RateRefresher(ctx),
    maintenance: ctx.config.database.path === ":memory:" || isPg(ctx.db) ? null : new DbMaintenance(ctx.db, ctx.config.database.path, ctx.logger),
    payouts,
    treasury: new TreasuryRunner(payouts),
    kick: callbacksDue,
    callbackWorker: null,
    afterChainChange: async (chain) => {
      // DESIGN 22: the watchers and the payout executor run on the leader only. A follower's
      // /sandbox request waits for the leader's watcher to scan past the change instead of
      // scanning itself (two gateways recording one transfer would race on its row: a 500).
      if (!runtime.cluster.isLeader()) return await leaderScannedPast(ctx, runtime.watchers.get(chain), chain);
      await runtime.watchers.get(chain)?.tick();
      await runtime.payouts.tick(chain);
    },
  };
  for (const [code, adapter] of ctx.chains) {
    const watcher = new ChainWatcher(ctx, adapter, payinTransferPort(ctx));
    runtime.watchers.set(code, watcher);
    if (adapter.sweep) runtime.sweeps.set(code, new PayinSweep(ctx, adapter, async () => await watcher.scanned()));
  }
  return runtime;
}

/**
 * A PostgreSQL gateway's cluster parts: its elector, its bus, and the relay that wakes the other
 * gateways' callback workers when this one's cannot take a callback due now (callbacks/cluster-wake.ts).
 */
export interface ClusterParts {
  elector: LeaderElector;
  bus: ClusterBus;
  callbackWake: CallbackWakeRelay;
}

/** A PostgreSQL gateway's cluster parts (not started: the bus and the relay with the listener, the elector with the jobs). */
function clusterOf(ctx: AppContext, runtime: () => Runtime): ClusterParts {
  const url = ctx.config.database.url;
  if (!url) throw new Error("a PostgreSQL handle without [database] url");
  const elector = new leader.LeaderElector({ url, takeoverAfterMs: parseDuration(ctx.config.cluster.takeover_after), logger: ctx.logger });
  const pool = pgState(ctx.db).pool;
  const bus = new notify.ClusterBus(pool, { logger: ctx.logger });
  const callbackWake = new CallbackWakeRelay({
    publish: () => bus.wake(pool, "callbacks"),
    localRoom: () => runtime().callbackWorker?.hasRoom ?? false,
    clock: ctx.clock,
    logger: ctx.logger.child({ component: "callbacks" }),
  });
  return { elector, bus, callbackWake };
}

/**
 * What the bus tells this gateway (DESIGN 22 "Shared state"; the database sends it, migration 0470):
 * a merchant or API key changed anywhere → the key cache reads its version at its next use; a
 * payout created on any gateway → the leader's executor runs now; a callback due on another
 * gateway → this gateway's worker looks now (and a callback due here that this gateway's worker
 * cannot take at once wakes the others: the relay). A reconnect calls every handler (whatever was missed).
 */
async function followBus(ctx: AppContext, runtime: Runtime, bus: ClusterBus): Promise<void> {
  const keys = keyCache(ctx.db, ctx.cipher);
  keys.followBus();
  bus.onInvalidate("api_keys", () => keys.invalidate());
  bus.onInvalidate("merchant_settings", () => keys.invalidate());
  bus.onWake("payouts", () => {
    if (!runtime.cluster.isLeader()) return;
    for (const chain of ctx.chains.keys()) runtime.payouts.tick(chain).catch(logFailure(ctx, "payouts: a woken run failed", { chain }));
  });
  // "cluster": never relayed again (callbacks/cluster-wake.ts); this gateway's own wake-ups are for the others.
  bus.onWake("callbacks", (fromSelf) => {
    if (!fromSelf) callbacksDue("cluster");
  });
  await bus.start();
  runtime.clusterParts?.callbackWake.start();
}

export function buildHttpApp(ctx: AppContext, runtime: Runtime) {
  const auth = authDeps(ctx, new RateLimiter(ctx.config.auth.rate_limit_per_minute));
  // DESIGN 8: /sandbox exists only when the whole gateway is a sandbox (a mixed config never mounts it).
  const sandbox = isSandboxGateway(ctx);
  return baseApp(ctx.logger)
    .use(healthRoutes(ctx, { ctx, watchers: runtime.watchers, gas: runtime.ops.gas, storage: runtime.ops.storage, metrics: runtime.ops.metrics, cluster: runtime.cluster }))
    .use(docsRoutes(() => ctx.publicUrl))
    .use(merchantApiRoutes({ ctx, auth, executor: runtime.payouts }))
    .use(checkoutRoutes(gatewayCheckoutDeps(ctx, (chain) => runtime.watchers.get(chain)?.tick() ?? Promise.resolve(), (id) => runtime.payouts.attempt(id))))
    .use(compatRoutes(compatDeps(ctx, requestIdOf)))
    .use(sandbox ? sandboxRoutes(ctx, { afterChange: (chain) => runtime.afterChainChange(chain) }) : new Elysia());
}

/**
 * Jobs that walk tables or do per-row work: their runs are kept 100 ms apart (src/jobs/phases.ts),
 * the rest spread over the second, so the first runs do not all land in one turn (issue 37).
 */
const HEAVY = { heavy: true };

/** The catch of a promise started and not awaited (a rejection nobody catches ends a Bun process). */
const logFailure = (ctx: AppContext, what: string, fields: Record<string, unknown> = {}) => (e: unknown) =>
  ctx.logger.warn(what, { ...fields, error: String((e as Error)?.message ?? e) });

/**
 * One job of the gateway's list (DESIGN 22 "Cluster roles"): `leader` jobs run on the leader only
 * (on SQLite a gateway is alone on its file and always leads), the others on every gateway;
 * `sqlite` ones only on SQLite (its file, its planner statistics: PostgreSQL's own checkpointer,
 * autovacuum and ANALYZE replace them).
 */
type JobDef = { name: string; leader: boolean; sqlite?: boolean } & (
  | { kind: "every"; ms: number; fn: () => Promise<unknown> | unknown; heavy?: boolean }
  | { kind: "service"; start: () => Promise<() => Promise<void>> }
  | { kind: "once"; run: () => Promise<unknown>; fields?: Record<string, unknown> }
);

const every = (leader: boolean, name: string, ms: number, fn: () => Promise<unknown> | unknown, opts: { heavy?: boolean; sqlite?: boolean } = {}): JobDef => ({ kind: "every", leader, name, ms, fn, ...opts });
const LEADER = true;
const ALL = false;

/** The gateway's jobs in the order SQLite has always registered them (the phases depend on it: src/jobs/phases.ts). */
export function jobList(ctx: AppContext, runtime: Runtime): JobDef[] {
  const jobs: JobDef[] = [];
  jobs.push(every(ALL, "prune-nonces", 60_000, () => pruneNonces(ctx.db, ctx.clock.now()), HEAVY));
  // DESIGN 11 "Retention" and "Growth": both walk big tables in slices that yield; both run once right after start.
  jobs.push(every(LEADER, "prune-callbacks", 10 * 60_000, () => pruneDeliveredCallbacks(ctx), HEAVY));
  const maintenance = runtime.maintenance;
  jobs.push(every(ALL, "optimize", OPTIMIZE_EVERY_MS, async () => (maintenance ? maintenance.refreshStats() : await optimizeDatabase(ctx)), { ...HEAVY, sqlite: true }));
  // Polls the outbox itself; callbacksDue() (called by the outbox on every insert) sends a just-committed callback at once.
  // Deliveries in flight get 2 s at shutdown, then are cut off and retried after restart (5 s budget).
  // Every gateway delivers: on PostgreSQL its claims are leased (FOR UPDATE SKIP LOCKED, callbacks/store.pg.ts).
  jobs.push({ kind: "service", leader: ALL, name: "callbacks", start: async () => {
    const callbacks = await startCallbackWorker(ctx, { shutdownGraceMs: 2000 });
    runtime.callbackWorker = callbacks;
    return async () => {
      if (runtime.callbackWorker === callbacks) runtime.callbackWorker = null;
      await callbacks.stop();
    };
  } });
  // Every gateway evaluates the alerts (no_leader must fire when nobody leads); incidents are one per condition.
  jobs.push(every(ALL, "alerts", 5000, () => runtime.ops.alerts.tick(), HEAVY));
  // The database file's identity (a stat): a file deleted or replaced stops writes within 2 s even when idle.
  jobs.push(every(ALL, "storage-file", 2000, async () => void await runtime.ops.storage.checkFile(), { sqlite: true }));
  jobs.push({ kind: "service", leader: ALL, name: "alerts", start: async () => () => runtime.ops.alerts.stop() });
  if (runtime.rates.enabled) {
    // Invoices need a rate from the first minute, not after the first refresh. Not awaited: a
    // failure (the store write on a full disk) is logged here, never left to end the process.
    jobs.push({ kind: "once", leader: LEADER, name: "first rates refresh", run: () => runtime.rates.tick() });
    jobs.push(every(LEADER, "rates", parseDuration(ctx.config.rates.refresh), () => runtime.rates.tick(), HEAVY));
    jobs.push({ kind: "service", leader: LEADER, name: "rates", start: async () => async () => runtime.rates.stop() });
  }
  // Scheduled backups: the copy and its checks run on a worker thread (src/backup/sqlite-worker.ts).
  const backups = runtime.ops.backups;
  if (backups) jobs.push(every(LEADER, "backups", 15_000, () => backups.tick(), HEAVY));
  jobs.push(every(ALL, "expire-payins", 1000, async () => {
    await expireDueOrders(ctx);
  }));
  // Invoices whose payer never chose a network (a chosen one expires with its pay-in).
  jobs.push(every(ALL, "expire-invoices", 1000, async () => {
    await expireDueInvoices(ctx);
  }));
  // Confirmed batch payouts and collection runs: rows become payout orders (also resumed after a restart).
  jobs.push(every(LEADER, "payout-batches", 1000, () => runBatches(ctx, runtime.treasury)));
  jobs.push(every(LEADER, "collections", 1000, () => runCollections(ctx, runtime.treasury)));
  for (const [code, watcher] of runtime.watchers) jobs.push(...chainJobs(ctx, runtime, code, watcher));
  return jobs;
}

/** How long the restore-gap job rests after finding no gap to fill (it still wakes every 250 ms, without a query). */
export const RESTORE_GAP_IDLE_MS = 10_000;

/** A chain's jobs, all the leader's: its watcher and sweep, payouts, reconcile, gas balance, a restore's gap. */
function chainJobs(ctx: AppContext, runtime: Runtime, code: ChainCode, watcher: ChainWatcher): JobDef[] {
  const jobs: JobDef[] = [];
  const cfg = ctx.config.chains[code];
  const adapter = ctx.chains.get(code)!;
  // Also resumes payouts a restart interrupted (the first run is a second after start).
  jobs.push(every(LEADER, `payouts-${code}`, 1000, () => runtime.payouts.tick(code)));
  jobs.push(every(LEADER, `reconcile-${code}`, 60_000, () => reconcileChain(ctx, adapter), HEAVY));
  // After a restore: the HD indexes it skipped become watched addresses, then the chain is rescanned for them.
  // A slice every 250 ms while there is work; with none (every gateway that was not restored), one
  // look every RESTORE_GAP_IDLE_MS: a gap is only ever made before the jobs start (the restore, or
  // the generation check when the context opens), so the idle look is a safety net, not a wait.
  let idleUntil = 0;
  jobs.push(every(LEADER, `restore-gap-${code}`, 250, async () => {
    if (ctx.clock.now() < idleUntil) return;
    const step = await gapStep(ctx, adapter);
    if (step.state === "none") idleUntil = ctx.clock.now() + RESTORE_GAP_IDLE_MS;
    if (step.state !== "rescan") return;
    if (step.since !== null) await watcher.rewind(step.since);
    await gapWatched(ctx.db, code, ctx.clock.now());
    ctx.logger.info("restore: the HD indexes the restore skipped are watched; rescanning from the backup's cursor", { chain: code, from: step.from, to: step.to });
  }));
  // Read once now (gas_low need not wait a minute after start), then every minute (a sandbox chain's gas wallet too: it starts funded).
  jobs.push({ kind: "once", leader: LEADER, name: "first gas balance read", run: () => runtime.ops.gas.refresh(code), fields: { chain: code } });
  jobs.push(every(LEADER, `gas-balance-${code}`, 60_000, () => runtime.ops.gas.refresh(code)));
  if (adapter instanceof SandboxChain) {
    const blockMs = parseDuration(cfg.block_time);
    // A head that follows the clock needs no job (SQLite): empty blocks are not written.
    if (blockMs > 0 && !adapter.pacedByClock) jobs.push(every(LEADER, `sandbox-blocks-${code}`, blockMs, async () => await adapter.mine(1)));
    jobs.push(every(LEADER, `watch-${code}`, blockMs > 0 ? Math.min(blockMs, 1000) : 1000, () => watcher.tick()));
  } else {
    jobs.push(every(LEADER, `watch-${code}`, parseDuration(cfg.poll_interval), () => watcher.tick()));
  }
  const sweep = runtime.sweeps.get(code);
  const sweepEvery = parseDuration(ctx.config.payin.sweep_every);
  if (sweep && sweepEvery > 0) jobs.push(every(LEADER, `sweep-${code}`, sweepEvery, () => sweep.run(), HEAVY));
  // Chain-specific background work (Solana: token accounts for new receiving addresses; TRON: energy).
  for (const j of chainBundle(adapter).jobs?.(ctx, addressBook, payoutStore) ?? []) jobs.push(every(LEADER, j.name, j.everyMs, j.run));
  return jobs;
}

/**
 * Registers `defs` on `s` in order. `wrap` guards each run (PostgreSQL: a store not ported yet
 * logs once per job instead of every run).
 */
/** How a job's runs are guarded (identity on SQLite; notPortedOnce on PostgreSQL). */
type Wrap = <T>(name: string, fn: () => Promise<T> | T) => () => Promise<T | undefined> | T;

async function register(ctx: AppContext, s: Scheduler, defs: JobDef[], wrap: Wrap = (_n, fn) => fn): Promise<void> {
  for (const d of defs) {
    if (d.kind === "every") s.every(d.name, d.ms, wrap(d.name, d.fn), d.heavy ? HEAVY : {});
    else if (d.kind === "service") s.service(d.name, await d.start());
    else void Promise.resolve(wrap(d.name, d.run)()).catch(logFailure(ctx, `${d.name} failed`, d.fields));
  }
}

export async function startJobs(ctx: AppContext, runtime: Runtime): Promise<Scheduler> {
  const s = new Scheduler(ctx.logger, ctx.clock);
  const defs = jobList(ctx, runtime);
  const cluster = runtime.clusterParts;
  // SQLite: alone on its file, the leader always: one scheduler, every job, the order of always.
  if (!cluster) {
    await register(ctx, s, defs);
    return s;
  }
  const pgDefs = defs.filter((d) => !d.sqlite);
  const wrap = notPortedOnce(ctx);
  await register(ctx, s, pgDefs.filter((d) => !d.leader), wrap);
  const { elector } = cluster;
  // The fence's epoch follows the elector at once (before the work is told to stop).
  const offLost = elector.on("lost", () => fence.holdEpoch(ctx.db, null));
  const work = leaderWork.whileLeader(elector, (epoch) => startLeaderWork(ctx, runtime, epoch, pgDefs.filter((d) => d.leader), wrap), logFailure(ctx, "cluster: the leader's work failed to start"));
  s.service("leader", async () => {
    offLost();
    await work.stop();
    fence.holdEpoch(ctx.db, null);
    await elector.stop();
  });
  await elector.start();
  return s;
}

/** The leader's work under `epoch` (PostgreSQL): the watchers' init, then the leader's jobs on a scheduler of their own. */
async function startLeaderWork(ctx: AppContext, runtime: Runtime, epoch: number, defs: JobDef[], wrap: Wrap): Promise<Stoppable> {
  const elector = runtime.clusterParts!.elector;
  // Lost again before the start came round (whileLeader waits for the previous work's stop).
  if (elector.epoch() !== epoch) return { stop: async () => undefined };
  fence.holdEpoch(ctx.db, epoch);
  const step = async (what: string, code: ChainCode, fn: () => Promise<unknown>) => {
    try {
      await wrap(`${what} ${code}`, fn)();
    } catch (e) {
      logFailure(ctx, `${what} failed`, { chain: code })(e);
    }
  };
  for (const [code, w] of runtime.watchers) {
    await step("watcher init", code, () => w.init());
    // Gas wallets derived before the jobs run (the first use of each curve costs 40-70 ms per chain).
    await step("gas wallet derivation", code, () => runtime.ops.gas.get(code));
  }
  const s = new Scheduler(ctx.logger, ctx.clock);
  await register(ctx, s, defs, wrap);
  ctx.logger.info("cluster: the leader's jobs started", { epoch, jobs: s.plan.length });
  return { stop: async () => await s.stop() };
}

/**
 * PostgreSQL while stores are being ported (docs/postgresql.md): a job that reaches a store not
 * ported yet logs it once (warn) and is skipped quietly after that; the gateway stays up and serves.
 */
function notPortedOnce(ctx: AppContext): Wrap {
  const told = new Set<string>();
  return <T>(name: string, fn: () => Promise<T> | T) =>
    async (): Promise<T | undefined> => {
      try {
        return await fn();
      } catch (e) {
        if (!(e instanceof NotOnPostgres)) throw e;
        if (!told.has(name)) {
          told.add(name);
          ctx.logger.warn("job skipped: its store is not on PostgreSQL yet", { job: name, error: e.message });
        }
        return undefined;
      }
    };
}

export async function startGateway(ctx: AppContext, opts: { jobs?: boolean } = {}): Promise<RunningGateway> {
  for (const chain of ctx.chains.values()) await chain.start();
  const runtime = createRuntime(ctx);
  // Every write first checks that the database file is still the one opened (src/ops/storage.ts).
  // (SQLite's file: PostgreSQL has no file to watch, and the watchers are the leader's.)
  const pg = isPg(ctx.db);
  const unguard = pg ? () => undefined : runtime.ops.storage.install();
  // The watchers' cursors at the head before anything is served, on both engines: a /sandbox
  // transfer in the first moments of a fresh database (before a leader ran) must not tick a watcher
  // that then starts past it. initChainCursor writes only when no cursor exists, so every gateway
  // of a PostgreSQL database may do it; there a failure (a node down) is logged and the leader's
  // work sets it later, as before (a follower still starts and serves).
  for (const [chain, w] of runtime.watchers) {
    if (!pg) await w.init();
    else await w.init().catch(logFailure(ctx, "watcher init at start failed; the leader sets the cursor", { chain }));
  }
  // Gas wallets derived before the listener opens (the first use of each curve costs 40-70 ms
  // per chain), not by the first alerts tick or /readyz, nor in the first second of service
  // (issue 37: it was the longest hold of that second).
  if (opts.jobs !== false && !pg) for (const code of ctx.chains.keys()) await runtime.ops.gas.get(code);
  // PostgreSQL: the other gateways' invalidations and wake-ups reach this one from before it serves.
  if (runtime.clusterParts) await followBus(ctx, runtime, runtime.clusterParts.bus);
  const app = buildHttpApp(ctx, runtime);
  const backoffice = lazyBackoffice(ctx, runtime); // its own app, imported on the first /backoffice request
  const accessLog = ctx.config.log.level === "debug";
  const headerOpts = { hsts: ctx.publicUrl.startsWith("https://") };
  // 503s come in floods (a full disk fails every request): one line per interval with a count.
  const limited = new LogLimiter(ctx.logger, Date.now);
  const server = Bun.serve({
    hostname: ctx.config.server.host,
    port: ctx.config.server.port,
    // Bun's own cut-off answers a bare 413; keep it far above server.max_body_bytes so every
    // oversized body gets our 10001 with the failure body (bodies are read capped at the limit).
    maxRequestBodySize: 64 << 20,
    // The paths that answer only at their exact raw target (/metrics) come through here, marked.
    routes: Object.fromEntries(EXACT_TARGETS.map((p) => [p, (raw: Request, srv: Server<unknown>) => serve(raw, srv, true)])),
    fetch: (raw, srv) => serve(raw, srv, false),
  }) as Server<unknown>;
  async function serve(raw: Request, srv: Server<unknown>, exactTarget: boolean): Promise<Response> {
    const started = performance.now();
    const req = exactTarget ? markExactTarget(routable(raw)) : routable(raw);
    rememberPeer(req, () => srv.requestIP(raw)?.address);
    const requestId = assignRequestId(req);
    const res = withSecurityHeaders(isBackofficePath(req.url) ? await (await backoffice()).handle(req) : await app.handle(req), headerOpts, requestId);
    observeHttp(routeOf(req), res.status, (performance.now() - started) / 1000);
    // Access log: debug for every request, warn for server errors (never the query: it may carry data).
    const level = res.status >= 500 ? "warn" : "debug";
    if (level === "debug" && !accessLog) return res;
    const fields = {
      method: req.method,
      path: new URL(req.url).pathname,
      status: res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      requestId: res.headers.get("x-request-id"),
      merchantUid: req.headers.get("x-merchant-uid") ?? undefined,
    };
    if (res.status === 503) limited.log("warn", "http:503", "http", fields);
    else ctx.logger[level]("http", fields);
    return res;
  }
  let scheduler: Scheduler | null;
  // Stalls are measured from here: the listener is open and the jobs are about to start.
  runtime.ops.loop.start();
  try {
    scheduler = opts.jobs === false ? null : await startJobs(ctx, runtime);
  } catch (e) {
    // Never a half-started gateway: the listener closes with the failed start.
    runtime.payouts.stop();
    runtime.ops.loop.stop();
    await server.stop(true);
    await runtime.maintenance?.stop();
    await runtime.clusterParts?.elector.stop();
    runtime.clusterParts?.callbackWake.stop();
    await runtime.clusterParts?.bus.stop();
    throw e;
  }
  const port = server.port!;
  const url = `http://${ctx.config.server.host}:${port}`;
  ctx.logger.info("gateway listening", { url, config: ctx.configSource });
  if (isSandboxGateway(ctx) && !isLoopbackUrl(ctx.publicUrl)) {
    ctx.logger.warn("sandbox mode on a public address: every chain is simulated and POST /sandbox/transfers pays orders without signing; set chains.<C>.mode = \"rpc\" for real money", { publicUrl: ctx.publicUrl });
  }
  let stopped = false;
  return {
    url,
    port,
    runtime,
    jobPlan: scheduler?.plan ?? [],
    async stop() {
      if (stopped) return;
      stopped = true;
      // DESIGN 14: done within 5 s whatever the nodes do. Closing the chains first aborts RPC
      // calls in flight, so jobs waiting on a hung node end now (a signed payout is stored
      // before its broadcast and resumes on the next start); HTTP requests in flight finish.
      runtime.payouts.stop();
      const jobsDone = scheduler?.stop(); // no new runs from here; resolves when the running ones end
      for (const chain of ctx.chains.values()) await chain.stop();
      const httpDone = server.stop();
      await withDeadline(Promise.all([jobsDone, httpDone]), SHUTDOWN_BUDGET_MS, () => ctx.logger.warn("shutdown budget reached; closing connections", { ms: SHUTDOWN_BUDGET_MS }));
      await server.stop(true);
      await runtime.maintenance?.stop();
      runtime.clusterParts?.callbackWake.stop();
      await runtime.clusterParts?.bus.stop().catch(logFailure(ctx, "cluster: stopping the notification bus failed"));
      runtime.ops.loop.stop();
      unguard();
    },
  };
}

/** Jobs and requests get this long to finish on shutdown (the process must be gone within 5 s). */
export const SHUTDOWN_BUDGET_MS = 3500;

async function withDeadline(p: Promise<unknown>, ms: number, onLate: () => void): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((r) => (timer = setTimeout(() => r("late"), ms)));
  const r = await Promise.race([p.then(() => "done" as const), late]);
  clearTimeout(timer);
  if (r === "late") onLate();
}

/** localhost, 127.0.0.0/8 or ::1. */
export function isLoopbackUrl(url: string): boolean {
  try {
    const h = new URL(url).hostname.replace(/^\[|\]$/g, "");
    return h === "localhost" || h.endsWith(".localhost") || /^127\./.test(h) || h === "::1";
  } catch {
    return false;
  }
}
