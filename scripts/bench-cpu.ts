// Gateway CPU time per request (utime + stime of the gateway process, from /proc),
// for A/B comparisons on a shared, noisy machine where req/s swings with other load.
// Usage: bun scripts/bench-cpu.ts [rounds]; BENCH_REQUESTS (default 3000), BENCH_CLIENTS (32);
// BENCH_PROF=dir runs the gateway under `bun --cpu-prof` (profile written at exit).
// BENCH_WARMUP (300): untimed creates before the timed ones (the floor's too); JavaScriptCore's JIT
// keeps compiling the gateway's hot code for 10,000-20,000 creates (bench.ts warmUp), so a figure
// of steady state wants ~15,000 here.
// BENCH_FLOOR=1 also measures the FULL floor (scripts/bench-baseline.ts) the same way, so
// the two CPU costs per create are compared in one run.
// BENCH_PG=1 runs the gateway on PostgreSQL (a throwaway durable cluster, src/testing/postgres.ts;
// `[database] pool_size` from BENCH_PG_POOL, default 10) and adds the server's CPU per request
// (the postmaster and its children: the pool's backends, WAL writer, …).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { StablegateClient } from "../src/sdk/client";
import { BUN, ROOT, runCli, startGatewayProcess, tempSetup } from "../src/testing/process";
import { freePort } from "../src/testing/wait";
import { canonicalBody, signRequest } from "../src/auth/signing";

const N = Number(process.env.BENCH_REQUESTS ?? 3000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
const ROUNDS = Number(process.argv[2] ?? 1);
const PROF = process.env.BENCH_PROF;
const FLOOR = !!process.env.BENCH_FLOOR;
const TICK_MS = 10; // USER_HZ 100

function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) * TICK_MS; // utime, stime (fields 14, 15)
}
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

async function run(n: number, send: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (;;) {
        const i = next++;
        if (i >= n) return;
        await send(i);
      }
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

/** The gateway's group-commit counters (/metrics). */
async function commitCounters(url: string): Promise<{ groups: number; jobs: number; syncs: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const read = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? 0);
  return { groups: read("stablegate_db_group_commits_total"), jobs: read("stablegate_db_group_commit_writes_total"), syncs: read("stablegate_db_wal_syncs_total") };
}

const body = (r: number, i: number) => ({
  chainCode: "TRON",
  tokenSymbol: "USDT",
  merchantOrderNo: `cpu-${r}-${i}`,
  amount: `${1 + (i % 1000)}.${String(i).padStart(6, "0").slice(-6)}`,
  notifyUrl: "https://shop.example/cb",
});

const PG = !!process.env.BENCH_PG;
const PG_POOL = Number(process.env.BENCH_PG_POOL ?? 10);
const pgServer = PG ? await startPgServer() : null;

/** A durable throwaway cluster; `cpuMs()` of its processes (postmaster and children). */
async function startPgServer() {
  const { startCluster, stopWhenGone, PG_URL_ENV } = await import("../src/testing/postgres");
  const cluster = await startCluster({ durable: true });
  stopWhenGone(process.pid, cluster.dir);
  process.env[PG_URL_ENV] = cluster.url;
  const postmaster = Number(readFileSync(join(cluster.dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
  const pids = () => [postmaster, ...readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number)];
  return { cpuMs: () => pids().reduce((t, pid) => t + (() => { try { return cpuMs(pid); } catch { return 0; } })(), 0) };
}

/** A config on a fresh PostgreSQL database (initialised), or the usual SQLite one. */
async function setup(toml: string) {
  if (!PG) return await tempSetup(toml);
  const { createTestDatabase } = await import("../src/testing/postgres");
  const db = await createTestDatabase({ empty: true });
  const s = await tempSetup(toml, { init: false });
  writeFileSync(s.configPath, readFileSync(s.configPath, "utf8").replace("[database]\n", `[database]\npool_size = ${PG_POOL}\n`));
  s.env.STABLEGATE_DATABASE_URL = db.url;
  const init = runCli(["init", "--config", s.configPath], s.env);
  if (init.code !== 0) throw new Error(`init on PostgreSQL: ${init.stderr}`);
  return s;
}

for (let r = 0; r < ROUNDS; r++) {
  // BENCH_TOML: more of the gateway's config, first (tempSetup's [callbacks] table is open: `concurrency = 1` is the callback worker's share).
  const s = await setup(`${(process.env.BENCH_TOML ?? "").replace(/\\n/g, "\n")}\n[log]\nlevel = "warn"\n[auth]\nrate_limit_per_minute = 0\n[payin]\nshared_pool_size = 50\n[ops]\nmetrics = true\n[chains.TRON]\nblock_time = "0s"`);
  try {
    const made = JSON.parse(runCli(["merchant", "create", "--name", "cpu", "--json", "--config", s.configPath], s.env).stdout);
    const cmd = PROF ? [BUN, "--cpu-prof", `--cpu-prof-dir=${PROF}`, join(ROOT, "src/main.ts")] : undefined;
    const gw = await startGatewayProcess(s, cmd ? { cmd } : {});
    const pid = gw.proc.pid;
    const client = new StablegateClient({ baseUrl: s.url, merchantUid: made.merchantUid, apiKey: made.apiKey });
    const orders: string[] = [];
    await run(WARMUP, async (i) => void orders.push((await client.request<{ orderNo: string }>("POST", "/openapi/payin/orders", { body: body(r, 1e6 + i) })).orderNo)); // warm-up
    const serverCpu = () => pgServer?.cpuMs() ?? 0;
    let c0 = cpuMs(pid);
    let s0 = serverCpu();
    const m0 = await commitCounters(s.url);
    const createRps = await run(N, async (i) => void orders.push((await client.request<{ orderNo: string }>("POST", "/openapi/payin/orders", { body: body(r, i) })).orderNo));
    const createCpu = ((cpuMs(pid) - c0) * 1000) / N;
    const createServer = ((serverCpu() - s0) * 1000) / N;
    const m1 = await commitCounters(s.url);
    const groupsText = PG ? "" : `, ${((m1.jobs - m0.jobs) / (m1.groups - m0.groups)).toFixed(1)} writes per commit, ${(m1.syncs - m0.syncs)} WAL syncs off the loop`;
    c0 = cpuMs(pid);
    s0 = serverCpu();
    const getRps = await run(N, async (i) => void (await client.request("GET", `/openapi/payin/orders/${orders[i % orders.length]}`)));
    const getCpu = ((cpuMs(pid) - c0) * 1000) / N;
    const getServer = ((serverCpu() - s0) * 1000) / N;
    const rss = rssMb(pid);
    await gw.kill("SIGTERM");
    let floorText = "";
    if (FLOOR) {
      const port = await freePort();
      const base = Bun.spawn([BUN, join(ROOT, "scripts/bench-baseline.ts"), String(port), join(s.dir, "floor-full.db"), made.apiKey, made.merchantUid, "full"], { stdout: "ignore", stderr: "inherit" });
      try {
        for (let i = 0; i < 200; i++) {
          if (await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false)) break;
          await Bun.sleep(30);
        }
        const send = async (i: number) => {
          const cb = canonicalBody(body(r, i));
          const ts = String(Date.now());
          const nonce = crypto.randomUUID();
          const sig = signRequest(made.apiKey, { merchantUid: made.merchantUid, timestamp: ts, nonce, method: "POST", path: "/openapi/payin/orders", canonicalQuery: "", canonicalBody: cb });
          const res = await fetch(`http://127.0.0.1:${port}/openapi/payin/orders`, { method: "POST", headers: { "content-type": "application/json", "x-timestamp": ts, "x-nonce": nonce, "x-signature": sig }, body: cb });
          if (!res.ok) throw new Error(String(res.status));
          await res.arrayBuffer();
        };
        await run(WARMUP, (i) => send(1e6 + i));
        const f0 = cpuMs(base.pid);
        const floorRps = await run(N, send);
        floorText = `  floor ${(((cpuMs(base.pid) - f0) * 1000) / N).toFixed(0)} us cpu/req (${floorRps.toFixed(0)} req/s)`;
      } finally {
        base.kill();
        await base.exited;
      }
    }
    const server = (us: number) => (PG ? ` + PostgreSQL server ${us.toFixed(0)} us` : "");
    console.log(`create ${createCpu.toFixed(0)} us cpu/req${server(createServer)} (${createRps.toFixed(0)} req/s${groupsText})  get ${getCpu.toFixed(0)} us cpu/req${server(getServer)} (${getRps.toFixed(0)} req/s)  rss ${rss.toFixed(1)} MB${floorText}`);
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
}
