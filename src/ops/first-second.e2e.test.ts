// A quiet first second (issue 37, DESIGN 11): an idle gateway started on a seeded database
// (the growth bench's 10,000-order build, cached in .bench-cache/) runs every job's first run
// without holding its event loop for long. Read from the gateway's own probe on /metrics
// (src/ops/loop-stalls.ts). The bound is generous (the machine running the suite is shared);
// the 50 ms target is `make bench ARGS=growth`'s. The on-CPU measure is asserted: a shared
// machine that does not schedule the process makes timers late without the gateway holding
// anything; the wall measure is printed beside it.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { growthDatabase, GROWTH_MASTER_KEY } from "../../scripts/growth/generate";
import { servedCopy, shiftedClock } from "../../scripts/growth/serve-copy";
import { startTestGateway } from "../testing/harness";
import { HEAVY_GAP_MS, phaseDistance } from "../jobs/phases";

const BOUND_MS = 150;
const dir = mkdtempSync(join(tmpdir(), "stablegate-first-second-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** stablegate_event_loop_stall_max_seconds as { "0-1s": { wall, cpu } (ms), ... }. */
function stalls(metrics: string): Record<string, { wall: number; cpu: number }> {
  const out: Record<string, { wall: number; cpu: number }> = {};
  for (const m of metrics.matchAll(/^stablegate_event_loop_stall_max_seconds\{window="([^"]+)",measure="(wall|cpu)"\} (\S+)$/gm)) {
    (out[m[1]!] ??= { wall: NaN, cpu: NaN })[m[2] as "wall" | "cpu"] = Math.round(Number(m[3]) * 1000 * 10) / 10;
  }
  return out;
}

test(
  `an idle gateway on a 10,000-order database holds its loop under ${BOUND_MS} ms in its first 3 s, every job's first run included`,
  async () => {
    const { path, meta } = await growthDatabase(10_000, () => {});
    const gw = await startTestGateway({
      jobs: true,
      clock: shiftedClock(meta),
      env: { STABLEGATE_MASTER_KEY: GROWTH_MASTER_KEY },
      config: { database: { path: await servedCopy(path, dir) }, log: { level: "error" }, ops: { metrics: true } },
    });
    try {
      // The plan the gateway runs (the table of src/jobs/phases.test.ts, for real): heavy jobs apart.
      const heavy = gw.gateway.jobPlan.filter((j) => j.heavy);
      expect(heavy.map((j) => j.name)).toContain("reconcile-TRON");
      const close = heavy.flatMap((a, i) => heavy.slice(i + 1).filter((b) => phaseDistance(a, b) < HEAVY_GAP_MS).map((b) => `${a.name}/${b.name}`));
      expect(close).toEqual([]);
      // Every heavy job's first run is due within the first ~1.5 s (src/jobs/phases.ts).
      await Bun.sleep(3100);
      const seen = stalls(await (await fetch(`${gw.url}/metrics`)).text());
      console.log("longest stalls (ms):", JSON.stringify(seen));
      expect(Object.keys(seen)).toEqual(["0-1s", "1-3s", "3s+"]);
      expect({ first: seen["0-1s"]!.cpu <= BOUND_MS, next: seen["1-3s"]!.cpu <= BOUND_MS }).toEqual({ first: true, next: true });
    } finally {
      await gw.stop();
    }
  },
  60_000,
);
