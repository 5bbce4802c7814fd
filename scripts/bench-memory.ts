// Where the gateway's memory goes (docs/performance.md, "Memory, this session").
//   bun scripts/bench-memory.ts imports   RSS of the gateway's module graph, layer by layer, and
//                                         what the rpc-only chain libraries would add
//   bun scripts/bench-memory.ts load [rounds]
//                                         the bench's gateway (sandbox chains) under the bench's
//                                         create + GET load: RSS over time (peak sampled every
//                                         100 ms), then the JSC heap before and after a full GC
//                                         and the gateway's own highest sample (JSC heap vs the rest)
// BENCH_REQUESTS (4000) and BENCH_CLIENTS (32) as in scripts/bench.ts; BUN_FLAGS="--smol" passes
// runtime flags to the gateway; PROBE_SNAPSHOT=file.json also writes a heap snapshot.
// BENCH_GATEWAY_ENV="K=V K2=V2" sets the gateway's environment only (mimalloc's MIMALLOC_*, JSC's
// BUN_JSC_*); BENCH_SMAPS=1 prints RSS by mapping at the end and after the full GC (against the
// start), BENCH_SMAPS_DUMP=file writes the whole smaps; BENCH_STDERR=file keeps the gateway's stderr
// (e.g. with BUN_JSC_logGC=1); PROBE_TYPES=n lists n object types (10); BENCH_NOTIFY=local (below);
// PROBE_MIMALLOC=1 dumps mimalloc's statistics to the gateway's stderr before and after the GC (with BENCH_STDERR);
// PROBE_TIMELINE=file writes the gateway's every 100 ms sample (RSS, anonymous, JSC heap) as JSON lines;
// PROBE_MODULES=file the paths of the modules the gateway holds after the load (src/app/engine-isolation.test.ts).
import { existsSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { StablegateClient } from "../src/sdk/client";
import { BUN, ROOT, runCli, startGatewayProcess, tempSetup } from "../src/testing/process";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
const f = (x: number) => x.toFixed(1).padStart(6);

// The gateway's module graph in layers (each line: what it adds on top of the lines above), then
// what the rpc-only libraries would add on top of the whole graph (a gateway loads them only for
// a chain in rpc mode). cli/main.ts loads each command's modules in its handler, so serve's own
// (app/server.ts, chains/factory.ts) are layers of their own.
const LAYERS = ["bun:sqlite", "drizzle-orm", "drizzle-orm/bun-sqlite", "./src/db/schema.ts", "elysia", "./src/lib/prom.ts", "@noble/curves/secp256k1.js", "@noble/curves/ed25519.js", "@scure/bip32", "micro-ed25519-hdkey", "./src/cli/main.ts", "./src/app/server.ts", "./src/chains/factory.ts", "viem", "viem/accounts", "@solana/web3.js", "@solana/spl-token"];

async function imports() {
  const code = `
    const rss = () => { Bun.gc(true); return process.memoryUsage().rss / 1048576; };
    let last = rss();
    const out = [["bare bun", last, last]];
    for (const m of ${JSON.stringify(LAYERS)}) { await import(m.startsWith("./") ? ${JSON.stringify(ROOT)} + m.slice(1) : m); const r = rss(); out.push([m, r - last, r]); last = r; }
    process.stdout.write("JSON" + JSON.stringify(out));`;
  const p = Bun.spawnSync([BUN, "-e", code], { cwd: ROOT, stdout: "pipe", stderr: "ignore" });
  const rows = JSON.parse(p.stdout.toString().split("JSON")[1]!) as [string, number, number][];
  console.log("RSS added by each import, in this order, after a full GC (one bun process):");
  for (const [m, d, t] of rows) console.log(`  ${m.padEnd(30)} +${f(d)} MB  (process ${f(t)} MB)`);
}

// RSS by mapping (BENCH_SMAPS=1): file-backed by file name, anonymous ones by the size of the
// mapping (glibc's arenas are 64 MB reservations, mimalloc's and libpas's their own sizes).
function smaps(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  let name = "";
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) {
      const size = (parseInt(m[2]!, 16) - parseInt(m[1]!, 16)) / 1048576;
      name = m[3] ? m[3].replace(/.*\//, "") : `anon ${size >= 1 ? Math.round(size) + " MB" : "<1 MB"}`;
      continue;
    }
    const r = /^Rss:\s+(\d+)/.exec(line);
    if (r) out.set(name, (out.get(name) ?? 0) + Number(r[1]) / 1024);
  }
  return out;
}
function printSmaps(label: string, now: Map<string, number>, before: Map<string, number>) {
  const rows = [...now].map(([k, v]) => [k, v, v - (before.get(k) ?? 0)] as const).filter(([, v, d]) => v >= 1 || Math.abs(d) >= 1);
  console.log(`  ${label}: RSS by mapping (MB, change since start)`);
  for (const [k, v, d] of rows.sort((a, b) => b[1] - a[1])) console.log(`    ${k.padEnd(28)} ${f(v)} ${d >= 0 ? "+" : ""}${d.toFixed(1)}`);
}

const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

/** BENCH_GATEWAY_ENV="K=V K2=V2": the gateway's environment only (the allocator's and JSC's options). */
const gatewayEnv = () => Object.fromEntries((process.env.BENCH_GATEWAY_ENV ?? "").split(" ").filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));

async function load(rounds: number) {
  // BENCH_NOTIFY=local: the callbacks go to a local endpoint answering 200 (a shop that acknowledges),
  // instead of the bench's name that does not resolve (every attempt a failed lookup).
  const shop = process.env.BENCH_NOTIFY === "local" ? Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") }) : undefined;
  const notifyUrl = shop ? `http://127.0.0.1:${shop.port}/cb` : "https://shop.example/cb";
  const s = await tempSetup(`[log]\nlevel = "warn"\n[auth]\nrate_limit_per_minute = 0\n[payin]\nshared_pool_size = 50\n[chains.TRON]\nblock_time = "0s"`);
  const out = join(s.dir, "probe.json");
  try {
    const { merchantUid, apiKey } = JSON.parse(runCli(["merchant", "create", "--name", "mem", "--json", "--config", s.configPath], s.env).stdout);
    const flags = process.env.BUN_FLAGS ? process.env.BUN_FLAGS.split(" ") : [];
    const gw = await startGatewayProcess(s, {
      cmd: [BUN, ...flags, join(ROOT, "scripts/memory-probe-main.ts")],
      extraEnv: { ...gatewayEnv(), PROBE_OUT: out, PROBE_TYPES: process.env.PROBE_TYPES ?? "10", ...(process.env.PROBE_SNAPSHOT ? { PROBE_SNAPSHOT: process.env.PROBE_SNAPSHOT } : {}), ...(process.env.PROBE_TIMELINE ? { PROBE_TIMELINE: process.env.PROBE_TIMELINE } : {}), ...(process.env.PROBE_MIMALLOC ? { PROBE_MIMALLOC: "1" } : {}), ...(process.env.PROBE_MODULES ? { PROBE_MODULES: process.env.PROBE_MODULES } : {}) },
    });
    const pid = gw.proc.pid;
    let peak = rss(pid);
    const sampler = setInterval(() => (peak = Math.max(peak, rss(pid))), 100);
    const row = (label: string) => console.log(`  ${label.padEnd(44)} RSS ${f(rss(pid))} MB   peak so far ${f(peak)} MB`);
    row("right after start (healthy /healthz)");
    const smapsAtStart = process.env.BENCH_SMAPS ? smaps(pid) : new Map<string, number>();
    const client = new StablegateClient({ baseUrl: s.url, merchantUid, apiKey });
    const run = async (send: (i: number) => Promise<void>) => {
      let next = 0;
      const t0 = performance.now();
      await Promise.all(Array.from({ length: CLIENTS }, async () => { for (let i = next++; i < REQUESTS; i = next++) await send(i); }));
      return (REQUESTS / ((performance.now() - t0) / 1000)).toFixed(0);
    };
    for (let r = 1; r <= rounds; r++) {
      const orderNos: string[] = [];
      const c = await run(async (i) => {
        const o = await client.request<{ orderNo: string }>("POST", "/openapi/payin/orders", {
          body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `m${r}-${i}`, amount: `${1 + (i % 1000)}.${String(i).padStart(6, "0").slice(-6)}`, notifyUrl },
        });
        orderNos.push(o.orderNo);
      });
      const g = await run(async (i) => void (await client.request("GET", `/openapi/payin/orders/${orderNos[i % orderNos.length]}`)));
      row(`round ${r}: ${REQUESTS} creates ${c}/s, ${REQUESTS} GETs ${g}/s`);
      if (process.env.BENCH_SMAPS && r === rounds) printSmaps(`round ${r}`, smaps(pid), smapsAtStart);
    }
    clearInterval(sampler);
    await Bun.sleep(3000);
    row("3 s after the load");
    if (existsSync(out)) unlinkSync(out);
    process.kill(pid, "SIGUSR2");
    for (let i = 0; i < 200 && !existsSync(out); i++) await Bun.sleep(50);
    await Bun.sleep(200);
    if (process.env.BENCH_SMAPS) printSmaps("after a full GC", smaps(pid), smapsAtStart);
    if (process.env.BENCH_SMAPS_DUMP) writeFileSync(process.env.BENCH_SMAPS_DUMP, readFileSync(`/proc/${pid}/smaps`));
    if (existsSync(out + ".peak")) {
      const p = JSON.parse(readFileSync(out + ".peak", "utf8"));
      console.log(`  the gateway's own highest sample: RSS ${f(p.rss)} MB (anonymous ${f(p.anon)}, file-backed ${f(p.file)}); JSC heap ${f(p.heap)} MB of ${f(p.heapCapacity)} MB, extra ${f(p.extra)} MB`);
    }
    for (const p of JSON.parse(readFileSync(out, "utf8"))) {
      console.log(`  ${p.label}: RSS ${f(p.rss)} MB (anonymous ${f(p.anon)}, file-backed ${f(p.file)}); JSC heap ${f(p.heap)} MB of ${f(p.heapCapacity)} MB, extra ${f(p.extra)} MB, ${p.objects} objects, ${p.modules} modules`);
      console.log(`    ${p.types.map(([t, n]: [string, number]) => `${t} ${n}`).join(", ")}`);
    }
    await gw.kill("SIGTERM");
    if (process.env.BENCH_STDERR) writeFileSync(process.env.BENCH_STDERR, gw.stderr());
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
    void shop?.stop(true);
  }
}

if (process.argv[2] === "imports") await imports();
else if (process.argv[2] === "load") await load(Number(process.argv[3] ?? 1));
else console.log("usage: bun scripts/bench-memory.ts imports | load [rounds]");
