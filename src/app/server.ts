// Wires routes and jobs into one running gateway.
import type { Server } from "bun";
import { Elysia } from "elysia";
import { baseApp } from "../http/app";
import { healthRoutes } from "../http/health";
import { docsRoutes } from "../http/docs-page";
import { authDeps } from "../http/signed";
import { Scheduler } from "../jobs/scheduler";
import { pruneNonces } from "../auth/verify";
import { RateLimiter } from "../auth/rate-limit";
import { startCallbackWorker } from "../callbacks/worker";
import { payinRoutes } from "../payin/routes";
import { expireDueOrders } from "../payin/service";
import { sandboxRoutes } from "../sandbox/routes";
import { payoutRoutes } from "../payout/routes";
import { PayoutExecutor, type KeyedLock, type PayoutChainOps } from "../payout/executor";
import { reconcileChain } from "../payout/balances";
import { bscPayoutOps, isBscAdapter } from "../payout/bsc";
import { isSolAdapter, solPayoutOps } from "../payout/sol";
import { isTronAdapter, tronPayoutOps } from "../payout/tron";
import { provisionSolTokenAccounts } from "../wallet/sol-token-accounts";
import { checkoutRoutes } from "../checkout/routes";
import { runBatches } from "../treasury/batch";
import { runCollections } from "../treasury/collection";
import { gatewayCheckoutDeps } from "../checkout/gateway-deps";
import { SandboxChain } from "../chains/sandbox/chain";
import { ChainWatcher } from "../watcher/watcher";
import { parseDuration } from "../lib/duration";
import type { ChainAdapter, ChainCode } from "../chains/types";
import type { AppContext } from "./context";
import { rememberPeer } from "../http/client-ip";
import { backofficeRoutes } from "../backoffice/routes";

export interface RunningGateway {
  url: string;
  port: number;
  runtime: Runtime;
  stop(): Promise<void>;
}

/** Long-lived workers the routes and jobs share. */
export interface Runtime {
  watchers: Map<ChainCode, ChainWatcher>;
  /** Signs, broadcasts and tracks payouts. */
  payouts: PayoutExecutor;
  /** Something was committed that may have written callbacks. */
  kick(): void;
  /** A chain moved: scan it, then follow its payouts (sandbox endpoints wait for this). */
  afterChainChange(chain: ChainCode): Promise<void>;
}

/** Chain-specific payout steps (nonces, gas top-ups, fee payers); sandbox chains need none. */
function chainPayoutOps(ctx: AppContext, adapter: ChainAdapter, locks: KeyedLock): PayoutChainOps | undefined {
  if (isBscAdapter(adapter)) return bscPayoutOps(ctx, adapter, locks);
  if (isTronAdapter(adapter)) return tronPayoutOps(ctx, adapter, locks);
  if (isSolAdapter(adapter)) return solPayoutOps(ctx, adapter);
  return undefined;
}

export function createRuntime(ctx: AppContext): Runtime {
  const runtime: Runtime = {
    watchers: new Map(),
    payouts: new PayoutExecutor(ctx, { onChange: () => runtime.kick(), ops: (adapter, locks) => chainPayoutOps(ctx, adapter, locks) }),
    kick: () => {},
    afterChainChange: async (chain) => {
      await runtime.watchers.get(chain)?.tick();
      await runtime.payouts.tick(chain);
    },
  };
  for (const [code, adapter] of ctx.chains) {
    runtime.watchers.set(code, new ChainWatcher(ctx, adapter, { onChange: () => runtime.kick() }));
  }
  return runtime;
}

export function buildHttpApp(ctx: AppContext, runtime: Runtime) {
  const auth = authDeps(ctx, new RateLimiter(ctx.config.auth.rate_limit_per_minute));
  const sandbox = [...ctx.chains.values()].some((c) => c instanceof SandboxChain);
  return baseApp(ctx.logger)
    .use(healthRoutes(ctx))
    .use(docsRoutes(() => ctx.publicUrl))
    .use(payinRoutes(ctx, auth))
    .use(payoutRoutes(ctx, auth, runtime.payouts, () => runtime.kick()))
    .use(checkoutRoutes(gatewayCheckoutDeps(ctx, (chain) => runtime.watchers.get(chain)?.tick() ?? Promise.resolve())))
    .use(sandbox ? sandboxRoutes(ctx, { afterChange: (chain) => runtime.afterChainChange(chain) }) : new Elysia())
    .use(backofficeRoutes(ctx, runtime));
}

export function startJobs(ctx: AppContext, runtime: Runtime): Scheduler {
  const s = new Scheduler(ctx.logger);
  s.every("prune-nonces", 60_000, () => pruneNonces(ctx.db, ctx.clock.now()));
  // Polls the outbox itself; kick() sends a just-committed callback at once.
  const callbacks = startCallbackWorker(ctx);
  runtime.kick = () => callbacks.kick();
  s.service("callbacks", () => callbacks.stop());
  s.every("expire-payins", 1000, () => {
    if (expireDueOrders(ctx) > 0) runtime.kick();
  });
  // Confirmed batch payouts and collection runs: rows become payout orders (also resumed after a restart).
  s.every("payout-batches", 1000, () => runBatches(ctx, runtime.payouts));
  s.every("collections", 1000, () => runCollections(ctx, runtime.payouts));
  for (const [code, watcher] of runtime.watchers) {
    const cfg = ctx.config.chains[code];
    const adapter = ctx.chains.get(code)!;
    // Also resumes payouts a restart interrupted (the first run is a second after start).
    s.every(`payouts-${code}`, 1000, () => runtime.payouts.tick(code));
    s.every(`reconcile-${code}`, 60_000, () => reconcileChain(ctx, adapter));
    if (adapter instanceof SandboxChain) {
      const blockMs = parseDuration(cfg.block_time);
      if (blockMs > 0) s.every(`sandbox-blocks-${code}`, blockMs, () => adapter.mine(1));
      s.every(`watch-${code}`, blockMs > 0 ? Math.min(blockMs, 1000) : 1000, () => watcher.tick());
    } else {
      s.every(`watch-${code}`, parseDuration(cfg.poll_interval), () => watcher.tick());
    }
    // New Solana receiving addresses get their token account from the gas wallet.
    if (isSolAdapter(adapter)) s.every("sol-token-accounts", 2000, () => provisionSolTokenAccounts(ctx, adapter));
  }
  return s;
}

export async function startGateway(ctx: AppContext, opts: { jobs?: boolean } = {}): Promise<RunningGateway> {
  for (const chain of ctx.chains.values()) await chain.start();
  const runtime = createRuntime(ctx);
  for (const w of runtime.watchers.values()) await w.init();
  const app = buildHttpApp(ctx, runtime);
  const accessLog = ctx.config.log.level === "debug";
  const server = Bun.serve({
    hostname: ctx.config.server.host,
    port: ctx.config.server.port,
    // Bun's own cut-off answers a bare 413; keep it far above server.max_body_bytes so every
    // oversized body gets our 10001 with the failure body (bodies are read capped at the limit).
    maxRequestBodySize: 64 << 20,
    fetch: async (req, srv) => {
      const started = performance.now();
      rememberPeer(req, srv.requestIP(req)?.address);
      const res = await app.handle(req);
      // Access log: debug for every request, warn for server errors (never the query: it may carry data).
      const level = res.status >= 500 ? "warn" : "debug";
      if (level === "debug" && !accessLog) return res;
      ctx.logger[level]("http", {
        method: req.method,
        path: new URL(req.url).pathname,
        status: res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        requestId: res.headers.get("x-request-id"),
        merchantUid: req.headers.get("x-merchant-uid") ?? undefined,
      });
      return res;
    },
  }) as Server<unknown>;
  const scheduler = opts.jobs === false ? null : startJobs(ctx, runtime);
  const port = server.port!;
  const url = `http://${ctx.config.server.host}:${port}`;
  ctx.logger.info("gateway listening", { url, config: ctx.configSource });
  let stopped = false;
  return {
    url,
    port,
    runtime,
    async stop() {
      if (stopped) return;
      stopped = true;
      await scheduler?.stop();
      await server.stop(true);
      for (const chain of ctx.chains.values()) await chain.stop();
    },
  };
}
