// Round trips per signed request on PostgreSQL (issue 38): a throwaway cluster with statement
// logging (log_statement = all, log_min_duration off), one gateway process, then N signed creates
// and N signed GETs one after another. Every statement the server logged in each window is counted
// per backend role (request pool vs. the rest: the callback worker, jobs, LISTEN) and per text, and
// printed per request. `bun scripts/pg-statements.ts [N]` (default 20). Sequential requests, so a
// statement's count per request is exact for the request path; background statements (polls,
// claims) are shown apart, as what they cost per request at that pace.
import { SQL } from "bun";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { StablegateClient } from "../src/sdk/client";
import { runCli, startGatewayProcess, tempSetup } from "../src/testing/process";
import { createTestDatabase, PG_URL_ENV, runPg, startCluster, stopCluster, stopWhenGone } from "../src/testing/postgres";

const N = Number(process.argv[2] ?? 20);
const cluster = await startCluster();
stopWhenGone(process.pid, cluster.dir);
process.env[PG_URL_ENV] = cluster.url;
{
  // pg_stat_statements (Debian's postgresql package ships it): server time per statement.
  const a = new SQL({ url: cluster.url, max: 1 });
  await a.unsafe(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
  await a.close();
  runPg("pg_ctl", ["-D", join(cluster.dir, "data"), "-l", join(cluster.dir, "server.log"), "-w", "-t", "60", "restart"]);
}
const admin = new SQL({ url: cluster.url, max: 1 });
const log = join(cluster.dir, "server.log");
const toml = `[log]\nlevel = "warn"\n[auth]\nrate_limit_per_minute = 0\n[payin]\nshared_pool_size = 50\n[chains.TRON]\nblock_time = "0s"`;
const db = await createTestDatabase({ empty: true });
const dbAdmin = new SQL({ url: db.url, max: 1 });
const s = await tempSetup(toml, { init: false });
s.env.STABLEGATE_DATABASE_URL = db.url;
try {
  if (runCli(["init", "--config", s.configPath], s.env).code !== 0) throw new Error("init failed");
  await dbAdmin.unsafe(`CREATE EXTENSION pg_stat_statements`);
  const m = JSON.parse(runCli(["merchant", "create", "--name", "trace", "--json", "--config", s.configPath], s.env).stdout);
  const gw = await startGatewayProcess(s);
  const client = new StablegateClient({ baseUrl: s.url, ...m });
  const body = (i: number, p: string) => ({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `${p}-${i}`, amount: `${1 + i}.5`, notifyUrl: "https://shop.example/cb" });
  // Warm: prepared statements, caches.
  const warm = await client.request<{ orderNo: string }>("POST", "/openapi/payin/orders", { body: body(0, "warm") });
  await client.request("GET", `/openapi/payin/orders/${warm.orderNo}`);
  await admin.unsafe(`ALTER SYSTEM SET log_statement = 'all'`);
  await admin.unsafe(`ALTER SYSTEM SET log_line_prefix = '%p|%x|'`);
  await admin.unsafe(`SELECT pg_reload_conf()`);
  await Bun.sleep(300);
  const window = async (what: string, run: () => Promise<void>) => {
    const from = readFileSync(log, "utf8").length;
    await dbAdmin.unsafe(`SELECT pg_stat_statements_reset()`);
    const t0 = performance.now();
    await run();
    const ms = performance.now() - t0;
    await Bun.sleep(300);
    const text = readFileSync(log, "utf8").slice(from);
    const stmts = [...text.matchAll(/^(\d+)\|\d*\|LOG:\s+(?:statement|execute [^:]*):\s+([\s\S]*?)(?=^\d+\||(?![\s\S]))/gm)].map((x) => ({ pid: x[1], q: x[2]!.replace(/\s+/g, " ").trim().slice(0, 160) }));
    const counts = new Map<string, number>();
    for (const st of stmts) counts.set(st.q, (counts.get(st.q) ?? 0) + 1);
    console.log(`\n${what}: ${N} sequential requests, ${(ms / N).toFixed(1)} ms each; ${stmts.length} statements logged = ${(stmts.length / N).toFixed(2)} per request`);
    for (const [q, n] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`  ${(n / N).toFixed(2).padStart(6)}  ${q}`);
    const top = (await dbAdmin.unsafe(`SELECT calls, total_exec_time + total_plan_time AS ms, total_plan_time AS plan, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS q
      FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY 2 DESC LIMIT 12`)) as { calls: number; ms: number; plan: number; q: string }[];
    const total = top.reduce((t, r) => t + r.ms, 0);
    console.log(`  server time (pg_stat_statements, plan + execute, top statements): ${(total / N * 1000).toFixed(0)} µs per request`);
    for (const r of top) console.log(`  ${(r.ms / N * 1000).toFixed(0).padStart(6)} µs/req (plan ${(r.plan / N * 1000).toFixed(0)})  ${(Number(r.calls) / N).toFixed(2)} calls/req  ${r.q}`);
  };
  const orders: string[] = [];
  await window("signed create", async () => {
    for (let i = 0; i < N; i++) orders.push((await client.request<{ orderNo: string }>("POST", "/openapi/payin/orders", { body: body(i, "t") })).orderNo);
  });
  await window("signed GET", async () => {
    for (let i = 0; i < N; i++) await client.request("GET", `/openapi/payin/orders/${orders[i]}`);
  });
  const C = Number(process.env.CLIENTS ?? 32);
  const concurrently = async (n: number, send: (i: number) => Promise<unknown>) => {
    let next = 0;
    await Promise.all(Array.from({ length: C }, async () => { for (let i = next++; i < n; i = next++) await send(i); }));
  };
  await window(`signed create, ${C} concurrent clients`, async () => await concurrently(N, async (i) => orders.push((await client.request<{ orderNo: string }>("POST", "/openapi/payin/orders", { body: body(i, "u") })).orderNo)));
  await window(`signed GET, ${C} concurrent clients`, async () => await concurrently(N, async (i) => await client.request("GET", `/openapi/payin/orders/${orders[i]}`)));
  await window("idle 2 s (background only)", async () => await Bun.sleep(2000));
  await gw.kill("SIGTERM");
} finally {
  await admin.close();
  await dbAdmin.close();
  await db.drop().catch(() => undefined);
  rmSync(s.dir, { recursive: true, force: true });
  stopCluster(cluster.dir);
}
