// `make bench` section "growth" (DESIGN 11 "Growth", issue 23): every probe of
// scripts/growth/probes.ts (merchant API, background jobs) and
// scripts/growth/backoffice-probes.ts timed on a small and a large database built
// by scripts/growth/generate.ts (cached in .bench-cache/), then the longest
// event-loop stall of an idle gateway on each (jobs running, a timer-drift sampler).
// Prints large/small per probe; target: within 2x, idle stall under 50 ms.
//
// Knobs: BENCH_GROWTH_SMALL (10000), BENCH_GROWTH_LARGE (2000000) orders;
// BENCH_GROWTH_IDLE_S (20) seconds of idle sampling per database;
// BENCH_GROWTH_PROBES=substring,... runs only probes whose name contains one of them.
//   bun scripts/bench-growth.ts      (or: make bench ARGS=growth)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { growthDatabase, GROWTH_MASTER_KEY, type GrowthMeta } from "./growth/generate";
import { ENGINE_PROBES, type GrowthEnv, type Probe } from "./growth/probes";
import { BACKOFFICE_PROBES } from "./growth/backoffice-probes";
import { STALL_WINDOWS, stallSampler, type StallFigures } from "./growth/stall";
import { startTestGateway } from "../src/testing/harness";
import { StablegateClient } from "../src/sdk/client";
import { ENGINE_QUERIES } from "../src/testing/engine-queries";
import { planProblems, queryPlan } from "../src/testing/query-plan";
import { servedCopy, shiftedClock } from "./growth/serve-copy";

const SMALL = Number(process.env.BENCH_GROWTH_SMALL ?? 10_000);
const LARGE = Number(process.env.BENCH_GROWTH_LARGE ?? 2_000_000);
const IDLE_S = Number(process.env.BENCH_GROWTH_IDLE_S ?? 20);
const ONLY = (process.env.BENCH_GROWTH_PROBES ?? "").split(",").filter(Boolean);
const PROBES = [...ENGINE_PROBES, ...BACKOFFICE_PROBES].filter((p) => !ONLY.length || ONLY.some((s) => p.name.includes(s)));

interface Figure {
  /** Median ms per operation, or per row for probes that return row counts. */
  ms: number;
  perRow: boolean;
  errors: number;
  firstError?: string;
  /** Longest event-loop stall while the probe ran (ms), and the part of it spent on CPU. */
  stall: number;
  busy: number;
  /** Process CPU time per operation (ms): the figure a loaded machine disturbs least. */
  cpu: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : NaN;
};

async function measure(p: Probe, env: GrowthEnv): Promise<Figure> {
  const reps = p.reps ?? 40;
  const warmup = p.warmup ?? 3;
  const times: number[] = [];
  let rows = 0;
  let perRow = false;
  let errors = 0;
  let firstError: string | undefined;
  let sampler: ReturnType<typeof stallSampler> | null = null;
  let cpu0 = process.cpuUsage();
  let cpuUs = 0;
  for (let i = 0; i < warmup + reps; i++) {
    if (i === warmup) sampler = stallSampler();
    cpu0 = process.cpuUsage();
    const t0 = performance.now();
    try {
      const n = await p.run(env, i);
      const dt = performance.now() - t0;
      if (i < warmup) continue;
      const c = process.cpuUsage(cpu0);
      cpuUs += c.user + c.system;
      if (typeof n === "number") {
        perRow = true;
        rows += n;
      }
      times.push(dt);
    } catch (e) {
      errors++;
      firstError ??= String((e as Error)?.message ?? e).slice(0, 160);
    }
    // Lets the sampler's timer fire, so a synchronous probe's hold on the loop is seen as a stall.
    await Bun.sleep(6);
  }
  const st = sampler?.stop();
  const stall = st?.max ?? NaN;
  const busy = st?.busyMax ?? NaN;
  const ms = perRow ? times.reduce((a, b) => a + b, 0) / Math.max(1, rows) : median(times);
  const cpu = cpuUs / 1000 / Math.max(1, perRow ? rows : times.length);
  return { ms, perRow, errors, firstError, stall, busy, cpu };
}

async function openEnv(label: GrowthEnv["label"], path: string, meta: GrowthMeta, dir: string, jobs: boolean): Promise<GrowthEnv> {
  // /metrics on: the idle phase reads the gateway's own stall gauge (src/ops/loop-stalls.ts).
  const clock = shiftedClock(meta);
  const gw = await startTestGateway({
    jobs,
    clock,
    env: { STABLEGATE_MASTER_KEY: GROWTH_MASTER_KEY },
    config: { database: { path }, log: { level: "error" }, auth: { rate_limit_per_minute: 0 }, ops: { metrics: true } },
  });
  const merchants = meta.merchants.map((m) => ({ ...m, client: new StablegateClient({ baseUrl: gw.url, merchantUid: m.uid, apiKey: m.apiKey, now: () => clock.now() }) }));
  const byId = new Map(meta.merchants.map((m, i) => [m.id, i]));
  // Random orders over the year: rowids are dense (1..N), so random ids are random orders.
  const pick = gw.ctx.db.$client.query<{ order_no: string; merchant_id: number }, [number]>("SELECT order_no, merchant_id FROM payin_orders WHERE id = ?");
  const orders = [];
  // Not for the idle phase (jobs on, no probes): 200 random reads of a cold 4 GB file in the
  // gateway's process would be the bench's own hold on the loop in the gateway's first second.
  for (let k = 0; k < (jobs ? 0 : 200); k++) {
    const r = pick.get(1 + Math.floor(Math.random() * meta.orders));
    if (r && byId.has(r.merchant_id)) orders.push({ orderNo: r.order_no, merchant: byId.get(r.merchant_id)! });
  }
  void dir;
  return { label, meta, gw, clock, merchants, orders, run: `g${Date.now().toString(36)}` };
}

export async function benchGrowth(): Promise<void> {
  console.log(`growth. ${SMALL.toLocaleString("en")} vs ${LARGE.toLocaleString("en")} stored pay-ins (scripts/growth/generate.ts), in-process gateway on a copy, median per operation`);
  const sizes: Array<{ label: GrowthEnv["label"]; orders: number }> = [
    { label: "small", orders: SMALL },
    { label: "large", orders: LARGE },
  ];
  const slowJobs: Partial<Record<GrowthEnv["label"], string[]>> = {};
  const figures = new Map<string, Partial<Record<GrowthEnv["label"], Figure>>>();
  const stalls: Partial<Record<GrowthEnv["label"], IdleStalls>> = {};
  for (const size of sizes) {
    const { path, meta } = await growthDatabase(size.orders, (s) => console.log(s));
    const dir = mkdtempSync(join(tmpdir(), "stablegate-growth-"));
    try {
      const t0 = performance.now();
      const copy = await servedCopy(path, dir);
      console.log(`  ${size.label}: ${size.orders.toLocaleString("en")} orders, copied in ${((performance.now() - t0) / 1000).toFixed(1)} s; load average ${loadavg()}`);
      const env = await openEnv(size.label, copy, meta, dir, false);
      try {
        if (size.label === "large") planCheck(env);
        for (const p of PROBES) {
          const f = await measure(p, env);
          const row = figures.get(p.name) ?? {};
          row[size.label] = f;
          figures.set(p.name, row);
        }
      } finally {
        await env.gw.stop();
      }
      // Idle: a fresh start with every job running (each runs once in the first second), nobody
      // calling; sampled from the first answer on (start-up itself is the first-answer figure).
      const started = performance.now();
      const idle = await openEnv(size.label, copy, meta, dir, true);
      const firstAnswerMs = await firstAnswer(idle.gw.url, started);
      const sampler = stallSampler();
      await Bun.sleep(IDLE_S * 1000);
      const gauge = await gatewayStalls(idle.gw.url);
      await idle.gw.stop();
      const s = sampler.stop();
      slowJobs[size.label] = idle.gw.logs
        .map((l) => JSON.parse(l) as { msg?: string; job?: string; ms?: number })
        .filter((l) => l.msg === "job ran long")
        .sort((a, b) => b.ms! - a.ms!)
        .slice(0, 4)
        .map((l) => `${l.job} ${l.ms} ms`);
      stalls[size.label] = { ...s, firstAnswerMs, gauge };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  print(figures, stalls);
  for (const k of ["small", "large"] as const) if (slowJobs[k]?.length) console.log(`    ${k}: slowest job runs while idle (wall, awaits included): ${slowJobs[k]!.join(", ")}`);
}

/** The engine's checked queries, planned on the large database with its statistics. */
function planCheck(env: GrowthEnv): void {
  const db = env.gw.ctx.db;
  const bad: string[] = [];
  for (const q of ENGINE_QUERIES) {
    const query = q.query(db);
    const text = typeof query === "string" ? query : query.toSQL().sql;
    const problems = planProblems(queryPlan(db, query), text, q.opts);
    if (problems.length) bad.push(`${q.name}: ${problems.join("; ")}`);
  }
  console.log(`  query plans on the large database (${ENGINE_QUERIES.length} engine queries, with its ANALYZE statistics): ${bad.length ? `${bad.length} not seeks` : "all seeks"}`);
  for (const b of bad) console.log(`    ${b}`);
}

type IdleStalls = StallFigures & { firstAnswerMs: number; gauge: Map<string, { wall: number; cpu: number }> | null };

/**
 * The gateway's own probe (stablegate_event_loop_stall_max_seconds on /metrics): windows from
 * the moment its listener opened and its jobs started, which the bench's sampler (from the first
 * answer on) misses. Null for a build without the gauge.
 */
async function gatewayStalls(url: string): Promise<Map<string, { wall: number; cpu: number }> | null> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out = new Map<string, { wall: number; cpu: number }>();
  for (const m of text.matchAll(/^stablegate_event_loop_stall_max_seconds\{window="([^"]+)",measure="(wall|cpu)"\} (\S+)$/gm)) {
    const w = out.get(m[1]!) ?? { wall: NaN, cpu: NaN };
    w[m[2] as "wall" | "cpu"] = Number(m[3]) * 1000;
    out.set(m[1]!, w);
  }
  return out.size ? out : null;
}

async function firstAnswer(url: string, since: number): Promise<number> {
  for (;;) {
    try {
      if ((await fetch(`${url}/healthz`)).status < 500) return performance.now() - since;
    } catch {}
    await Bun.sleep(5);
  }
}

function loadavg(): string {
  return require("node:os").loadavg().map((x: number) => x.toFixed(1)).join(" ");
}

const f1 = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

function print(figures: Map<string, Partial<Record<GrowthEnv["label"], Figure>>>, stalls: Partial<Record<GrowthEnv["label"], IdleStalls>>) {
  let group = "";
  const width = Math.max(...PROBES.map((p) => p.name.length)) + 2;
  for (const p of PROBES) {
    if (p.group !== group) console.log(`  ${(group = p.group)}:${" ".repeat(Math.max(1, width - group.length - 1))}      small       large          ratio  | CPU small / large   ratio | longest stall small / large`);
    const r = figures.get(p.name) ?? {};
    const s = r.small;
    const l = r.large;
    const unit = s?.perRow || l?.perRow ? "ms/row" : "ms";
    const ratio = s && l ? l.ms / s.ms : NaN;
    const flag = ratio > 2 ? "  <-- over 2x (wall)" : "";
    const errs = [s, l].filter((x) => x?.errors).map((x) => `${x!.errors} errors (${x!.firstError})`).join("; ");
    const stalls = `${f1(s?.stall ?? NaN)} / ${f1(l?.stall ?? NaN)} ms (on CPU ${f1(s?.busy ?? NaN)} / ${f1(l?.busy ?? NaN)})`;
    const cpuRatio = s && l ? l.cpu / s.cpu : NaN;
    const cpu = `${f1(s?.cpu ?? NaN).padStart(8)} / ${f1(l?.cpu ?? NaN).padEnd(7)} ${(cpuRatio.toFixed(2) + "x").padStart(6)}`;
    console.log(`    ${p.name.padEnd(width)} ${f1(s?.ms ?? NaN).padStart(8)} ${f1(l?.ms ?? NaN).padStart(10)} ${unit.padEnd(6)} ${(ratio.toFixed(2) + "x").padStart(7)}  | ${cpu} | ${stalls}${flag}${errs ? `  ${errs}` : ""}`);
  }
  const st = (k: GrowthEnv["label"]) => stalls[k];
  console.log(`  idle gateway, ${IDLE_S} s with every job running (timer-drift sampler every 5 ms):`);
  for (const k of ["small", "large"] as const) {
    const s = st(k);
    if (s) console.log(`    ${k}: longest stall ${f1(s.max)} ms; longest on CPU ${f1(s.busyMax)} ms (${(s.busyAtMs / 1000).toFixed(1)} s after the first answer), ${f1(s.busyMaxSettled)} ms after the first 3 s; p99 ${f1(s.p99)} ms (target < 50 ms); first /healthz answer ${f1(s.firstAnswerMs)} ms after start`);
  }
  console.log(`  idle gateway, longest stall per window after the first answer, wall (on CPU) ms, target < 50 ms:`);
  console.log(`    ${"".padEnd(6)} ${STALL_WINDOWS.map((w) => w.label.padStart(16)).join(" ")}`);
  for (const k of ["small", "large"] as const) {
    const s = st(k);
    if (s) console.log(`    ${k.padEnd(6)} ${s.windows.map((w) => `${f1(w.wall)} (${f1(w.busy)})`.padStart(16)).join(" ")}`);
  }
  console.log(`  the gateway's own probe (/metrics stablegate_event_loop_stall_max_seconds, every 10 ms from the listener's start), wall (on CPU) ms:`);
  for (const k of ["small", "large"] as const) {
    const g = st(k)?.gauge;
    if (g) console.log(`    ${k.padEnd(6)} ${[...g].map(([w, v]) => `${w} ${f1(v.wall)} (${f1(v.cpu)})`).join("   ")}`);
    else if (st(k)) console.log(`    ${k.padEnd(6)} (this build has no stall gauge)`);
  }
}

if (import.meta.main) await benchGrowth();
