// `make bench`: the figures of DESIGN 11 in one run, each next to the floor it
// is judged against, measured in the same run (printed, never asserted):
// 1. signed create-pay-in at 32 clients vs a bare FULL-durability endpoint
//    (minimal tables) and vs the same endpoint on the gateway's own schema;
//    signed GET vs a bare read + durable nonce endpoint; beside each ratio the
//    process CPU per request of the gateway and of the floor, and how each
//    one's event-loop thread spent the load window; RSS; cold start;
// 2. completed-callback latency for 1,000 orders completed by one block,
//    without and with concurrent create load;
// 3. fairness: merchant B's callbacks while merchant A's endpoints hang;
// 4. RPC calls per block (TRON, BSC, BASE) / slot (SOL) at 10 and 100,000 watched addresses;
//    4b. the sweep's calls per address (scripts/bench-sweep.ts).
// 5. watcher time per block with 10 vs 1,000 pending deposits.
// growth. 10k vs 2M stored orders: large/small per operation, idle stalls (scripts/bench-growth.ts).
// energy. TRX spent per 100 TRON payouts, [chains.TRON.energy] mode burn vs stake (scripts/bench-energy.ts).
// pg. issue 38: create and GET on one SQLite gateway, one gateway on PostgreSQL, two on one database
//    (`make bench ARGS=pg` alone; in the default set since issue 38 asks for it beside SQLite's figures
//    in one run: `make bench` installs PostgreSQL when missing, as `make test` does).
// BENCH_REQUESTS, BENCH_CLIENTS, BENCH_COMPLETIONS scale it; BENCH_ONLY=create,callbacks,fairness,rpc,watcher,growth,energy,pg
// (or the section names as arguments: `make bench ARGS=growth`) picks sections;
// BENCH_SLICES (4) interleaves section 1's gateway and floors in slices (1: one after another);
// BENCH_WARMUP fixes section 1's untimed warm-up per target (default: until the gateway's JIT settles, warmUp).
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { StablegateClient } from "../src/sdk/client";
import { BUN, ROOT, runCli, startGatewayProcess, tempSetup, type GatewayProcess, type TempSetup } from "../src/testing/process";
import { freePort } from "../src/testing/wait";
import { signRequest, canonicalBody } from "../src/auth/signing";
import { startReceiver, type Receiver } from "../src/testing/receiver";
import { sandboxClient } from "../src/testing/sandbox";
import { watchSetOf } from "../src/testing/watch-set";
import { mapSeq } from "../src/lib/async-seq";
import { benchCluster, load, pct, PG_BENCH_TOML, type LoadResult } from "./bench-load";

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
/**
 * Untimed requests each section-1 target answers before its timed slices: BENCH_WARMUP fixes the
 * count; by default the first target (the gateway) warms in chunks of WARMUP_CHUNK until its JIT
 * threads take under WARMUP_JIT_SHARE of its CPU in a chunk (at least WARMUP_MIN, at most
 * WARMUP_MAX requests), and every other target then answers as many. JavaScriptCore compiles the
 * gateway's hot functions up its tiers (DFG, then FTL) for 10,000-20,000 creates; after 256 the
 * JIT threads were still 20-25 % of the gateway's CPU (the floors': 1-2 %).
 */
const WARMUP = process.env.BENCH_WARMUP ? Number(process.env.BENCH_WARMUP) : null;
const WARMUP_MIN = 256;
const WARMUP_CHUNK = 2000;
const WARMUP_MAX = 30_000;
const WARMUP_JIT_SHARE = 0.05;
const COMPLETIONS = Number(process.env.BENCH_COMPLETIONS ?? 1000);
const ONLY = new Set((process.argv.slice(2).join(",") || process.env.BENCH_ONLY || "create,callbacks,fairness,rpc,watcher,growth,energy,pg").split(","));
/** Section 1 runs the gateway and its floors in this many interleaved slices each (1: one after another). */
const SLICES = Math.max(1, Number(process.env.BENCH_SLICES ?? 4));

const f = (x: number) => x.toFixed(1);
const rss = (pid: number) => {
  try {
    const s = require("node:fs").readFileSync(`/proc/${pid}/status`, "utf8") as string;
    return Number(/VmRSS:\s+(\d+)/.exec(s)?.[1] ?? 0) / 1024;
  } catch {
    return NaN;
  }
};

interface Target {
  name: string;
  send: (i: number) => Promise<void>;
  /** The server process: its CPU time and its event loop's thread are read around each slice. */
  pid?: number;
  /** The gateway's group-commit counters (from /metrics), read around each slice. */
  commits?: () => Promise<CommitCounters>;
  /** Other processes whose CPU counts for this target (a second gateway, the PostgreSQL server's), listed at each slice. */
  alsoPids?: () => number[];
}

/** What a target's process did during its timed slices (summed over them). */
interface Usage {
  /** Wall time of the slices, ms. */
  wallMs: number;
  /** CPU time of every thread of the process, ns (/proc/<pid>/task/<tid>/schedstat). */
  cpuNs: number;
  /** Of which its JIT compiler threads' (comm "JITWorker"), ns: near 0 once the warm-up reached steady state. */
  jitNs: number;
  /** The main thread (the event loop): on a core, and runnable but waiting for one, ns. */
  loopRunNs: number;
  loopWaitNs: number;
  /** CPU time of the target's other processes (alsoPids), ns. */
  alsoCpuNs: number;
  /** Group commits: COMMIT wall time (ms), commits, writes they carried. */
  commitMs: number;
  groups: number;
  jobs: number;
  /** WAL fsyncs on the thread pool (db/wal-sync.ts). */
  syncs: number;
  /** The process's highest RSS seen during the timed slices (sampled every 100 ms), MB. */
  rssPeakMb: number;
}

interface CommitCounters {
  commitMs: number;
  groups: number;
  jobs: number;
  /** WAL fsyncs on the thread pool (db/wal-sync.ts). */
  syncs: number;
}

const readText = (path: string) => require("node:fs").readFileSync(path, "utf8") as string;
/** [on CPU, waiting on a run queue] in ns of one thread. */
const schedstat = (pid: number, tid: number): [number, number] => {
  try {
    const [run, wait] = readText(`/proc/${pid}/task/${tid}/schedstat`).split(" ").map(Number);
    return [run!, wait!];
  } catch {
    return [0, 0]; // the thread ended between listing and reading
  }
};
/** A thread's name (/proc/<pid>/task/<tid>/comm), "" once it ended. */
const commOf = (pid: number, tid: number) => {
  try {
    return readText(`/proc/${pid}/task/${tid}/comm`).trim();
  } catch {
    return "";
  }
};
/** JavaScriptCore's JIT compiler threads ("JITWorker"): warm-up work, not the request's, once steady. */
const isJit = (comm: string) => comm.startsWith("JITWorker");
/** CPU time of every live thread of `pid`, ns, of which its JIT threads'; and its main thread's (the event loop's) schedstat. */
function sampleProcess(pid: number): { cpuNs: number; jitNs: number; loop: [number, number] } {
  let cpuNs = 0;
  let jitNs = 0;
  for (const tid of require("node:fs").readdirSync(`/proc/${pid}/task`) as string[]) {
    const run = schedstat(pid, Number(tid))[0];
    cpuNs += run;
    if (isJit(commOf(pid, Number(tid)))) jitNs += run;
  }
  return { cpuNs, jitNs, loop: schedstat(pid, pid) };
}

/** CPU time of every thread of each of `pids`, ns (a process gone meanwhile counts 0). */
const cpuOf = (pids: number[]) =>
  pids.reduce((sum, pid) => {
    try {
      return sum + sampleProcess(pid).cpuNs;
    } catch {
      return sum;
    }
  }, 0);

/** The gateway's group-commit counters, from its /metrics (the bench enables it). */
async function commitCounters(url: string): Promise<CommitCounters> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const read = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
  return { commitMs: read("stablegate_db_commit_seconds_total") * 1000, groups: read("stablegate_db_group_commits_total"), jobs: read("stablegate_db_group_commit_writes_total"), syncs: read("stablegate_db_wal_syncs_total") || 0 };
}

/** What the warm-up of a section-1 load did: requests per target, and the JIT threads' share of the first target's CPU in its last chunk. */
const warmUps: Array<{ requests: number; lastJitShare: number }> = [];

/** Warms `t` (untimed, indices past n) as WARMUP says; returns the count every other target is to answer too. */
async function warmUp(n: number, t: Target, cold?: (name: string, firstBatchMaxMs: number) => void): Promise<number> {
  let done = 0;
  let share = NaN;
  const chunk = async (count: number) => {
    const lat: number[] = [];
    const p0 = t.pid ? sampleProcess(t.pid) : null;
    await load(count, CLIENTS, (i) => t.send(n + done + i), lat);
    const p1 = t.pid ? sampleProcess(t.pid) : null;
    if (done === 0) cold?.(t.name, Math.max(...lat.slice(0, CLIENTS)));
    done += count;
    share = p0 && p1 ? (p1.jitNs - p0.jitNs) / Math.max(1, p1.cpuNs - p0.cpuNs) : 0;
  };
  if (WARMUP !== null) {
    if (WARMUP > 0) await chunk(WARMUP);
  } else {
    await chunk(WARMUP_MIN);
    while (done < WARMUP_MAX && !(done >= WARMUP_CHUNK && share < WARMUP_JIT_SHARE)) await chunk(Math.min(WARMUP_CHUNK, WARMUP_MAX - done));
  }
  warmUps.push({ requests: done, lastJitShare: share });
  return done;
}

/**
 * The targets' loads in interleaved slices (order alternating), each target's figure
 * from all its slices: on a machine shared with other work, a change of load then hits
 * the gateway and its floors alike instead of whichever ran during it.
 */
/** After every target's warm-up, before the timed slices (the PostgreSQL section: statistics for the tables as they are now). */
type AfterWarmUp = () => Promise<void>;
/** Untimed requests each target answers after `afterWarmUp` (its re-planned statements' first runs). */
const REWARM = 512;

async function interleaved(n: number, targets: Target[], cold?: (name: string, firstBatchMaxMs: number) => void, afterWarmUp?: AfterWarmUp): Promise<Map<string, LoadResult & { usage: Usage }>> {
  // Every target (gateway and floors alike) first answers the same number of untimed requests
  // (indices past n, so ids stay unique; warmUp: until the gateway's JIT has settled): the
  // figures are steady state. The first concurrent batch after a
  // start waits on one-time work (JIT, statement preparation); its worst latency is reported
  // on its own line rather than hidden or mixed into the p99.
  const warm = await warmUp(n, targets[0]!, cold);
  for (const t of warm > 0 ? targets.slice(1) : []) {
    const lat: number[] = [];
    await load(warm, CLIENTS, (i) => t.send(n + i), lat);
    cold?.(t.name, Math.max(...lat.slice(0, CLIENTS)));
  }
  if (afterWarmUp) {
    await afterWarmUp();
    for (const t of targets) await load(REWARM, CLIENTS, (i) => t.send(n + warm + i));
  }
  const acc = new Map(targets.map((t) => [t.name, { lat: [] as number[], ms: 0, errors: 0, done: 0, usage: { wallMs: 0, cpuNs: 0, jitNs: 0, loopRunNs: 0, loopWaitNs: 0, alsoCpuNs: 0, commitMs: 0, groups: 0, jobs: 0, syncs: 0, rssPeakMb: 0 } as Usage }]));
  const per = Math.ceil(n / SLICES);
  for (let slice = 0; slice < SLICES; slice++) {
    for (const t of slice % 2 ? [...targets].reverse() : targets) {
      const a = acc.get(t.name)!;
      const count = Math.min(per, n - a.done);
      if (count <= 0) continue;
      const first = a.done;
      const c0 = t.commits ? await t.commits() : null;
      const p0 = t.pid ? sampleProcess(t.pid) : null;
      const also = t.alsoPids?.() ?? [];
      const a0 = cpuOf(also);
      const peak = t.pid ? rssPeak(t.pid) : null;
      const t0 = performance.now();
      const r = await load(count, CLIENTS, (i) => t.send(first + i), a.lat);
      const ms = performance.now() - t0;
      a.usage.rssPeakMb = Math.max(a.usage.rssPeakMb, peak?.stop() ?? 0);
      const p1 = t.pid ? sampleProcess(t.pid) : null;
      a.usage.alsoCpuNs += cpuOf(also) - a0;
      a.ms += ms;
      a.errors += r.errors;
      a.done += count;
      const u = a.usage;
      u.wallMs += ms;
      if (p0 && p1) {
        u.cpuNs += p1.cpuNs - p0.cpuNs;
        u.jitNs += p1.jitNs - p0.jitNs;
        u.loopRunNs += p1.loop[0] - p0.loop[0];
        u.loopWaitNs += p1.loop[1] - p0.loop[1];
      }
      if (c0) {
        const c1 = await t.commits!();
        u.commitMs += c1.commitMs - c0.commitMs;
        u.groups += c1.groups - c0.groups;
        u.jobs += c1.jobs - c0.jobs;
        u.syncs += c1.syncs - c0.syncs;
      }
    }
  }
  return new Map([...acc].map(([name, a]) => [name, { rps: a.done / (a.ms / 1000), p50: pct(a.lat, 50), p99: pct(a.lat, 99), errors: a.errors, usage: a.usage }]));
}

/** The highest RSS of `pid` seen while sampling (every `everyMs`): DESIGN 11 says "under that load", not after it. */
function rssPeak(pid: number, everyMs = 100): { stop(): number } {
  let max = rss(pid);
  const t = setInterval(() => (max = Math.max(max, rss(pid))), everyMs);
  return {
    stop() {
      clearInterval(t);
      return Math.max(max, rss(pid));
    },
  };
}

const line = (label: string, r: LoadResult) =>
  `  ${label.padEnd(34)} ${f(r.rps).padStart(8)} req/s  p50 ${f(r.p50).padStart(6)} ms  p99 ${f(r.p99).padStart(6)} ms  errors ${r.errors}`;

function merchant(s: TempSetup, name: string): { merchantUid: string; apiKey: string } {
  const r = runCli(["merchant", "create", "--name", name, "--json", "--config", s.configPath], s.env);
  if (r.code !== 0) throw new Error(`merchant create: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const createBody = (i: number, prefix = "bench", notifyUrl = "https://shop.example/cb") => ({
  chainCode: "TRON",
  tokenSymbol: "USDT",
  merchantOrderNo: `${prefix}-${i}`,
  amount: `${1 + (i % 1000)}.${String(i).padStart(6, "0").slice(-6)}`,
  notifyUrl,
});

/** Process CPU (all threads) per successful request, ns → µs. */
const cpuPerReq = (r: LoadResult & { usage: Usage }, n: number) => r.usage.cpuNs / 1000 / Math.max(1, n - r.errors);
function cpuLine(what: string, gw: LoadResult & { usage: Usage }, floor: LoadResult & { usage: Usage }, floorName: string): string {
  const a = cpuPerReq(gw, REQUESTS);
  const b = cpuPerReq(floor, REQUESTS);
  // A JIT thread that ends within a slice takes its CPU of that slice with it (both sums are over live threads): at least 0.
  const jit = (r: LoadResult & { usage: Usage }) => `${((Math.max(0, r.usage.jitNs) / Math.max(1, r.usage.cpuNs)) * 100).toFixed(1)} %`;
  return `  ${what} CPU per successful request (process, all threads): gateway ${a.toFixed(0)} µs, ${floorName} ${b.toFixed(0)} µs: ${(a / b).toFixed(2)}x (target <= 1.00x); JIT threads' share of it: gateway ${jit(gw)}, ${floorName} ${jit(floor)}`;
}
function loopLine(label: string, u: Usage): string {
  const pc = (ns: number) => `${((ns / 1e6 / u.wallMs) * 100).toFixed(0)} %`;
  const commit = u.groups
    ? `, in COMMIT ${((u.commitMs / u.wallMs) * 100).toFixed(0)} % (${u.groups} commits, ${(u.jobs / u.groups).toFixed(1)} writes each, ${(u.commitMs / u.groups).toFixed(2)} ms each${u.syncs ? `; ${u.syncs} WAL syncs off the loop` : ""})`
    : "";
  const rest = u.wallMs * 1e6 - u.loopRunNs - u.loopWaitNs;
  return `    ${label.padEnd(24)} on a core ${pc(u.loopRunNs)}, runnable but waiting for a core ${pc(u.loopWaitNs)}, neither (idle or blocked in I/O) ${pc(rest)}${commit}`;
}

// ---------------------------------------------------------------------------
// 1. Create and signed GET against their floors; RSS; cold start.
async function benchRequests() {
  // /metrics on: the bench reads the group commit's counters around the gateway's slices.
  const s = await tempSetup(`[log]\nlevel = "warn"\n[auth]\nrate_limit_per_minute = 0\n[payin]\nshared_pool_size = 50\n[ops]\nmetrics = true\n[chains.TRON]\nblock_time = "0s"`);
  try {
    const loadAvg = [readText("/proc/loadavg").split(" ").slice(0, 3).join(" ")];
    const { merchantUid, apiKey } = merchant(s, "bench");
    const t0 = performance.now();
    const gw = await startGatewayProcess(s);
    const cold = performance.now() - t0;
    const client = new StablegateClient({ baseUrl: s.url, merchantUid, apiKey });
    const orderNos: string[] = [];

    const floors: Array<Bun.Subprocess> = [];
    const startFloor = async (mode: "full" | "schema" | "get"): Promise<{ send: (i: number) => Promise<void>; pid: number }> => {
      const port = await freePort();
      floors.push(Bun.spawn([BUN, join(ROOT, "scripts/bench-baseline.ts"), String(port), join(s.dir, `floor-${mode}.db`), apiKey, merchantUid, mode], { stdout: "ignore", stderr: "inherit" }));
      for (let i = 0; i < 200; i++) {
        try {
          if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
        } catch {}
        await Bun.sleep(30);
      }
      const send = async (i: number) => {
        const method = mode === "get" ? "GET" : "POST";
        const path = mode === "get" ? `/openapi/payin/orders/G${i % 5000}` : "/openapi/payin/orders";
        const cb = mode === "get" ? "" : canonicalBody(createBody(i));
        const ts = String(Date.now());
        const nonce = crypto.randomUUID();
        const sig = signRequest(apiKey, { merchantUid, timestamp: ts, nonce, method, path, canonicalQuery: "", canonicalBody: cb });
        const r = await fetch(`http://127.0.0.1:${port}${path}`, {
          method,
          headers: { "content-type": "application/json", "x-timestamp": ts, "x-nonce": nonce, "x-signature": sig },
          ...(method === "POST" ? { body: cb } : {}),
        });
        if (!r.ok) throw new Error(String(r.status));
        await r.arrayBuffer();
      };
      return { send, pid: floors.at(-1)!.pid };
    };
    // No wait for the gateway's callback deliveries between slices: here they go to a name that
    // does not resolve (getaddrinfo sometimes takes its 5 s timeout), time spent waiting, not working.
    let created: Map<string, LoadResult & { usage: Usage }>;
    let read: Map<string, LoadResult & { usage: Usage }>;
    let floorRss = NaN; // what Bun + bun:sqlite alone hold after the same load
    const coldFirst = new Map<string, number>(); // slowest of the first concurrent batch after start
    // The gateway's RSS is sampled through all slices (its peak under load, DESIGN 11).
    const idleRss = rss(gw.proc.pid);
    const peak = rssPeak(gw.proc.pid);
    try {
      const full = await startFloor("full");
      const schema = await startFloor("schema");
      const getFloor = await startFloor("get");
      const gwPid = gw.proc.pid;
      const commits = () => commitCounters(s.url);
      created = await interleaved(REQUESTS, [
        {
          name: "gateway",
          pid: gwPid,
          commits,
          send: async (i) => {
            const o = await client.request<{ orderNo: string }>("POST", "/openapi/payin/orders", { body: createBody(i) });
            orderNos.push(o.orderNo);
          },
        },
        { name: "full", ...full },
        { name: "schema", ...schema },
      ], (name, ms) => coldFirst.set(name, ms));
      read = await interleaved(REQUESTS, [
        { name: "gateway", pid: gwPid, commits, send: (i) => client.request("GET", `/openapi/payin/orders/${orderNos[i % orderNos.length]}`).then(() => {}) },
        { name: "get", ...getFloor },
      ]);
      loadAvg.push(readText("/proc/loadavg").split(" ").slice(0, 3).join(" "));
      floorRss = rss(floors[0]!.pid);
    } finally {
      for (const p of floors) p.kill();
      await Promise.all(floors.map((p) => p.exited));
    }
    const gwRss = rss(gw.proc.pid);
    const peakRss = peak.stop();
    await gw.kill("SIGTERM");
    const [create, full, schema] = ["gateway", "full", "schema"].map((k) => created.get(k)!);
    const [get, getFloor] = ["gateway", "get"].map((k) => read.get(k)!);

    console.log(`1. signed requests, ${REQUESTS} each, ${CLIENTS} concurrent clients, 127.0.0.1, in ${SLICES} interleaved slices`);
    console.log(line("create: gateway", create));
    console.log(line("create: FULL floor (minimal tables)", full));
    console.log(line("create: own-schema floor", schema));
    console.log(`  create ratio: ${(create.rps / full.rps).toFixed(2)}x the FULL floor, ${(create.rps / schema.rps).toFixed(2)}x the own-schema floor (target >= 1.5x the FULL floor); p99 ${f(create.p99)} ms (target < 15 ms)`);
    console.log(cpuLine("create", create, full, "FULL floor"));
    const [warmCreate, warmGet] = warmUps;
    const warmText = (w?: { requests: number; lastJitShare: number }) =>
      w ? `${w.requests} untimed requests each target gets${Number.isNaN(w.lastJitShare) ? "" : `; the gateway's JIT threads ${(w.lastJitShare * 100).toFixed(1)} % of its CPU in the warm-up's last chunk`}` : "no warm-up";
    console.log(`  warm-up: creates ${warmText(warmCreate)}; GETs ${warmText(warmGet)}`);
    if (coldFirst.has("gateway")) console.log(
      `  first ${CLIENTS} concurrent creates after start (in the warm-up): slowest ${f(coldFirst.get("gateway")!)} ms gateway, ${f(coldFirst.get("full")!)} ms FULL floor`,
    );
    console.log(line("signed GET: gateway", get));
    console.log(line("signed GET: read+nonce floor", getFloor));
    console.log(`  signed GET ratio: ${(get.rps / getFloor.rps).toFixed(2)}x its floor (target >= 2.0)`);
    console.log(cpuLine("GET", get, getFloor, "floor"));
    console.log(`  event loop (the main thread, over each target's timed slices; wall = 100 %):`);
    console.log(loopLine("gateway, creates", create.usage));
    console.log(loopLine("FULL floor, creates", full.usage));
    console.log(loopLine("gateway, GETs", get.usage));
    console.log(loopLine("read+nonce floor, GETs", getFloor.usage));
    console.log(`  load average (1, 5, 15 min) as section 1 started / ended: ${loadAvg.join(" / ")} (2 cores; CPU per request is the figure a busy neighbour moves least)`);
    console.log(`  cold start to healthy /healthz: ${f(cold)} ms (target < 1000 ms, includes bun start-up)`);
    console.log(`  gateway RSS under the load: peak ${f(peakRss)} MB (sampled every 100 ms, warm-up included; target < 150 MB), in the timed slices ${f(Math.max(create.usage.rssPeakMb, get.usage.rssPeakMb))} MB, ${f(gwRss)} MB as the load ends, ${f(idleRss)} MB right after start; the bare FULL floor process: ${f(floorRss)} MB as its load ends`);
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------
// 2. Completed-callback latency: COMPLETIONS orders paid in one block; from the
// block that brings their last confirmation (POST /sandbox/blocks answers once
// the watcher has seen it) to the merchant's endpoint receiving `completed`.
async function benchCallbacks(withLoad: boolean) {
  const rx = startReceiver([{ status: 200 }]);
  const s = await tempSetup(`[log]\nlevel = "warn"\n[auth]\nrate_limit_per_minute = 0\n[payin]\nshared_pool_size = 200\n[chains.TRON]\nblock_time = "0s"\nconfirmations = 3`);
  try {
    const { merchantUid, apiKey } = merchant(s, "latency");
    const gw = await startGatewayProcess(s);
    const client = new StablegateClient({ baseUrl: s.url, merchantUid, apiKey });
    const sb = sandboxClient(s.url);
    const orders: Array<{ orderNo: string; address: string; amount: string }> = [];
    await load(COMPLETIONS, 16, async (i) => {
      const o = await client.request<{ orderNo: string; address: string; amount: string }>("POST", "/openapi/payin/orders", { body: createBody(i, "cb", `${rx.url}/cb`) });
      orders.push(o);
    });
    // Every payment in one block: written the way the sandbox chain records a transfer
    // (POST /sandbox/transfers mines one block per transfer), all at height h+1, in one commit.
    {
      const { Database } = await import("bun:sqlite");
      const chainDb = new Database(s.dbPath);
      chainDb.run("PRAGMA busy_timeout = 5000");
      chainDb.transaction(() => {
        const h = chainDb.query<{ height: number }, []>("SELECT height FROM sandbox_chains WHERE chain = 'TRON'").get()!.height;
        const now = Date.now();
        chainDb.run("INSERT INTO sandbox_blocks (chain, number, time) VALUES ('TRON', ?, ?)", [h + 1, now]);
        const ins = chainDb.prepare(
          "INSERT INTO sandbox_transfers (chain, token, tx_hash, log_index, block_number, from_address, to_address, amount, created_at) VALUES ('TRON', 'USDT', ?, 0, ?, ?, ?, ?, ?)",
        );
        for (const o of orders) {
          const units = BigInt(o.amount.replace(".", "")) * 10n ** BigInt(6 - (o.amount.split(".")[1]?.length ?? 0));
          ins.run(crypto.randomUUID().replaceAll("-", "").padEnd(64, "0"), h + 1, "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8", o.address, units.toString(), now);
        }
        chainDb.run("UPDATE sandbox_chains SET height = ? WHERE chain = 'TRON'", [h + 1]);
      }).immediate();
      chainDb.close();
    }
    await sb.mine("TRON", 1); // 2 confirmations
    // Let the earlier callbacks (created, detected, confirming) drain first.
    let seen = -1;
    while (rx.requests.length !== seen) {
      seen = rx.requests.length;
      await Bun.sleep(500);
    }
    const wanted = new Set(orders.map((o) => o.orderNo));
    let creating = withLoad;
    let created = 0;
    const loadStart = performance.now();
    const loader = withLoad
      ? Promise.all(
          // 1,000 creates/s: 20 clients, each on a schedule of one request per 20 ms (a client
          // behind it sends at once until it has caught up, so the rate is the schedule's, not
          // 20 ms plus each answer's latency).
          Array.from({ length: 20 }, async (_, c) => {
            for (let i = 0; creating; i++) {
              const due = loadStart + c + i * 20 - performance.now();
              if (due > 0) await Bun.sleep(due);
              await client.request("POST", "/openapi/payin/orders", { body: createBody(c * 1_000_000 + i, "load", `${rx.url}/load`) }).catch(() => {});
              created++;
            }
          }),
        )
      : Promise.resolve([]);
    if (withLoad) await Bun.sleep(500); // load running before the block
    const t0 = Date.now();
    await sb.mine("TRON", 1); // 3 confirmations: completed
    if (process.env.BENCH_DEBUG) console.log(`mine answered after ${Date.now() - t0} ms`);
    const isDone = (t: string) => t.includes('"status":"completed"');
    const arrivals = new Map<string, number>();
    const deadline = Date.now() + 60_000;
    while (arrivals.size < wanted.size && Date.now() < deadline) {
      for (const r of rx.requests) {
        if (r.at < t0 || !isDone(r.text)) continue;
        const no = /"orderNo":"([^"]+)"/.exec(r.text)?.[1];
        if (no && wanted.has(no) && !arrivals.has(no)) arrivals.set(no, r.at - t0);
      }
      await Bun.sleep(50);
    }
    creating = false;
    await loader;
    const rate = created / ((performance.now() - loadStart) / 1000);
    await gw.kill("SIGTERM");
    const lat = [...arrivals.values()];
    if (process.env.BENCH_DEBUG) console.log(`first completed callback after ${Math.min(...lat)} ms`);
    console.log(
      `  ${withLoad ? `with creates (${rate.toFixed(0)}/s achieved)` : "no other load"}`.padEnd(36) +
        ` ${lat.length}/${wanted.size} completed callbacks: p50 ${pct(lat, 50)} ms, p99 ${pct(lat, 99)} ms, max ${Math.max(...lat)} ms (target p99 < 1000 ms)`,
    );
  } finally {
    await rx.stop();
    rmSync(s.dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------
// 3. Fairness (DESIGN 7): merchant A's endpoints hang; merchant B's callbacks,
// from B's create answer to B's endpoint receiving the callback.
async function benchFairness() {
  const receivers: Receiver[] = [];
  const rx = (...a: Parameters<typeof startReceiver>) => {
    const r = startReceiver(...a);
    receivers.push(r);
    return r;
  };
    // The first lines continue tempSetup's [callbacks] table.
  const s = await tempSetup(`timeout = "10s"\nconcurrency = 16\n[log]\nlevel = "error"\n[auth]\nrate_limit_per_minute = 0\n[payin]\nshared_pool_size = 200\n[chains.TRON]\nblock_time = "0s"`);
  try {
    const a = merchant(s, "A");
    const b = merchant(s, "B");
    const gw = await startGatewayProcess(s);
    const ca = new StablegateClient({ baseUrl: s.url, merchantUid: a.merchantUid, apiKey: a.apiKey });
    const cb = new StablegateClient({ baseUrl: s.url, merchantUid: b.merchantUid, apiKey: b.apiKey });
    const measureB = async (url: string, recv: Receiver, prefix: string) => {
      const delays: number[] = [];
      for (let i = 0; i < 20; i++) {
        const o = await cb.request<{ orderNo: string }>("POST", "/openapi/payin/orders", { body: createBody(i, prefix, url) });
        const sent = Date.now();
        const got = await recv.waitFor((r) => r.some((x) => x.text.includes(o.orderNo)), 15_000).catch(() => null);
        const hit = got?.find((x) => x.text.includes(o.orderNo));
        delays.push(hit ? hit.at - sent : 15_000);
      }
      return delays;
    };

    // (a) A's endpoints hang on 8 origins, 20 callbacks each.
    const hanging = Array.from({ length: 8 }, () => rx([{ hang: true }]));
    await load(160, 16, async (i) => {
      await ca.request("POST", "/openapi/payin/orders", { body: createBody(i, "a-hang", `${hanging[i % 8].url}/cb`) });
    });
    await Bun.sleep(1000); // the pool fills with A's hanging deliveries
    const fast = rx([{ status: 200 }]);
    const d1 = await measureB(`${fast.url}/cb`, fast, "b-fast");

    // (b) Two merchants on one origin: A's path hangs, B's answers.
    const shared = rx((req) => (req.path.startsWith("/a") ? { hang: true } : { status: 200 }));
    await load(50, 16, async (i) => {
      await ca.request("POST", "/openapi/payin/orders", { body: createBody(i, "a-shared", `${shared.url}/a`) });
    });
    await Bun.sleep(1000);
    const d2 = await measureB(`${shared.url}/b`, shared, "b-shared");
    await gw.kill("SIGKILL"); // hanging deliveries would hold a graceful stop for its grace period
    console.log(`  A hangs on 8 origins (160 callbacks): B's delay p50 ${pct(d1, 50)} ms, max ${Math.max(...d1)} ms over ${d1.length} (target < 1000 ms)`);
    console.log(`  A and B on one origin, A's path hangs: B's delay p50 ${pct(d2, 50)} ms, max ${Math.max(...d2)} ms over ${d2.length} (target < 1000 ms)`);
  } finally {
    for (const r of receivers) await r.stop();
    rmSync(s.dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------
// 4. RPC calls per block/slot at 10 and 100,000 watched addresses.
async function benchTronCalls() {
  const { startTronFixture } = await import("../src/testing/tron-fixture");
  const { deriveTronKey } = await import("../src/chains/tron/address");
  const fx = await startTronFixture({ solidLag: 3 });
  try {
    const adapter = fx.adapter();
    await adapter.start();
    const watched = Array.from({ length: 10 }, (_, i) => deriveTronKey(new Uint8Array(32).fill(7), i).address);
    const start = BigInt(fx.node.chain.head.number) + 1n;
    for (let i = 0; i < 20; i++) {
      await fx.sendUsdt(watched[i % 10], BigInt(i + 1));
      fx.node.mine(5);
    }
    const end = BigInt(fx.node.chain.head.number);
    const blocks = Number(end - start + 1n);
    for (const [label, w] of [
      ["10 watched", watched],
      ["100k watched", [...watched, ...Array.from({ length: 99_990 }, (_, i) => `T-watched-${i}`)]],
    ] as const) {
      const set = watchSetOf(w);
      fx.node.resetCounts();
      const t0 = performance.now();
      const r = await adapter.scan(start, end, set);
      const ms = performance.now() - t0;
      console.log(`  TRON ${label.padEnd(13)} ${blocks} blocks: ${fx.node.totalCalls()} calls = ${(fx.node.totalCalls() / blocks).toFixed(2)} per block, ${r.transfers.length} transfers, ${f(ms)} ms`);
    }
  } finally {
    await fx.stop();
  }
}

async function benchSolCalls() {
  const { startSolFixture, someSolAddresses } = await import("../src/testing/sol-fixture");
  const fx = await startSolFixture({ finalizedLag: 2 });
  try {
    const adapter = fx.adapter();
    await adapter.start();
    const watched = someSolAddresses(10, "bench-sol");
    const crowd = [...watched, ...someSolAddresses(99_990, "bench-crowd")];
    const payer = fx.payer(1_000_000_000n);
    const first = (await adapter.head()).scanTo! + 1n;
    for (let i = 0; i < 20; i++) {
      await fx.pay(payer, [[watched[i % 10], BigInt(i + 1)]]);
      fx.node.advance(3);
    }
    fx.node.finalizeAll();
    const last = (await adapter.head()).scanTo!;
    const ranges: Array<[string, bigint, bigint]> = [
      ["tick of 8 slots", last - 7n, last],
      [`catch-up of ${last - first + 1n} slots`, first, last],
    ];
    const byBlocks = fx.adapter({ scanMode: "blocks" });
    await byBlocks.start();
    console.log("  (SOL scanMode auto: by blocks unless per-address polling needs fewer calls for the range)");
    for (const [rl, from, to] of ranges) {
      for (const [label, w, a] of [
        ["10 watched", watched, adapter],
        ["100k watched", crowd, adapter],
        ["10, by blocks", watched, byBlocks],
      ] as const) {
        if (a === byBlocks && rl.startsWith("tick")) continue;
        const slots = Number(to - from + 1n);
        const set = watchSetOf(w);
        fx.proxy.resetCounts();
        const t0 = performance.now();
        const r = await a.scan(from, to, set);
        const ms = performance.now() - t0;
        const calls = fx.proxy.totalCalls();
        const how = fx.proxy.calls.has("getBlock") || fx.proxy.calls.has("getBlocks") ? "blocks" : "per address";
        console.log(`  SOL ${label.padEnd(13)} ${rl.padEnd(22)} ${String(calls).padStart(4)} calls = ${(calls / slots).toFixed(2)} per slot (${how}), ${r.transfers.length} transfers, ${f(ms)} ms`);
      }
    }
  } finally {
    await fx.stop();
  }
}

/** TON (DESIGN 23): toncenter v3 calls per masterchain block on @ton/sandbox with the real USDT jetton. */
async function benchTonCalls() {
  const { TonNode } = await import("../src/testing/ton-node");
  const { createTonAdapter } = await import("../src/chains/ton/adapter");
  const { tonChain } = await import("../src/chains/ton");
  const { normalizeTonAddress, randomTonAddress } = await import("../src/chains/ton/address");
  const { Address } = await import("@ton/core");
  const node = await TonNode.start();
  try {
    const watched = Array.from({ length: 10 }, () => randomTonAddress());
    const crowd = [...watched, ...Array.from({ length: 99_990 }, (_, i) => normalizeTonAddress("0:" + i.toString(16).padStart(64, "0")))];
    const payer = Address.parse(randomTonAddress());
    await node.mint(payer, 10n ** 12n);
    const first = BigInt(node.height + 1);
    for (let i = 0; i < 20; i++) {
      await node.payJetton(payer, Address.parse(watched[i % 10]!), BigInt(i + 1));
      node.mine(2);
    }
    const last = BigInt(node.height);
    for (const [label, w] of [["10 watched", watched], ["100k watched", crowd]] as const) {
      const adapter = createTonAdapter({ rpcUrls: [node.url], tokens: [...tonChain.defaults.tokens], confirmations: 1 });
      const set = watchSetOf(w);
      node.calls.clear();
      const t0 = performance.now();
      const r = await adapter.scan(first, last, set);
      const ms = performance.now() - t0;
      const blocks = Number(last - first + 1n);
      // Counted apart: get_wallet_address, once per owner that received something (10 here), cached after.
      const owners = node.calls.get("runGetMethod") ?? 0;
      const calls = node.totalCalls() - owners;
      console.log(`  TON ${label.padEnd(13)} ${blocks} masterchain blocks ${String(calls).padStart(4)} calls = ${(calls / blocks).toFixed(2)} per block (+${owners} get_wallet_address, once per paid owner), ${r.transfers.length} transfers, ${f(ms)} ms`);
      await adapter.stop();
    }
  } finally {
    node.stop();
  }
}

async function benchRpc() {
  console.log("4. RPC calls per scanned block (TRON, BSC, BASE) / slot (SOL) / masterchain block (TON), 10 vs 100,000 watched addresses");
  await benchTronCalls();
  await benchSolCalls();
  await benchTonCalls();
  // BSC, and BASE for the EVM networks of DESIGN 17 (one implementation: the figures match BSC's).
  for (const chain of ["BSC", "BASE"]) {
    const scan = Bun.spawnSync([BUN, join(ROOT, "scripts/bench-bsc-scan.ts"), chain], { cwd: ROOT, stdout: "inherit", stderr: "inherit" });
    if (scan.exitCode) throw new Error(`${chain} scan bench failed`);
  }
  await (await import("./bench-sweep")).benchSweep();
}

// ---------------------------------------------------------------------------
// 5. Watcher CPU per block by pending deposits: a tick for a block that moves no
// transfer across a threshold (3rd..19th of 20 confirmations), in-process.
async function benchWatcherTick() {
  const { startTestGateway } = await import("../src/testing/harness");
  const { createPayinOrder } = await import("../src/payin/service");
  const { currentKey } = await import("../src/merchants/service");
  const { ChainWatcher } = await import("../src/watcher/watcher");
  const { payinTransferPort } = await import("../src/payin/deposits");
  console.log("5. watcher tick per block, TRON sandbox, 20 confirmations, by pending deposits (median of 5 blocks)");
  for (const n of [10, 1000]) {
    const gw = await startTestGateway({ jobs: false, config: { log: { level: "error" }, payin: { shared_pool_size: 200 }, chains: { TRON: { confirmations: 20 } } } });
    try {
      const ctx = gw.ctx;
      const key = (await currentKey(ctx.db, gw.merchant.id))!.id;
      const c = ctx.db.$client;
      const orders = await mapSeq(Array.from({ length: n }), async (_, i) =>
        await createPayinOrder(ctx, gw.merchant.id, key, { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `w${i}`, amount: `${i + 1}.5`, notifyUrl: "http://127.0.0.1:9/cb" }),
      );
      const chain = ctx.chains.get("TRON") as unknown as { mine(n: number): number };
      const w = new ChainWatcher(ctx, ctx.chains.get("TRON")!, payinTransferPort(ctx));
      await w.tick();
      const h = c.query<{ height: number }, []>("SELECT height FROM sandbox_chains WHERE chain = 'TRON'").get()!.height;
      c.transaction(() => {
        c.run("INSERT INTO sandbox_blocks (chain, number, time) VALUES ('TRON', ?, ?)", [h + 1, Date.now()]);
        for (const o of orders) {
          c.run("INSERT INTO sandbox_transfers (chain, token, tx_hash, log_index, block_number, from_address, to_address, amount, created_at) VALUES ('TRON', 'USDT', ?, 0, ?, ?, ?, ?, ?)", [
            crypto.randomUUID(), h + 1, "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8", o.address, o.amount, Date.now(),
          ]);
        }
        c.run("UPDATE sandbox_chains SET height = ? WHERE chain = 'TRON'", [h + 1]);
      }).immediate();
      await w.tick(); // detected
      chain.mine(1);
      await w.tick(); // 2 confirmations: confirming (a threshold)
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        chain.mine(1);
        const t0 = performance.now();
        await w.tick();
        times.push(performance.now() - t0);
      }
      const pending = c.query<{ n: number }, []>("SELECT count(*) AS n FROM transfers WHERE status = 'pending'").get()!.n;
      console.log(`  ${String(pending).padStart(5)} pending deposits: ${f(pct(times, 50))} ms per block`);
    } finally {
      await gw.stop();
    }
  }
}

// ---------------------------------------------------------------------------
// pg. Issue 38: signed create and GET at CLIENTS clients against (a) one SQLite gateway,
// (b) one gateway on PostgreSQL, (c) two gateways on that same PostgreSQL database, the
// clients split between them (same merchant, same keys); in interleaved slices, one run.
// The cluster is a throwaway one of this process (src/testing/postgres.ts) with PostgreSQL's
// durable defaults (fsync, synchronous_commit on), as SQLite runs at FULL. In the default set;
// `make bench ARGS=pg` runs it alone.
/** Each PostgreSQL gateway's pool (BENCH_PG_POOL; the default is [database] pool_size's). */
const PG_POOL = Number(process.env.BENCH_PG_POOL ?? 10);
/** Untimed creates (and as many GETs) each PostgreSQL gateway answers before the timed slices (BENCH_PG_WARMUP). */
const PG_WARMUP = Number(process.env.BENCH_PG_WARMUP ?? 1000);
/** How (c) spreads requests over its two gateways: "least" connections (docs/operations.md's Caddy) or "alternate" (BENCH_PG_ROUTE). */
const PG_ROUTE = process.env.BENCH_PG_ROUTE === "alternate" ? "alternate" : "least";

/** Autovacuum's runs on the bench database's tables so far, by table ("analysed a, vacuumed v"). */
async function autovacuumRuns(url: string): Promise<Map<string, string>> {
  const { SQL } = await import("bun");
  const q = new SQL({ url, max: 1 });
  try {
    const rows = (await q.unsafe(`SELECT relname, autoanalyze_count::int AS a, autovacuum_count::int AS v FROM pg_stat_user_tables ORDER BY relname`)) as { relname: string; a: number; v: number }[];
    return new Map(rows.map((r) => [r.relname, `analysed ${r.a}, vacuumed ${r.v}`]));
  } finally {
    await q.close();
  }
}

/** The tables autovacuum worked on between two `autovacuumRuns` (each ANALYZE re-plans every cached statement on every connection). */
function autovacuumDuring(before: Map<string, string>, after: Map<string, string>): string {
  const changed = [...after].filter(([t, v]) => before.get(t) !== v).map(([t, v]) => `${t} (${before.get(t) ?? "new"} -> ${v})`);
  return changed.length ? changed.join("; ") : "none";
}

async function benchPg() {
  const { cluster, pgPids, createTestDatabase } = await benchCluster();
  const toml = PG_BENCH_TOML;
  const db = await createTestDatabase({ empty: true });
  const lite = await tempSetup(toml);
  const pg1 = await tempSetup(toml, { init: false });
  const pg2 = await tempSetup(toml, { init: false });
  // [database] pool_size, in the section tempSetup wrote.
  for (const s of [pg1, pg2]) writeFileSync(s.configPath, readText(s.configPath).replace("[database]\n", `[database]\npool_size = ${PG_POOL}\n`));
  for (const s of [pg1, pg2]) s.env.STABLEGATE_DATABASE_URL = db.url; // same master key (tempSetup's)
  const gws: GatewayProcess[] = [];
  try {
    const loadAvg = [readText("/proc/loadavg").split(" ").slice(0, 3).join(" ")];
    // What the server runs with, printed with the figures (the durable comparison: fsync and synchronous_commit on).
    const { SQL } = await import("bun");
    const probe = new SQL({ url: cluster.url, max: 1 });
    const settings = ((await probe.unsafe(
      `SELECT name, setting, unit FROM pg_settings WHERE name IN ('server_version', 'fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method', 'shared_buffers', 'max_connections', 'commit_delay', 'jit') ORDER BY name`,
    )) as { name: string; setting: string; unit: string | null }[])
      .map((r) => `${r.name}=${r.unit === "8kB" ? `${(Number(r.setting) * 8) / 1024}MB` : r.setting}`)
      .join(", ");
    await probe.close();
    const init = runCli(["init", "--config", pg1.configPath], pg1.env);
    if (init.code !== 0) throw new Error(`init on PostgreSQL: ${init.stderr}`);
    const m = { lite: merchant(lite, "bench"), pg: merchant(pg1, "bench") };
    for (const s of [lite, pg1, pg2]) gws.push(await startGatewayProcess(s));
    const [gLite, gPg1, gPg2] = gws as [GatewayProcess, GatewayProcess, GatewayProcess];
    const cLite = new StablegateClient({ baseUrl: lite.url, ...m.lite });
    const cPg = [pg1, pg2].map((s) => new StablegateClient({ baseUrl: s.url, ...m.pg }));
    const orders = { a: [] as string[], b: [] as string[], c: [] as string[] };
    const create = (c: () => StablegateClient, into: string[], prefix: string) => async (i: number) => {
      const o = await c().request<{ orderNo: string }>("POST", "/openapi/payin/orders", { body: createBody(i, prefix) });
      into.push(o.orderNo);
    };
    const get = (c: (i: number) => StablegateClient, from: string[]) => (i: number) =>
      c(i).request("GET", `/openapi/payin/orders/${from[i % from.length]}`).then(() => {});
    // (c)'s load balancer: least connections (each request to the gateway with fewer requests in
    // flight, ties alternating), as docs/operations.md configures Caddy (`lb_policy least_conn`);
    // BENCH_PG_ROUTE=alternate sends them in turn whatever each has in flight (round robin).
    const inFlight = [0, 0];
    const pick = (i: number) => (PG_ROUTE === "alternate" || inFlight[0] === inFlight[1] ? i % 2 : inFlight[0]! < inFlight[1]! ? 0 : 1);
    const balanced = (send: (c: StablegateClient, i: number) => Promise<void>) => async (i: number) => {
      const k = pick(i);
      inFlight[k]!++;
      try {
        await send(cPg[k]!, i);
      } finally {
        inFlight[k]!--;
      }
    };
    // The first failures of each target, printed under the figures (an error is counted by load()).
    const failures: string[] = [];
    const noted = (send: (i: number) => Promise<void>) => async (i: number) =>
      await send(i).catch((e: unknown) => {
        if (failures.length < 5) failures.push(e instanceof Error ? `${e.message}${"requestId" in e ? ` (${String(e.requestId)})` : ""}` : String(e));
        throw e;
      });
    // Steady state: a database in service has planner statistics (autovacuum's ANALYZE); a fresh
    // one has none until autovacuum comes round (a minute or more), and the claim's plan without
    // them reads every callback row per candidate (docs/performance.md "PostgreSQL"). So the tables
    // hold some rows and are analysed before the timed slices, whatever autovacuum's timing.
    // Each PostgreSQL gateway warms on its own (PG_WARMUP creates and as many GETs), so neither
    // enters the timed slices with its code still being compiled (JSC's JIT threads count in its CPU).
    for (const [k, c] of cPg.entries()) {
      const warmed: string[] = [];
      await load(PG_WARMUP, CLIENTS, (i) => create(() => c, warmed, `stats${k}`)(10 * REQUESTS + k * PG_WARMUP + i)); // amounts no timed order uses
      await load(PG_WARMUP, CLIENTS, get(() => c, warmed));
    }
    const analyse = new SQL({ url: db.url, max: 1 });
    await analyse.unsafe("ANALYZE");
    // interleaved()'s warm-up (as many creates as the SQLite gateway needed for its JIT, on each
    // target) makes the tables ten times larger than that ANALYZE saw: autovacuum would come round
    // for them at its next wake, during the timed slices or not, by luck. A database in service has
    // statistics of about its size, so the tables are vacuumed and analysed once more after the
    // warm-up (then REWARM untimed requests each for the re-planned statements), and autovacuum's
    // runs during the timed slices are printed.
    let vacuumBefore = new Map<string, string>();
    const steadyStats = async () => {
      await analyse.unsafe("VACUUM ANALYZE");
      vacuumBefore = await autovacuumRuns(db.url);
    };
    const gwB = { pid: gPg1.proc.pid, alsoPids: pgPids };
    const gwC = { pid: gPg1.proc.pid, alsoPids: () => [gPg2.proc.pid, ...pgPids()] };
    const created = await interleaved(REQUESTS, [
      { name: "a", pid: gLite.proc.pid, send: create(() => cLite, orders.a, "a") },
      { name: "b", ...gwB, send: noted(create(() => cPg[0]!, orders.b, "b")) },
      { name: "c", ...gwC, send: noted(balanced((c, i) => create(() => c, orders.c, "c")(i))) },
    ], undefined, steadyStats);
    const vacuumed = autovacuumDuring(vacuumBefore, await autovacuumRuns(db.url));
    const read = await interleaved(REQUESTS, [
      { name: "a", pid: gLite.proc.pid, send: get(() => cLite, orders.a) },
      { name: "b", ...gwB, send: noted(get(() => cPg[0]!, orders.b)) },
      { name: "c", ...gwC, send: noted(balanced((c, i) => get(() => c, orders.c)(i))) },
    ]);
    await analyse.close();
    loadAvg.push(readText("/proc/loadavg").split(" ").slice(0, 3).join(" "));
    const label = { a: "(a) SQLite, 1 gateway", b: "(b) PostgreSQL, 1 gateway", c: "(c) PostgreSQL, 2 gateways" } as const;
    console.log(`pg. signed requests on PostgreSQL (issue 38), ${REQUESTS} each, ${CLIENTS} concurrent clients (for (c) over two gateways, ${PG_ROUTE === "least" ? "each request to the one with fewer in flight (least_conn)" : "in turn (round robin)"}), 127.0.0.1, ${SLICES} interleaved slices; PostgreSQL ${cluster.url.replace(/^.*:(\d+)\/.*$/, "port $1")} with fsync and synchronous_commit on`);
    console.log(`  PostgreSQL server: ${settings}; each gateway's pool ${PG_POOL} connections ([database] pool_size); the server, the gateways and this load generator share the machine's ${navigator.hardwareConcurrency} cores`);
    for (const [what, res] of [["create", created], ["signed GET", read]] as const) {
      for (const k of ["a", "b", "c"] as const) {
        const r = res.get(k)!;
        const gwCpu = cpuPerReq(r, REQUESTS);
        const dbCpu = r.usage.alsoCpuNs / 1000 / Math.max(1, REQUESTS - r.errors);
        const cpu = k === "a" ? `CPU/req ${gwCpu.toFixed(0)} µs (gateway, SQLite in-process)` : `CPU/req ${(gwCpu + dbCpu).toFixed(0)} µs (gateway${k === "c" ? "s" : ""} + PostgreSQL server; first gateway alone ${gwCpu.toFixed(0)} µs)`;
        console.log(`${line(`${what === "create" ? "create" : "GET"}: ${label[k]}`, r)}  ${cpu}`);
      }
      const [a, b, c] = (["a", "b", "c"] as const).map((k) => res.get(k)!);
      const cpuTotal = (r: typeof a) => (r.usage.cpuNs + r.usage.alsoCpuNs) / Math.max(1, REQUESTS - r.errors);
      console.log(`  ${what} ratios: (b)/(a) ${(b.rps / a.rps).toFixed(2)}x req/s, ${(cpuTotal(b) / cpuTotal(a)).toFixed(2)}x CPU/req; (c)/(b) ${(c.rps / b.rps).toFixed(2)}x req/s, ${(cpuTotal(c) / cpuTotal(b)).toFixed(2)}x CPU/req`);
    }
    if (failures.length) {
      console.log(`  first failures on PostgreSQL: ${failures.join("; ")}`);
      for (const g of [gPg1, gPg2]) for (const l of `${g.stdout()}\n${g.stderr()}`.split("\n").filter((x) => /"level":"(error|fatal)"/.test(x)).slice(0, 3)) console.log(`    gateway ${g.proc.pid}: ${l.slice(0, 600)}`);
    }
    console.log(`  load average (1, 5, 15 min) as the section started / ended: ${loadAvg.join(" / ")} (2 cores: every process here, the clients included, shares them)`);
    console.log(`  callbacks: delivered by every gateway on both engines (leased claims on PostgreSQL); the deliveries go to a name that does not resolve`);
    console.log(`  autovacuum during the timed creates (each ANALYZE re-plans every cached statement on every connection): ${vacuumed}`);
  } finally {
    await Promise.all(gws.map((g) => g.kill("SIGTERM")));
    await db.drop().catch(() => undefined);
    for (const s of [lite, pg1, pg2]) rmSync(s.dir, { recursive: true, force: true });
  }
}

const started = performance.now();
if (ONLY.has("create")) await benchRequests();
if (ONLY.has("callbacks")) {
  console.log(`2. completed callbacks for ${COMPLETIONS} orders paid in one block (TRON sandbox, 3 confirmations)`);
  await benchCallbacks(false);
  await benchCallbacks(true);
}
if (ONLY.has("fairness")) {
  console.log("3. fairness across merchants (callback timeout 10 s, concurrency 16)");
  await benchFairness();
}
if (ONLY.has("rpc")) await benchRpc();
if (ONLY.has("watcher")) await benchWatcherTick();
if (ONLY.has("growth")) await (await import("./bench-growth")).benchGrowth();
if (ONLY.has("energy")) await (await import("./bench-energy")).benchEnergy();
if (ONLY.has("pg")) await benchPg();
console.log(`(bench took ${f((performance.now() - started) / 1000)} s)`);

