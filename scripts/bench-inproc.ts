// CPU time of a signed create-pay-in inside the gateway process, without the
// network and the load generator (both share the 2 cores in `make bench`):
// N pre-signed requests go straight to the HTTP app's handler, 32 at a time,
// through the real group commit (synchronous FULL). Prints µs per request
// (process CPU and wall), requests per group and the statements SQLite ran per
// create. Usage: bun scripts/bench-inproc.ts [rounds]; BENCH_REQUESTS (4000);
// BENCH_STATEMENTS=1 counts and times each SQL statement per create (slower: timing
// every call); run it under `bun --cpu-prof` for a profile of the create path alone.
// BENCH_BACKGROUND=1: the chains as `make bench` has them (BSC and SOL sandbox chains at their
// default block pace, TRON on demand) instead of all on demand; BENCH_IDLE=s first measures the
// idle gateway's CPU for s seconds (what the background costs with no request). BENCH_WARMUP (500):
// untimed creates before the rounds (~15,000 for the JIT's steady state).
import { readFileSync, rmSync } from "node:fs";
import { Database, Statement } from "bun:sqlite";
import { startTestGateway } from "../src/testing/harness";
import { buildHttpApp } from "../src/app/server";
import { buildSignedRequest } from "../src/testing/signed-request";
import { groupCommit } from "../src/db/group-commit";
import { ownCommits } from "../src/db/client";
import { walSyncs } from "../src/db/wal-sync";
import { acquireWrite } from "../src/db/write-lock";

const N = Number(process.env.BENCH_REQUESTS ?? 4000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
const ROUNDS = Number(process.argv[2] ?? 3);
const STATEMENTS = !!process.env.BENCH_STATEMENTS;
/** Untimed creates first (BENCH_WARMUP, 500): the JIT settles after 10,000-20,000 (bench.ts warmUp). */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 500);

// Per SQL text: calls and time (only while counting).
const stats = new Map<string, { calls: number; us: number }>();
let counting = false;
if (STATEMENTS) {
  const note = (sql: string, t: number) => {
    const k = sql.replace(/\s+/g, " ").trim().slice(0, 110);
    const e = stats.get(k) ?? { calls: 0, us: 0 };
    e.calls++;
    e.us += (performance.now() - t) * 1000;
    stats.set(k, e);
  };
  const timed = (sql: (args: unknown[]) => string, fn: (...a: unknown[]) => unknown) =>
    function (this: unknown, ...args: unknown[]) {
      if (!counting) return fn.apply(this, args);
      const t = performance.now();
      try {
        return fn.apply(this, args);
      } finally {
        note(sql(args), t);
      }
    };
  // bun:sqlite keeps a statement's run/get/all/values as own properties and swaps them for
  // specialised versions on use: an accessor keeps every version timed.
  const instrument = (st: Statement, sql: string) => {
    for (const m of ["run", "get", "all", "values"] as const) {
      let impl = (st as unknown as Record<string, (...a: unknown[]) => unknown>)[m]!;
      let wrapped = timed(() => sql, impl);
      Object.defineProperty(st, m, {
        configurable: true,
        get: () => wrapped,
        set: (f) => {
          impl = f;
          wrapped = timed(() => sql, impl);
        },
      });
    }
    return st;
  };
  const proto = Database.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const m of ["prepare", "query"]) {
    const orig = proto[m]!;
    proto[m] = function (this: unknown, ...args: unknown[]) {
      return instrument(orig.apply(this, args) as Statement, String(args[0]));
    };
  }
  const run = proto.run!;
  proto.run = timed((args) => String(args[0]), run);
}

// BENCH_JOBS=1: with the background jobs (the callback worker delivers each create's callback; the
// test harness fails names other than localhost at once, as an unreachable shop would).
const gw = await startTestGateway({
  jobs: !!process.env.BENCH_JOBS,
  // The level the config below names (as `make bench`'s gateway has it): the harness keeps every line otherwise.
  logLevel: "warn",
  // The default retry delays (`make bench` uses them): one delivery attempt per callback during a round.
  config: {
    log: { level: "warn" },
    auth: { rate_limit_per_minute: 0 },
    payin: { shared_pool_size: 50 },
    callbacks: { retry_delays: ["1m", "5m"] },
    ...(process.env.BENCH_BACKGROUND ? { chains: { BSC: { block_time: "450ms" }, SOL: { block_time: "400ms" } } } : {}),
  },
});
const IDLE_S = Number(process.env.BENCH_IDLE ?? 0);
if (IDLE_S > 0) {
  await Bun.sleep(1000); // start-up settles
  const c0 = process.cpuUsage();
  const k0 = ownCommits(gw.ctx.db);
  await Bun.sleep(IDLE_S * 1000);
  const c = process.cpuUsage(c0);
  console.log(`idle: ${((c.user + c.system) / 1000 / IDLE_S).toFixed(1)} ms cpu/s (system ${(c.system / 1000 / IDLE_S).toFixed(1)}), ${((ownCommits(gw.ctx.db) - k0) / IDLE_S).toFixed(1)} commits/s`);
}
const app = buildHttpApp(gw.ctx, gw.gateway.runtime);
const base = "http://127.0.0.1";
const make = (tag: string, i: number) => {
  const { url, init } = buildSignedRequest({
    baseUrl: base,
    uid: gw.merchant.uid,
    apiKey: gw.merchant.apiKey,
    path: "/openapi/payin/orders",
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `${tag}-${i}`, amount: `${1 + (i % 1000)}.${String(i).padStart(6, "0").slice(-6)}`, notifyUrl: "https://shop.example/cb" },
  });
  return () => new Request(url, init);
};
// BENCH_TAIL=1: each request's start and end, each group's phases and the event loop's stalls, and
// for the slowest 1 % of requests what ran while they waited (printed after the rounds).
const TAIL = !!process.env.BENCH_TAIL;
const reqTimes: Array<[number, number]> = [];
const groupTimes: Array<{ at: number; locked: number; body: number; end: number; jobs: number; runMs: number; waitMs: number }> = [];
/** The event loop thread's [on a core, runnable but waiting for a core] so far, ms (/proc schedstat). */
const loopSched = (): [number, number] => {
  const [run, wait] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ").map(Number);
  return [run! / 1e6, wait! / 1e6];
};
const stalls: Array<[number, number]> = [];
const collections: Array<[number, number]> = [];
if (TAIL) {
  const g = groupCommit(gw.ctx.db) as unknown as Record<string, (...a: unknown[]) => Promise<void>>;
  const commit = g.commit!.bind(g);
  const locked = g.commitLocked!.bind(g);
  let cur: (typeof groupTimes)[number] | null = null;
  g.commit = async (batch: unknown) => {
    const s0 = loopSched();
    cur = { at: performance.now(), locked: 0, body: 0, end: 0, jobs: (batch as unknown[]).length, runMs: 0, waitMs: 0 };
    const mine = cur;
    try {
      await commit(batch);
    } finally {
      mine.end = performance.now();
      const s1 = loopSched();
      mine.runMs = s1[0] - s0[0];
      mine.waitMs = s1[1] - s0[1];
      groupTimes.push(mine);
    }
  };
  g.commitLocked = async (batch: unknown, ...rest: unknown[]) => {
    if (cur) cur.locked = performance.now();
    return await locked(batch, ...rest);
  };
  const run = gw.ctx.db.$client.run.bind(gw.ctx.db.$client);
  (gw.ctx.db.$client as unknown as { run: (...a: unknown[]) => unknown }).run = (sql: unknown, ...rest: unknown[]) => {
    if (sql === "COMMIT" && cur) cur.body = performance.now();
    return run(sql as string, ...(rest as []));
  };
  let last = performance.now();
  let heap = process.memoryUsage().heapUsed;
  setInterval(() => {
    const now = performance.now();
    if (now - last > 15) stalls.push([last, now]);
    // The heap shrank by more than 1 MB since the last look: a collection ran in between.
    const h = process.memoryUsage().heapUsed;
    if (h < heap - 1_000_000) collections.push([last, now]);
    heap = h;
    last = now;
  }, 5).unref();
}
function tailReport(): void {
  const lat = reqTimes.map(([a, b]) => b - a).sort((x, y) => x - y);
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))]!;
  console.log(`tail: ${lat.length} requests, p50 ${q(0.5).toFixed(1)} ms, p90 ${q(0.9).toFixed(1)}, p99 ${q(0.99).toFixed(1)}, max ${lat[lat.length - 1]!.toFixed(1)}; ${groupTimes.length} groups, ${stalls.length} loop stalls > 15 ms, ${collections.length} collections seen`);
  const cut = q(0.99);
  const med = q(0.5);
  const describe = (sel: Array<[number, number]>) => {
    let groups = 0, waitLock = 0, body = 0, commitMs = 0, stall = 0, bigJobs = 0, gc = 0, run = 0, wait = 0, span = 0;
    for (const [a, b] of sel) {
      if (collections.some(([s, e]) => e > a && s < b)) gc++;
      const gs = groupTimes.filter((x) => x.end > a && x.at < b);
      groups += gs.length;
      waitLock = Math.max(waitLock, ...gs.map((x) => x.locked - x.at));
      body += Math.max(0, ...gs.map((x) => x.body - x.locked));
      commitMs += Math.max(0, ...gs.map((x) => x.end - x.body));
      bigJobs += Math.max(0, ...gs.map((x) => x.jobs));
      // The longest group it spanned: how much of that group's wall time the loop thread was on a core, and waiting for one.
      const longest = gs.reduce<(typeof gs)[number] | null>((m, x) => (!m || x.end - x.at > m.end - m.at ? x : m), null);
      if (longest) {
        span += longest.end - longest.at;
        run += longest.runMs;
        wait += longest.waitMs;
      }
      stall += Math.max(0, ...stalls.filter(([s, e]) => e > a && s < b).map(([s, e]) => e - s));
    }
    const n = sel.length || 1;
    return `${(groups / n).toFixed(1)} groups spanned, longest body ${(body / n).toFixed(1)} ms, longest COMMIT ${(commitMs / n).toFixed(1)} ms, largest group ${(bigJobs / n).toFixed(0)} jobs, the longest group ${(span / n).toFixed(1)} ms of which the loop thread on a core ${(run / n).toFixed(1)} ms and waiting for one ${(wait / n).toFixed(1)} ms, longest loop stall ${(stall / n).toFixed(1)} ms (means); a collection while waiting: ${((100 * gc) / n).toFixed(0)} %`;
  };
  console.log(`  slowest 1 % (>= ${cut.toFixed(1)} ms): ${describe(reqTimes.filter(([a, b]) => b - a >= cut))}`);
  console.log(`  around the median (${med.toFixed(1)} ms):  ${describe(reqTimes.filter(([a, b]) => Math.abs(b - a - med) < 0.2))}`);
  const gl = groupTimes.map((x) => x.end - x.at).sort((x, y) => x - y);
  console.log(`  groups: p50 ${gl[Math.floor(gl.length / 2)]!.toFixed(1)} ms, p99 ${gl[Math.floor(gl.length * 0.99)]!.toFixed(1)} ms (queue to commit end); lock waits > 1 ms: ${groupTimes.filter((x) => x.locked - x.at > 1).length}`);
}

let seq = 0;
async function round(tag: string, n: number) {
  // Distinct amounts in every round: each create takes the pool's first address.
  const reqs = Array.from({ length: n }, () => make(tag, seq++));
  const g0 = groupCommit(gw.ctx.db).groups;
  const k0 = ownCommits(gw.ctx.db);
  const s0 = walSyncs(gw.ctx.db.$client);
  const client = gw.ctx.db.$client;
  // Counting: the WAL starts empty and is not checkpointed during the round, so its frames
  // (pages written by the commits) are what the creates wrote.
  if (STATEMENTS) {
    counting = false;
    client.run("PRAGMA wal_checkpoint(TRUNCATE)");
    client.run("PRAGMA wal_autocheckpoint = 0");
    counting = true;
  }
  let next = 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (;;) {
        const i = next++;
        if (i >= n) return;
        const ts = TAIL ? performance.now() : 0;
        const res = await app.handle(reqs[i]!());
        if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
        await res.arrayBuffer();
        if (TAIL && tag !== "warm") reqTimes.push([ts, performance.now()]);
      }
    }),
  );
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  let walPages = NaN;
  if (STATEMENTS) {
    counting = false;
    // Between the gateway's transactions (the callback worker's outcomes may be mid-commit).
    const release = await acquireWrite(client);
    try {
      walPages = client.query<{ log: number }, []>("PRAGMA wal_checkpoint(PASSIVE)").get()!.log / n;
      client.run("PRAGMA wal_autocheckpoint = 1000");
    } finally {
      release();
    }
  }
  return { cpu: (c.user + c.system) / n, wall: (wall * 1000) / n, perGroup: n / (groupCommit(gw.ctx.db).groups - g0), commits: (ownCommits(gw.ctx.db) - k0) / n, syncs: (walSyncs(gw.ctx.db.$client) - s0) / n, walPages };
}
try {
  await round("warm", WARMUP);
  for (let r = 0; r < ROUNDS; r++) {
    counting = STATEMENTS;
    const x = await round(`r${r}`, N);
    counting = false;
    console.log(`create in-process: ${x.cpu.toFixed(0)} us cpu/req, ${x.wall.toFixed(0)} us wall/req, ${x.perGroup.toFixed(1)} requests per group, ${(1000 * x.commits).toFixed(1)} commits per 1,000 creates, ${(1000 * x.syncs).toFixed(1)} WAL syncs off the loop${STATEMENTS ? `, ${x.walPages.toFixed(2)} WAL pages written per create` : ""}`);
  }
  if (TAIL) tailReport();
  // BENCH_DRAIN=1 (with BENCH_JOBS): the callbacks the rounds queued, drained after them with no
  // request: process CPU and commits per delivery attempt (the worker's marks and outcomes alone).
  if (process.env.BENCH_DRAIN && process.env.BENCH_JOBS) {
    const c = gw.ctx.db.$client;
    const untried = () => c.query<{ n: number }, []>("SELECT count(*) AS n FROM callbacks WHERE state IN ('pending', 'delivering') AND attempts = 0").get()!.n;
    const a0 = untried();
    const k0 = ownCommits(gw.ctx.db);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    while (untried() > 0 && performance.now() - t0 < 120_000) await Bun.sleep(20);
    const cpu = process.cpuUsage(c0);
    const tried = a0 - untried();
    console.log(`drain: ${tried} attempts in ${((performance.now() - t0) / 1000).toFixed(1)} s, ${((cpu.user + cpu.system) / tried).toFixed(0)} us cpu/attempt, ${((ownCommits(gw.ctx.db) - k0) / tried).toFixed(2)} commits per attempt`);
  }
  if (STATEMENTS) {
    const total = ROUNDS * N;
    let calls = 0;
    for (const e of stats.values()) calls += e.calls;
    console.log(`SQL statements per create: ${(calls / total).toFixed(2)} (calls/create, us/call, statement)`);
    for (const [k, e] of [...stats].sort((a, b) => b[1].us - a[1].us)) console.log(`  ${(e.calls / total).toFixed(3).padStart(7)} ${(e.us / e.calls).toFixed(1).padStart(7)}  ${k}`);
  }
} finally {
  // BENCH_KEEP=file: a copy of the database after the run, to time statements on it.
  if (process.env.BENCH_KEEP) gw.ctx.db.$client.run("VACUUM INTO ?", [process.env.BENCH_KEEP]);
  await gw.stop();
  rmSync(gw.dir, { recursive: true, force: true });
}
