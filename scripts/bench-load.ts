import { readFileSync } from "node:fs";
import { join } from "node:path";

// The bench scripts' client load: `clients` concurrent clients send requests 0..n-1 in turn;
// the rate, latency percentiles and the failures (a failed request is counted, not thrown).

export function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

export async function load(n: number, clients: number, send: (i: number) => Promise<void>, lat: number[] = []): Promise<LoadResult> {
  let next = 0;
  let errors = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (;;) {
        const i = next++;
        if (i >= n) return;
        const s = performance.now();
        try {
          await send(i);
        } catch {
          errors++;
        }
        lat.push(performance.now() - s);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  return { rps: n / secs, p50: pct(lat, 50), p99: pct(lat, 99), errors };
}


/** The gateways' config in the PostgreSQL benches: no rate limit, a pool of 50 shared addresses, TRON mined on demand. */
export const PG_BENCH_TOML = `[log]\nlevel = "warn"\n[auth]\nrate_limit_per_minute = 0\n[payin]\nshared_pool_size = 50\n[chains.TRON]\nblock_time = "0s"`;

/**
 * A throwaway PostgreSQL cluster for a bench, with PostgreSQL's durable defaults (fsync,
 * synchronous_commit on) as SQLite runs at FULL, gone with this process; `pgPids()` lists the
 * server's processes (postmaster and its children: backends, WAL writer, …) for CPU figures.
 */
export async function benchCluster(settings?: string[]) {
  const pg = await import("../src/testing/postgres");
  const cluster = await pg.startCluster({ durable: true, settings });
  pg.stopWhenGone(process.pid, cluster.dir);
  process.env[pg.PG_URL_ENV] = cluster.url;
  const postmaster = Number(readFileSync(join(cluster.dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
  const pgPids = () => [postmaster, ...readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number)];
  return { cluster, pgPids, createTestDatabase: pg.createTestDatabase };
}
