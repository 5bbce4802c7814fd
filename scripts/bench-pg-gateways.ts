// What each gateway of a two-gateway PostgreSQL cluster costs, idle and under load (issue 38, branch
// pggw): CPU per process (the leader, the follower, the PostgreSQL server) over an idle window, then
// during signed creates and signed GETs split between the two gateways, with the statements the
// server ran (pg_stat_statements: calls per request, top statements). Not in `make bench`:
//   bun scripts/bench-pg-gateways.ts            (BENCH_REQUESTS 2000, BENCH_CLIENTS 32, BENCH_IDLE_S 20)
// BENCH_TAIL=1 also times each create and samples pg_stat_activity during them: the slowest 1 %
// (when they started, on which gateway), what the backends waited on meanwhile and whether the
// gateway's main thread ran, waited for a core or slept (its schedstat; branch pg2gw).
// The callbacks go to a name that does not resolve, as in bench.ts's pg section.
import { copyFileSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { SQL } from "bun";
import { StablegateClient } from "../src/sdk/client";
import { join } from "node:path";
import { BUN, ROOT, runCli, startGatewayProcess, tempSetup, type GatewayProcess } from "../src/testing/process";
import { benchCluster, load, PG_BENCH_TOML } from "./bench-load";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 20);
const TOP = Number(process.env.BENCH_TOP ?? 12);
/** Untimed creates (and as many GETs) each gateway answers before the timed phases (BENCH_PG_WARMUP, as bench.ts). */
const WARMUP = Number(process.env.BENCH_PG_WARMUP ?? 1000);
const TAIL = !!process.env.BENCH_TAIL;
type Span = { s: number; e: number; gw: number };
/** A sample: when, the backends' states, each gateway's main thread's schedstat (ns running, ns runnable waiting for a core). */
type Sample = { t: number; rows: string[]; gw: [number, number][] };
/** The main thread's [running, waiting for a core] ns (/proc/<pid>/task/<pid>/schedstat). */
const mainThread = (pid: number): [number, number] => {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8").split(" ").map(Number);
    return [run!, wait!];
  } catch {
    return [0, 0];
  }
};

const readText = (path: string) => readFileSync(path, "utf8");
/** CPU time of every thread of `pid`, ns (0 once gone). */
function cpuNs(pid: number): number {
  try {
    let n = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        n += Number(readText(`/proc/${pid}/task/${tid}/schedstat`).split(" ")[0]);
      } catch {}
    }
    return n;
  } catch {
    return 0;
  }
}

// BENCH_PG_SETTINGS: more server settings, "name=value" separated by spaces (later ones win), e.g. auto_explain's;
// BENCH_PG_LOG: a path the server's log is copied to at the end.
const extra = (process.env.BENCH_PG_SETTINGS ?? "").split(/\s+/).filter(Boolean).map((s) => `-c ${s}`);
const { cluster, pgPids, createTestDatabase } = await benchCluster(["-c shared_preload_libraries=pg_stat_statements", "-c pg_stat_statements.track=all", "-c pg_stat_statements.track_planning=on", ...extra]);
const toml = PG_BENCH_TOML;
const db = await createTestDatabase({ empty: true });
const admin = new SQL({ url: db.url, max: 1 });
const setups = [await tempSetup(toml, { init: false }), await tempSetup(toml, { init: false })];
for (const s of setups) s.env.STABLEGATE_DATABASE_URL = db.url;
const gws: GatewayProcess[] = [];
try {
  const init = runCli(["init", "--config", setups[0]!.configPath], setups[0]!.env);
  if (init.code !== 0) throw new Error(`init: ${init.stderr}`);
  await admin.unsafe("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  const mr = runCli(["merchant", "create", "--name", "bench", "--json", "--config", setups[0]!.configPath], setups[0]!.env);
  if (mr.code !== 0) throw new Error(`merchant create: ${mr.stderr}`);
  const m = JSON.parse(mr.stdout) as { merchantUid: string; apiKey: string };
  // BENCH_CPU_PROF=<dir>: each gateway runs under `bun --cpu-prof --cpu-prof-md` (a profile per gateway in <dir> when it exits).
  const prof = process.env.BENCH_CPU_PROF;
  const cmd = prof ? [BUN, "--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${prof}`, join(ROOT, "src/main.ts")] : undefined;
  for (const s of setups) gws.push(await startGatewayProcess(s, { cmd }));
  const clients = setups.map((s) => new StablegateClient({ baseUrl: s.url, ...m }));
  const leader = async () => ((await admin.unsafe("SELECT count(*)::int AS n FROM cluster_leader")) as { n: number }[])[0]!.n;
  for (let i = 0; i < 100 && !(await leader()); i++) await Bun.sleep(100);
  const body = (i: number, prefix: string) => ({
    chainCode: "TRON",
    tokenSymbol: "USDT",
    merchantOrderNo: `${prefix}-${i}`,
    amount: `${1 + (i % 1000)}.${String(i).padStart(6, "0").slice(-6)}`,
    notifyUrl: "https://shop.example/cb",
  });
  const orders: string[] = [];
  // Warm-up and planner statistics, as bench.ts's pg section does: each gateway on its own answers
  // WARMUP creates and as many GETs (BENCH_PG_WARMUP), so neither enters the timed phases with its
  // code still being compiled (JSC's JIT threads count in its CPU).
  for (const [k, c] of clients.entries()) {
    const warmed: string[] = [];
    await load(WARMUP, CLIENTS, async (i) => void warmed.push((await c.request<{ orderNo: string }>("POST", "/openapi/payin/orders", { body: body(10 * REQUESTS + k * WARMUP + i, "warm") })).orderNo));
    await load(WARMUP, CLIENTS, async (i) => void (await c.request("GET", `/openapi/payin/orders/${warmed[i % warmed.length]}`)));
  }
  await admin.unsafe("ANALYZE");

  const phase = async (name: string, requests: number, run: () => Promise<string>) => {
    await admin.unsafe("SELECT pg_stat_statements_reset()");
    const pids = { g1: gws[0]!.proc.pid, g2: gws[1]!.proc.pid };
    const before = { g1: cpuNs(pids.g1), g2: cpuNs(pids.g2), pg: pgPids().reduce((s, p) => s + cpuNs(p), 0) };
    const t0 = performance.now();
    const what = await run();
    const secs = (performance.now() - t0) / 1000;
    const after = { g1: cpuNs(pids.g1), g2: cpuNs(pids.g2), pg: pgPids().reduce((s, p) => s + cpuNs(p), 0) };
    const stats = (await admin.unsafe(
      `SELECT calls::int AS calls, rows::int AS rows, plans::int AS plans, round(total_exec_time::numeric, 1)::text AS ms, round(total_plan_time::numeric, 1)::text AS pms, regexp_replace(left(query, 110), '\\s+', ' ', 'g') AS q
       FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY calls DESC LIMIT ${TOP}`,
    )) as { calls: number; rows: number; plans: number; ms: string; pms: string; q: string }[];
    const total = ((await admin.unsafe(`SELECT sum(calls)::int AS n FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'`)) as { n: number }[])[0]!.n;
    const per = requests || 1;
    const us = (ns: number) => (ns / 1000 / per).toFixed(0);
    const unit = requests ? "µs per request" : `ms per s (over ${secs.toFixed(1)} s)`;
    const fmt = (ns: number) => (requests ? us(ns) : (ns / 1e6 / secs).toFixed(1));
    console.log(`${name}: ${what}`);
    console.log(`  CPU ${unit}: leader-or-first ${fmt(after.g1 - before.g1)}, second ${fmt(after.g2 - before.g2)}, PostgreSQL ${fmt(after.pg - before.pg)}; statements ${requests ? (total / per).toFixed(2) + " per request" : `${(total / secs).toFixed(1)} per s`}`);
    for (const s of stats) console.log(`    ${String(s.calls).padStart(7)} ${String(s.rows).padStart(7)} rows ${s.ms.padStart(9)} ms exec ${String(s.plans).padStart(6)} plans ${s.pms.padStart(8)} ms  ${s.q}`);
  };
  /**
   * BENCH_TAIL=1: the server's backends of this database sampled every ~5 ms during the creates
   * (pg_stat_activity: what each waits on, and the statement), to line the slowest 1 % of the
   * creates up with what ran while they waited.
   */
  const sampleActivity = () => {
    const probe = new SQL({ url: db.url, max: 1 });
    const samples: Sample[] = [];
    let on = true;
    const run = (async () => {
      while (on) {
        const t = performance.now();
        const rows = (await probe.unsafe(
          `SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') AS w, state, left(regexp_replace(query, '\\s+', ' ', 'g'), 40) AS q
           FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction')`,
        )) as { w: string; state: string; q: string }[];
        samples.push({ t, rows: rows.map((x) => `${x.state === "active" ? "" : "idle-in-tx "}${x.w} ${x.q}`), gw: gws.map((g) => mainThread(g.proc.pid)) });
        await Bun.sleep(5);
      }
    })();
    return { stop: async () => ((on = false), await run, await probe.close(), samples) };
  };
  const printTail = (spans: Span[], samples: Sample[]) => {
    const t0 = Math.min(...spans.map((x) => x.s));
    // The first concurrent batch waits on one-time work (plans rebuilt after the ANALYZE, statement
    // preparation): left out, as bench.ts's warm-up does, so this is the steady state's tail.
    const steady = [...spans].sort((a, b) => a.s - b.s).slice(CLIENTS);
    const sorted = steady.sort((a, b) => b.e - b.s - (a.e - a.s));
    const slow = sorted.slice(0, Math.max(1, Math.ceil(steady.length / 100)));
    const cut = slow[slow.length - 1]!;
    console.log(`  the slowest 1 % after the first batch (${slow.length} creates, >= ${(cut.e - cut.s).toFixed(1)} ms): started at (ms from the phase's start, gateway) ${slow.map((x) => `${(x.s - t0).toFixed(0)}/${x.gw}`).sort((a, b) => parseFloat(a) - parseFloat(b)).join(" ")}`);
    const tally = (ss: Sample[]) => {
      const m = new Map<string, number>();
      for (const x of ss) for (const k of x.rows) m.set(k, (m.get(k) ?? 0) + 1);
      return m;
    };
    const all = tally(samples);
    const during = samples.filter((x) => slow.some((q) => x.t >= q.s && x.t <= q.e));
    const inSlow = tally(during);
    const fmt = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([k, v]) => `      ${(v / Math.max(1, n)).toFixed(2)} ${k}`).join("\n");
    // Each slow create's gateway main thread over the create's span: the share of the wall time it
    // ran (its work, GC), waited for a core (the machine's scheduling) or slept (waiting on I/O).
    const shares = (list: Span[]) => {
      const acc = [0, 0, 0];
      for (const q of list) {
        const inside = samples.filter((x) => x.t >= q.s && x.t <= q.e);
        if (inside.length < 2) continue;
        const a = inside[0]!, b = inside[inside.length - 1]!;
        const wall = (b.t - a.t) * 1e6;
        const run = b.gw[q.gw]![0] - a.gw[q.gw]![0], wait = b.gw[q.gw]![1] - a.gw[q.gw]![1];
        acc[0] += run / wall; acc[1] += wait / wall; acc[2] += Math.max(0, 1 - (run + wait) / wall);
      }
      const n = list.length || 1;
      return `running ${(acc[0]! / n).toFixed(2)}, waiting for a core ${(acc[1]! / n).toFixed(2)}, sleeping ${(acc[2]! / n).toFixed(2)}`;
    };
    console.log(`  the slow creates' gateway main thread over their spans: ${shares(slow)}; all creates: ${shares(steady)}`);
    console.log(`  backends per sample over the phase (${samples.length} samples): what they did\n${fmt(all, samples.length)}`);
    console.log(`  backends per sample while a slowest-1 % create waited (${during.length} samples)\n${fmt(inSlow, during.length)}`);
  };
  console.log(`load average at start: ${readText("/proc/loadavg").split(" ").slice(0, 3).join(" ")}`);
  await phase("idle", 0, async () => {
    await Bun.sleep(IDLE_S * 1000);
    return `${IDLE_S} s, nothing sent`;
  });
  await phase(`create x${REQUESTS}`, REQUESTS, async () => {
    const spans: Span[] = [];
    const sampling = TAIL ? sampleActivity() : null;
    const r = await load(REQUESTS, CLIENTS, async (i) => {
      const s = performance.now();
      const o = await clients[i % 2]!.request<{ orderNo: string }>("POST", "/openapi/payin/orders", { body: body(i, "c") });
      spans.push({ s, e: performance.now(), gw: i % 2 });
      orders.push(o.orderNo);
    });
    if (sampling) printTail(spans, await sampling.stop());
    return `${r.rps.toFixed(0)}/s p99 ${r.p99.toFixed(1)} ms errors ${r.errors}`;
  });
  if (process.env.BENCH_EXPLAIN) {
    // The claim's plan in this state (no slot free: it locks and updates nothing), planned per
    // execution (custom) and once (generic): planning time against execution time.
    const { CLAIM_SQL, claimParams } = await import("../src/callbacks/store.pg");
    const p = claimParams(Date.now(), "explain", 60_000, 0, { perTarget: 8, overflow: 0, concurrency: 16, healthy: [] });
    await admin.unsafe(`PREPARE claimx AS ${CLAIM_SQL}`);
    const args = p.map((v) => (typeof v === "number" ? String(v) : `'${String(v)}'`)).join(", ");
    for (const mode of ["force_custom_plan", "force_generic_plan", "force_custom_plan", "force_generic_plan"]) {
      await admin.unsafe(`SET plan_cache_mode = ${mode}`);
      const plan = ((await admin.unsafe(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE claimx(${args})`)) as { "QUERY PLAN": string }[]).map((r) => r["QUERY PLAN"]);
      console.log(`  claim ${mode}: ${plan.filter((l) => /^(Planning Time|Execution Time)/.test(l)).join(", ")}`);
      if (process.env.BENCH_EXPLAIN === "full") console.log(plan.join("\n"));
    }
    await admin.unsafe("RESET plan_cache_mode");
    await admin.unsafe("DEALLOCATE claimx");
  }
  await phase(`GET x${REQUESTS}`, REQUESTS, async () => {
    const r = await load(REQUESTS, CLIENTS, async (i) => void (await clients[i % 2]!.request("GET", `/openapi/payin/orders/${orders[i % orders.length]}`)));
    return `${r.rps.toFixed(0)}/s p99 ${r.p99.toFixed(1)} ms errors ${r.errors}`;
  });
  await phase("idle after (the created orders' callbacks failing)", 0, async () => {
    await Bun.sleep(IDLE_S * 1000);
    return `${IDLE_S} s`;
  });
  console.log(`load average at end: ${readText("/proc/loadavg").split(" ").slice(0, 3).join(" ")}`);
} finally {
  await Promise.all(gws.map((g) => g.kill("SIGTERM")));
  await admin.close();
  await db.drop().catch(() => undefined);
  for (const s of setups) rmSync(s.dir, { recursive: true, force: true });
  if (process.env.BENCH_PG_LOG) copyFileSync(`${cluster.dir}/server.log`, process.env.BENCH_PG_LOG);
}
