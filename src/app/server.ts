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
import { startCallbackWorker } from "../callbacks/worker";
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
import { singleGateway, type ClusterRole } from "../cluster/role";
import { AlertEngine } from "../ops/alerts/engine";
import { RateRefresher } from "../rates/refresher";
import { expireDueInvoices } from "../invoices/service";
import { ScheduledBackups } from "../backup/schedule";
import { LoopStallProbe } from "../ops/loop-stalls";
import { isPg } from "../db/engine";

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
   * SQLite gateway is alone on its file and always the leader (src/cluster/role.ts); on
   * PostgreSQL it becomes the elector's (src/cluster/leader.ts) once the stores run there.
   */
  cluster: ClusterRole;
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

/** Chain-specific payout steps (nonces, gas top-ups, fee payers); sandbox chains need none. */
function chainPayoutOps(ctx: AppContext, adapter: ChainAdapter, locks: KeyedLock): PayoutChainOps | undefined {
  return chainBundle(adapter).payoutOps?.(ctx, { locks, addresses: addressBook, payouts: payoutStore });
}

export function createRuntime(ctx: AppContext): Runtime {
  const watchers = new Map<ChainCode, ChainWatcher>();
  const gas = new GasMonitor(ctx);
  const storage = new StorageMonitor(ctx);
  const loop = new LoopStallProbe();
  const cluster = singleGateway(parseDuration(ctx.config.cluster.takeover_after));
  const payouts = new PayoutExecutor({ ...ctx, gate: new ReconcileGate({ ...ctx, payouts: payoutStore }) }, { ops: (adapter, locks) => chainPayoutOps(ctx, adapter, locks) });
  const runtime: Runtime = {
    cluster,
    ops: { gas, storage, metrics: createMetrics({ ctx, watchers, gas, loop, cluster }), alerts: new AlertEngine({ ctx, watchers, gas, storage, cluster }), backups: ctx.config.backup.schedule ? new ScheduledBackups(ctx) : null, loop },
    watchers,
    sweeps: new Map(),
    rates: new RateRefresher(ctx),
    maintenance: ctx.config.database.path === ":memory:" || isPg(ctx.db) ? null : new DbMaintenance(ctx.db, ctx.config.database.path, ctx.logger),
    payouts,
    treasury: new TreasuryRunner(payouts),
    kick: callbacksDue,
    afterChainChange: async (chain) => {
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

export async function startJobs(ctx: AppContext, runtime: Runtime): Promise<Scheduler> {
  if (isPg(ctx.db)) return await startPgJobs(ctx);
  const s = new Scheduler(ctx.logger, ctx.clock);
  s.every("prune-nonces", 60_000, () => pruneNonces(ctx.db, ctx.clock.now()), HEAVY);
  // DESIGN 11 "Retention" and "Growth": both walk big tables in slices that yield; both run once right after start.
  s.every("prune-callbacks", 10 * 60_000, () => pruneDeliveredCallbacks(ctx), HEAVY);
  const maintenance = runtime.maintenance;
  s.every("optimize", OPTIMIZE_EVERY_MS, async () => (maintenance ? maintenance.refreshStats() : await optimizeDatabase(ctx)), HEAVY);
  // Polls the outbox itself; callbacksDue() (called by the outbox on every insert) sends a just-committed callback at once.
  // Deliveries in flight get 2 s at shutdown, then are cut off and retried after restart (5 s budget).
  const callbacks = await startCallbackWorker(ctx, { shutdownGraceMs: 2000 });
  s.service("callbacks", () => callbacks.stop());
  s.every("alerts", 5000, () => runtime.ops.alerts.tick(), HEAVY);
  // The database file's identity (a stat): a file deleted or replaced stops writes within 2 s even when idle.
  s.every("storage-file", 2000, async () => void await runtime.ops.storage.checkFile());
  s.service("alerts", () => runtime.ops.alerts.stop());
  if (runtime.rates.enabled) {
    // Invoices need a rate from the first minute, not after the first refresh. Not awaited: a
    // failure (the store write on a full disk) is logged here, never left to end the process.
    runtime.rates.tick().catch(logFailure(ctx, "first rates refresh failed"));
    s.every("rates", parseDuration(ctx.config.rates.refresh), () => runtime.rates.tick(), HEAVY);
    s.service("rates", async () => runtime.rates.stop());
  }
  // Scheduled backups: the copy and its checks run on a worker thread (src/backup/sqlite-worker.ts).
  const backups = runtime.ops.backups;
  if (backups) s.every("backups", 15_000, () => backups.tick(), HEAVY);
  s.every("expire-payins", 1000, async () => {
    await expireDueOrders(ctx);
  });
  // Invoices whose payer never chose a network (a chosen one expires with its pay-in).
  s.every("expire-invoices", 1000, async () => {
    await expireDueInvoices(ctx);
  });
  // Confirmed batch payouts and collection runs: rows become payout orders (also resumed after a restart).
  s.every("payout-batches", 1000, () => runBatches(ctx, runtime.treasury));
  s.every("collections", 1000, () => runCollections(ctx, runtime.treasury));
  for (const [code, watcher] of runtime.watchers) {
    const cfg = ctx.config.chains[code];
    const adapter = ctx.chains.get(code)!;
    // Also resumes payouts a restart interrupted (the first run is a second after start).
    s.every(`payouts-${code}`, 1000, () => runtime.payouts.tick(code));
    s.every(`reconcile-${code}`, 60_000, () => reconcileChain(ctx, adapter), HEAVY);
    // After a restore: the HD indexes it skipped become watched addresses, then the chain is rescanned for them.
    s.every(`restore-gap-${code}`, 250, async () => {
      const step = await gapStep(ctx, adapter);
      if (step.state !== "rescan") return;
      if (step.since !== null) await watcher.rewind(step.since);
      await gapWatched(ctx.db, code, ctx.clock.now());
      ctx.logger.info("restore: the HD indexes the restore skipped are watched; rescanning from the backup's cursor", { chain: code, from: step.from, to: step.to });
    });
    // Read once now (gas_low need not wait a minute after start), then every minute (a sandbox chain's gas wallet too: it starts funded).
    runtime.ops.gas.refresh(code).catch(logFailure(ctx, "first gas balance read failed", { chain: code }));
    s.every(`gas-balance-${code}`, 60_000, () => runtime.ops.gas.refresh(code));
    if (adapter instanceof SandboxChain) {
      const blockMs = parseDuration(cfg.block_time);
      if (blockMs > 0) s.every(`sandbox-blocks-${code}`, blockMs, async () => await adapter.mine(1));
      s.every(`watch-${code}`, blockMs > 0 ? Math.min(blockMs, 1000) : 1000, () => watcher.tick());
    } else {
      s.every(`watch-${code}`, parseDuration(cfg.poll_interval), () => watcher.tick());
    }
    const sweep = runtime.sweeps.get(code);
    const sweepEvery = parseDuration(ctx.config.payin.sweep_every);
    if (sweep && sweepEvery > 0) s.every(`sweep-${code}`, sweepEvery, () => sweep.run(), HEAVY);
    // Chain-specific background work (Solana: token accounts for new receiving addresses).
    for (const j of chainBundle(adapter).jobs?.(ctx, addressBook, payoutStore) ?? []) s.every(j.name, j.everyMs, j.run);
  }
  return s;
}

/**
 * The jobs of a gateway on PostgreSQL in this build (docs/postgresql.md "What runs on PostgreSQL"):
 * what every gateway of a cluster runs (callback delivery with leased claims, nonce pruning, pay-in
 * expiry). The leader-only work (watchers, payouts, collection, energy, rates, backups, alerts)
 * waits for the leader election (src/cluster/); the database's own checkpointer and autovacuum
 * replace SQLite's maintenance.
 */
async function startPgJobs(ctx: AppContext): Promise<Scheduler> {
  const s = new Scheduler(ctx.logger, ctx.clock);
  s.every("prune-nonces", 60_000, () => pruneNonces(ctx.db, ctx.clock.now()), HEAVY);
  // Every gateway delivers: its claims are leased (FOR UPDATE SKIP LOCKED, callbacks/store.pg.ts),
  // so gateways sharing the database never send one callback twice at once.
  const callbacks = await startCallbackWorker(ctx, { shutdownGraceMs: 2000 });
  s.service("callbacks", () => callbacks.stop());
  s.every("expire-payins", 1000, async () => {
    await expireDueOrders(ctx);
  });
  return s;
}

export async function startGateway(ctx: AppContext, opts: { jobs?: boolean } = {}): Promise<RunningGateway> {
  for (const chain of ctx.chains.values()) await chain.start();
  const runtime = createRuntime(ctx);
  // Every write first checks that the database file is still the one opened (src/ops/storage.ts).
  // (SQLite's file: PostgreSQL has no file to watch, and the watchers are the leader's.)
  const pg = isPg(ctx.db);
  const unguard = pg ? () => undefined : runtime.ops.storage.install();
  if (!pg) for (const w of runtime.watchers.values()) await w.init();
  // Gas wallets derived before the listener opens (the first use of each curve costs 40-70 ms
  // per chain), not by the first alerts tick or /readyz, nor in the first second of service
  // (issue 37: it was the longest hold of that second).
  if (opts.jobs !== false && !pg) for (const code of ctx.chains.keys()) await runtime.ops.gas.get(code);
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
