// `make bench`: the figures of DESIGN 11, printed (never asserted).
// - signed create-pay-in throughput and latency at 32 concurrent clients,
//   against a bare Bun + bun:sqlite endpoint doing the same HMAC and commits;
// - cold start to a healthy /healthz; RSS after the load;
// - BSC scan catch-up and call counts (scripts/bench-bsc-scan.ts).
import { rmSync } from "node:fs";
import { join } from "node:path";
import { StablegateClient } from "../src/sdk/client";
import { BUN, ROOT, runCli, startGatewayProcess, tempSetup } from "../src/testing/process";
import { freePort } from "../src/testing/anvil";
import { signRequest, canonicalBody } from "../src/auth/signing";
import { startReceiver } from "../src/testing/receiver";
import { sandboxClient } from "../src/testing/sandbox";

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function load(send: (i: number) => Promise<void>): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  const lat: number[] = [];
  let next = 0;
  let errors = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (;;) {
        const i = next++;
        if (i >= REQUESTS) return;
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
  return { rps: REQUESTS / secs, p50: pct(lat, 50), p99: pct(lat, 99), errors };
}

const rss = (pid: number) => {
  try {
    const s = require("node:fs").readFileSync(`/proc/${pid}/status`, "utf8") as string;
    return Number(/VmRSS:\s+(\d+)/.exec(s)?.[1] ?? 0) / 1024;
  } catch {
    return NaN;
  }
};

const s = await tempSetup(`[auth]\nrate_limit_per_minute = 0\n[payin]\nshared_pool_size = 50\n[chains.TRON]\nblock_time = "0s"`);
try {
  const { merchantUid, apiKey } = JSON.parse(runCli(["merchant", "create", "--name", "bench", "--json", "--config", s.configPath], s.env).stdout);

  const t0 = performance.now();
  const gw = await startGatewayProcess(s);
  const cold = performance.now() - t0;
  const client = new StablegateClient({ baseUrl: s.url, merchantUid, apiKey });
  const gateway = await load(async (i) => {
    await client.request("POST", "/openapi/payin/orders", {
      body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `bench-${i}`, amount: `${1 + (i % 1000)}.${String(i).padStart(6, "0").slice(-6)}`, notifyUrl: "https://shop.example/cb" },
    });
  });
  const gwRss = rss(gw.proc.pid);
  await gw.kill("SIGTERM");

  const port = await freePort();
  const base = Bun.spawn([BUN, join(ROOT, "scripts/bench-baseline.ts"), String(port), join(s.dir, "baseline.db"), apiKey, merchantUid], { stdout: "ignore", stderr: "inherit" });
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
    } catch {}
    await Bun.sleep(30);
  }
  const baseline = await load(async (i) => {
    const body = { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `bench-${i}`, amount: `${1 + (i % 1000)}.${String(i).padStart(6, "0").slice(-6)}`, notifyUrl: "https://shop.example/cb" };
    const ts = String(Date.now());
    const nonce = crypto.randomUUID();
    const cb = canonicalBody(body);
    const sig = signRequest(apiKey, { merchantUid, timestamp: ts, nonce, method: "POST", path: "/openapi/payin/orders", canonicalQuery: "", canonicalBody: cb });
    const r = await fetch(`http://127.0.0.1:${port}/openapi/payin/orders`, { method: "POST", headers: { "content-type": "application/json", "x-timestamp": ts, "x-nonce": nonce, "x-signature": sig }, body: cb });
    if (!r.ok) throw new Error(String(r.status));
    await r.arrayBuffer();
  });
  base.kill();

  const f = (x: number) => x.toFixed(1);
  console.log(`signed create pay-in, ${REQUESTS} requests, ${CLIENTS} concurrent clients, 127.0.0.1`);
  console.log(`  gateway : ${f(gateway.rps)} req/s  p50 ${f(gateway.p50)} ms  p99 ${f(gateway.p99)} ms  errors ${gateway.errors}`);
  console.log(`  baseline: ${f(baseline.rps)} req/s  p50 ${f(baseline.p50)} ms  p99 ${f(baseline.p99)} ms  errors ${baseline.errors}`);
  console.log(`  ratio   : ${(gateway.rps / baseline.rps).toFixed(2)} (target >= 0.5), p99 target < 25 ms`);
  console.log(`cold start to healthy /healthz: ${f(cold)} ms (target < 1000 ms, includes bun start-up)`);
  console.log(`gateway RSS after the load: ${f(gwRss)} MB (target < 150 MB)`);
} finally {
  rmSync(s.dir, { recursive: true, force: true });
}

// Completed callback latency: from the block that brings the last required
// confirmation (POST /sandbox/blocks answers once the watcher has seen it) to
// the merchant's endpoint receiving `completed`.
{
  const rx = startReceiver();
  const s2 = await tempSetup(`[chains.TRON]\nblock_time = "0s"\nconfirmations = 3`);
  try {
    const { merchantUid, apiKey } = JSON.parse(runCli(["merchant", "create", "--name", "latency", "--json", "--config", s2.configPath], s2.env).stdout);
    const gw = await startGatewayProcess(s2);
    const client = new StablegateClient({ baseUrl: s2.url, merchantUid, apiKey });
    const sb = sandboxClient(s2.url);
    const lat: number[] = [];
    for (let i = 0; i < 20; i++) {
      const o = await client.request<Record<string, string>>("POST", "/openapi/payin/orders", {
        body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `lat-${i}`, amount: `${i + 1}`, notifyUrl: `${rx.url}/cb` },
      });
      await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: `${i + 1}` });
      await sb.mine("TRON", 1);
      const t0 = Date.now();
      await sb.mine("TRON", 1);
      const got = await rx.waitFor((r) => r.some((x) => x.text.includes(o.orderNo) && x.text.includes('"status":"completed"')), 5000);
      lat.push(got.find((x) => x.text.includes(o.orderNo) && x.text.includes('"status":"completed"'))!.at - t0);
    }
    await gw.kill("SIGTERM");
    console.log(`completed callback after the confirming block: p50 ${pct(lat, 50)} ms, max ${Math.max(...lat)} ms over ${lat.length} orders (target < 1000 ms)`);
  } finally {
    await rx.stop();
    rmSync(s2.dir, { recursive: true, force: true });
  }
}

console.log("");
const scan = Bun.spawnSync([BUN, join(ROOT, "scripts/bench-bsc-scan.ts")], { cwd: ROOT, stdout: "inherit", stderr: "inherit" });
process.exit(scan.exitCode ?? 0);
