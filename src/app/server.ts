// Wires routes and jobs into one running gateway.
import type { Server } from "bun";
import { baseApp } from "../http/app";
import { healthRoutes } from "../http/health";
import { docsRoutes } from "../http/docs-page";
import { Scheduler } from "../jobs/scheduler";
import { pruneNonces } from "../auth/verify";
import { RateLimiter } from "../auth/rate-limit";
import type { AppContext } from "./context";

export interface RunningGateway {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export function buildHttpApp(ctx: AppContext) {
  const rateLimiter = new RateLimiter(ctx.config.auth.rate_limit_per_minute);
  void rateLimiter;
  return baseApp(ctx.logger).use(healthRoutes(ctx)).use(docsRoutes(() => ctx.publicUrl));
}

export function startJobs(ctx: AppContext): Scheduler {
  const s = new Scheduler(ctx.logger);
  s.every("prune-nonces", 60_000, () => pruneNonces(ctx.db, ctx.clock.now()));
  return s;
}

export async function startGateway(ctx: AppContext, opts: { jobs?: boolean } = {}): Promise<RunningGateway> {
  for (const chain of ctx.chains.values()) await chain.start();
  const app = buildHttpApp(ctx);
  const server = Bun.serve({
    hostname: ctx.config.server.host,
    port: ctx.config.server.port,
    maxRequestBodySize: Math.max(ctx.config.server.max_body_bytes * 4, 1 << 20),
    fetch: (req) => app.handle(req),
  }) as Server<unknown>;
  const scheduler = opts.jobs === false ? null : startJobs(ctx);
  const port = server.port!;
  const url = `http://${ctx.config.server.host}:${port}`;
  ctx.logger.info("gateway listening", { url, config: ctx.configSource });
  let stopped = false;
  return {
    url,
    port,
    async stop() {
      if (stopped) return;
      stopped = true;
      await scheduler?.stop();
      await server.stop();
      for (const chain of ctx.chains.values()) await chain.stop();
    },
  };
}
