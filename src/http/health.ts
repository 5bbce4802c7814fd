// Operations endpoints (DESIGN 14): /healthz, /readyz, /metrics. Unsigned, and
// without secrets: endpoints appear as scheme and host only.
import { Elysia } from "elysia";
import { timingSafeEqual } from "node:crypto";
import { liveness, readiness, type OpsCtx, type ReadinessDeps } from "../ops/readiness";
import type { Metrics } from "../ops/metrics";
import { AppError } from "../errors";
import { cameByExactTarget } from "./raw-target";
import type { ClusterRole } from "../ops/cluster-role";

export interface HealthDeps extends ReadinessDeps {
  metrics: Metrics;
  /** This gateway's cluster role for /healthz (DESIGN 22); absent: alone, the leader. */
  cluster?: Pick<ClusterRole, "role" | "isLeader">;
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export function healthRoutes(ctx: OpsCtx, d: HealthDeps) {
  const app = new Elysia()
    .get("/healthz", async () => {
      const l = await liveness(ctx, d.cluster?.role() ?? "leader");
      return json(l.ok ? 200 : 503, l.body);
    })
    .get("/readyz", async () => {
      const r = await readiness(d);
      return json(r.ready ? 200 : 503, r.body);
    });
  if (!ctx.config.ops.metrics) return app;
  const token = ctx.config.ops.metrics_token;
  return app.get("/metrics", async ({ request }) => {
    // DESIGN 10: only the exact raw target (the router also takes /metrics/, and request.url
    // reads /./metrics as /metrics, spellings a proxy rule for /metrics would not block).
    if (!cameByExactTarget(request) || new URL(request.url).pathname !== "/metrics") throw new AppError(10002);
    if (token && !bearerMatches(request.headers.get("authorization"), token)) {
      return new Response("unauthorized\n", { status: 401, headers: { "www-authenticate": 'Bearer realm="metrics"' } });
    }
    return new Response(await d.metrics.render(), { headers: { "content-type": d.metrics.contentType } });
  });
}

function bearerMatches(header: string | null, token: string): boolean {
  const m = /^Bearer (.+)$/.exec(header ?? "");
  if (!m) return false;
  const a = Buffer.from(m[1]);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
