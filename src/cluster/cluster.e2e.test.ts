// The cluster suite (DESIGN 22, docs/operations.md "More than one gateway"): three gateways, each
// `stablegate serve` as a child process serving HTTP, on one database of a PostgreSQL cluster of
// this file's own (so it can be stopped and started again). In order, on the same gateways:
// (a) orders created through any gateway get exactly one callback per order and status, counted
//     by eventId at a receiver (creation and expiry; and orders paid on the sandbox chain through
//     another gateway's /sandbox endpoint: detected, confirming, completed);
// (b) the leader SIGKILLed: another gateway leads within takeover_after and the others serve on;
// (d) the leader SIGKILLed at a payout's crash point (after its signed transaction is stored, after
//     its broadcast), the payout created through a follower: the next leader sends it once;
// (e) a deposed leader, frozen as it is about to sign and store, its lock session cut: it stores and
//     sends nothing (the epoch fence) and steps down;
// (c) PostgreSQL stopped for 10 s under load: every answer is a success or 503 with code 10003
//     (never a 500), the gateways recover by themselves when it is back, and every order whose
//     create answered 2xx is readable afterwards.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../config/load";
import { initPostgres } from "../app/postgres";
import { openPgDb } from "../db/tx-pg";
import { closeDb } from "../db/client";
import { createMerchant, setMerchantStatus } from "../merchants/service";
import { Cipher } from "../secrets/cipher";
import { keyFromString } from "../secrets/master-key";
import { ApiError, StablegateClient } from "../sdk/client";
import { startReceiver, type Receiver } from "../testing/receiver";
import { startGatewayProcess, type GatewayProcess } from "../testing/process";
import { exitsWithin, freePort } from "../testing/wait";
import { randomAddress } from "../wallet/hd";
import { sandboxClient } from "../testing/sandbox";
import { pgBinDir, serverOptions, startCluster, stopCluster, stopWhenGone, TEMPLATE_DB, withDatabase, type TestCluster } from "../testing/postgres";

const TAKEOVER = "3s";
const TAKEOVER_MS = 3000;
const MASTER_KEY = "cluster-suite-master-key";
const CONFIRMATIONS = 2;
/** Long enough for the paid case's orders to be paid before they expire, under load. */
const EXPIRE_S = 15;

interface Gw {
  name: string;
  url: string;
  configPath: string;
  proc: GatewayProcess | null;
  client: StablegateClient;
}

let pg: TestCluster;
let dbUrl: string;
let dir: string;
let rx: Receiver;
let merchant: { uid: string; apiKey: string };
const gws: Gw[] = [];
const env = () => {
  const e: Record<string, string> = { ...(process.env as Record<string, string>), STABLEGATE_MASTER_KEY: MASTER_KEY };
  delete e.STABLEGATE_CONFIG;
  delete e.STABLEGATE_DATABASE_URL;
  return e;
};

async function writeConfig(name: string): Promise<{ configPath: string; url: string }> {
  const port = await freePort();
  const configPath = join(dir, `${name}.toml`);
  writeFileSync(
    configPath,
    [
      `[server]\nhost = "127.0.0.1"\nport = ${port}`,
      `[database]\nurl = "${dbUrl}"\npool_size = 4`,
      `[cluster]\ntakeover_after = "${TAKEOVER}"`,
      // 10 s: the suite's receiver shares a loaded machine; an answer later than the timeout is
      // retried and arrives twice with one eventId (at-least-once), which the checks would count.
      `[callbacks]\nallow_private_targets = true\nretry_delays = ["1s", "2s"]\ntimeout = "10s"`,
      `[payin]\nexpire_after = "${EXPIRE_S}s"`,
      `[log]\nlevel = "info"`,
      // The outage case sends ~1,500 signed requests for one merchant and reads every answered
      // order back: the per-merchant bucket, shared by the gateways through the database
      // (rate_buckets), would answer 429 to a suite that tests outages, not rate limits.
      `[auth]\nrate_limit_per_minute = 0`,
      `[chains.TRON]\nblock_time = "0s"\nconfirmations = ${CONFIRMATIONS}`,
      `[chains.BSC]\nenabled = false`,
      `[chains.SOL]\nenabled = false`,
    ].join("\n") + "\n",
  );
  return { configPath, url: `http://127.0.0.1:${port}` };
}

/** Every gateway process the suite started (restarts included), for the unhandled errors printed at the end. */
const started: { name: string; proc: GatewayProcess }[] = [];

async function startGw(g: Gw, extraEnv: Record<string, string> = {}): Promise<void> {
  g.proc = await startGatewayProcess({ configPath: g.configPath, url: g.url, env: env(), dir, dbPath: "", port: 0 }, { timeoutMs: 60_000, extraEnv });
  started.push({ name: g.name, proc: g.proc });
}

/** A gateway's unhandled errors (answered 500 / 10000), printed with the suite's output: a 500 is a bug to find. */
function printUnhandledErrors(): void {
  for (const { name, proc } of started) {
    const lines = (proc.stdout() + proc.stderr()).split("\n").filter((l) => l.includes("unhandled error"));
    for (const l of lines.slice(0, 10)) console.log(`${name} (pid ${proc.proc.pid}): ${l.slice(0, 2000)}`);
  }
}

async function role(g: Gw): Promise<string | null> {
  try {
    const r = await fetch(`${g.url}/healthz`, { signal: AbortSignal.timeout(2000) });
    return ((await r.json()) as { role?: string }).role ?? null;
  } catch {
    return null;
  }
}

async function waitUntil<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

/** pg_ctl as the cluster's owner, without blocking this process's event loop (the load keeps going). */
async function pgCtl(args: string[]): Promise<void> {
  const exe = join(pgBinDir(), "pg_ctl");
  const cmd = process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--", exe, ...args] : [exe, ...args];
  const p = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe" });
  const code = await p.exited;
  if (code === 0) return;
  // Say why: pg_ctl's own output, and the server log's end (a start that failed says it there).
  const said = `${await new Response(p.stdout).text()}${await new Response(p.stderr).text()}`;
  const log = join(pg.dir, "server.log");
  const tail = existsSync(log) ? readFileSync(log, "utf8").split("\n").slice(-15).join("\n") : "(no server log)";
  throw new Error(`pg_ctl ${args.join(" ")} failed (${code}): ${said}\nserver.log:\n${tail}`);
}

const callbacksOf = () => rx.requests.map((r) => JSON.parse(r.text) as { eventId: string; orderNo: string; status: string });

/** No eventId twice, and exactly one callback per order and status; returns the statuses per order. */
function expectOncePerStatus(orderNos: string[], opts: { redelivered?: boolean } = {}): Map<string, string[]> {
  let got = callbacksOf().filter((c) => orderNos.includes(c.orderNo));
  const byEvent = new Map<string, number>();
  for (const c of got) byEvent.set(c.eventId, (byEvent.get(c.eventId) ?? 0) + 1);
  // A gateway frozen past its claim's lease may deliver that claim again once it resumes (the
  // lease's at-least-once: the same eventId, which the merchant deduplicates): then one event per status.
  if (opts.redelivered) got = got.filter((c, i) => got.findIndex((d) => d.eventId === c.eventId) === i);
  else expect([...byEvent.entries()].filter(([, n]) => n > 1)).toEqual([]);
  const statuses = new Map<string, string[]>();
  for (const c of got) statuses.set(c.orderNo, [...(statuses.get(c.orderNo) ?? []), c.status]);
  for (const [orderNo, list] of statuses) expect({ orderNo, list: [...new Set(list)] }).toEqual({ orderNo, list });
  return statuses;
}

const sandboxOf = (g: Gw) => sandboxClient(g.url);

/** The current leader and the others (every gateway answering). */
async function leaderAndOthers(): Promise<{ leader: Gw; others: Gw[] }> {
  const roles = await waitUntil("one leader", async () => {
    const r = await Promise.all(gws.map(role));
    return r.filter((x) => x === "leader").length === 1 && r.every((x) => x !== null) ? r : null;
  }, 30_000);
  const leader = gws[roles.indexOf("leader")]!;
  return { leader, others: gws.filter((g) => g !== leader) };
}

/**
 * Makes the leader a gateway armed with STABLEGATE_CRASH_AT=point (that one process only): the
 * followers paused (SIGSTOP, their connections open, so they try no lock), the leader restarted
 * with the crash point and leading again, the followers resumed.
 */
async function armedLeader(point: string): Promise<{ leader: Gw; others: Gw[] }> {
  const { leader, others } = await leaderAndOthers();
  for (const g of others) g.proc!.proc.kill("SIGSTOP");
  try {
    await leader.proc!.kill("SIGTERM");
    await startGw(leader, { STABLEGATE_CRASH_AT: point });
    await waitUntil("the armed gateway leading", async () => (await role(leader)) === "leader", 30_000);
  } finally {
    for (const g of others) g.proc!.proc.kill("SIGCONT");
  }
  return { leader, others };
}

/** The sandbox chain's transfers sent from an address (mined ones, or also those still pending). */
async function sentFrom(address: string, pendingToo = false): Promise<{ tx_hash: string; amount: string }[]> {
  const q = new SQL({ url: dbUrl, max: 1 });
  try {
    return (await q`SELECT tx_hash, amount FROM sandbox_transfers WHERE from_address = ${address} AND (block_number IS NOT NULL OR ${pendingToo})`) as { tx_hash: string; amount: string }[];
  } finally {
    await q.close();
  }
}

/** Waits (up to 4 × takeover_after) for one of `others` to say it leads. */
async function newLeaderAmong(others: Gw[]): Promise<Gw> {
  return await waitUntil("a new leader", async () => {
    for (const g of others) if ((await role(g)) === "leader") return g;
    return null;
  }, 4 * TAKEOVER_MS);
}

/** A binding funded with 50 USDT on the sandbox chain, and a payout of 20 from it created through `via`. */
async function fundedPayout(via: Gw, bindKey: string): Promise<{ b: { address: string }; created: { orderNo: string } }> {
  const sb = sandboxOf(via);
  const b = await via.client.request<{ address: string }>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey } });
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount: "50" });
  await sb.mine("TRON", CONFIRMATIONS);
  const body = { chainCode: "TRON" as const, tokenSymbol: "USDT" as const, fromAddress: b.address, toAddress: randomAddress("TRON"), amount: "20", merchantOrderNo: `po-${bindKey}`, notifyUrl: `${rx.url}/po` };
  const created = await waitUntil("the payout created through a follower", async () => await via.client.createPayoutOrder(body).catch(() => null), 30_000);
  return { b, created };
}

/** Polls the payout through `via` until confirmed or failed, mining a block while it is broadcasted. */
async function payoutSettled(via: Gw, orderNo: string) {
  let o = await via.client.getPayoutOrder(orderNo);
  await waitUntil("the payout confirmed", async () => {
    o = await via.client.getPayoutOrder(orderNo);
    if (o.status === "confirmed" || o.status === "failed") return true;
    if (o.status === "broadcasted") await sandboxOf(via).mine("TRON", 1);
    else await Bun.sleep(100);
    return false;
  }, 60_000);
  return o;
}

/** Linux: the process is stopped (SIGSTOP), its state "T" in /proc/<pid>/stat. */
async function isStopped(pid: number): Promise<boolean> {
  const stat = await Bun.file(`/proc/${pid}/stat`).text().catch(() => "");
  return stat.slice(stat.lastIndexOf(")") + 2).startsWith("T");
}

async function leaderRow(): Promise<{ epoch: number; backend_pid: number }> {
  const q = new SQL({ url: dbUrl, max: 1 });
  try {
    const [r] = (await q`SELECT epoch::int AS epoch, backend_pid FROM cluster_leader WHERE id = 1`) as { epoch: number; backend_pid: number }[];
    return r!;
  } finally {
    await q.close();
  }
}

async function payoutRow(orderNo: string): Promise<{ status: string; signed: boolean }> {
  const q = new SQL({ url: dbUrl, max: 1 });
  try {
    const [r] = (await q`SELECT status, signed_tx IS NOT NULL AS signed FROM payout_orders WHERE order_no = ${orderNo}`) as { status: string; signed: boolean }[];
    return r!;
  } finally {
    await q.close();
  }
}


/**
 * The server's options here: the test cluster's without `synchronous_commit = off` (which
 * acknowledges a commit before its WAL is written, so a crash loses acknowledged orders: the
 * opposite of what (c) checks); fsync stays off (the WAL reaches the OS at commit, which a
 * stopped server does not lose).
 */
const serverOpts = () => [...serverOptions(pg.port, pg.dir), "-c fsync=off", "-c synchronous_commit=on", "-c full_page_writes=off"].join(" ");
const startServer = () => pgCtl(["-D", join(pg.dir, "data"), "-l", join(pg.dir, "server.log"), "-o", serverOpts(), "-w", "-t", "60", "start"]);

beforeAll(async () => {
  pg = await startCluster();
  stopWhenGone(process.pid, pg.dir);
  await pgCtl(["-D", join(pg.dir, "data"), "-m", "fast", "-w", "stop"]);
  await startServer();
  const admin = new SQL({ url: pg.url, max: 1 });
  await admin.unsafe(`CREATE DATABASE sg_cluster TEMPLATE ${TEMPLATE_DB}`);
  await admin.close();
  dbUrl = withDatabase(pg.url, "sg_cluster");
  dir = mkdtempSync(join(tmpdir(), "stablegate-cluster-"));
  rx = startReceiver();
  for (const name of ["gw1", "gw2", "gw3"]) {
    const { configPath, url } = await writeConfig(name);
    gws.push({ name, url, configPath, proc: null, client: null as unknown as StablegateClient });
  }
  await initPostgres(loadConfig(gws[0]!.configPath), env());
  const db = openPgDb(dbUrl, 2);
  try {
    const m = await createMerchant({ db, cipher: new Cipher(keyFromString(MASTER_KEY)), now: () => Date.now() }, { name: "Cluster Shop" });
    merchant = { uid: m.merchant.uid, apiKey: m.apiKey };
  } finally {
    await closeDb(db);
  }
  for (const g of gws) g.client = new StablegateClient({ baseUrl: g.url, merchantUid: merchant.uid, apiKey: merchant.apiKey, now: () => Date.now() });
  await Promise.all(gws.map((g) => startGw(g)));
}, 180_000);

afterAll(async () => {
  printUnhandledErrors();
  await Promise.all(gws.map((g) => g.proc?.kill("SIGTERM").catch(() => undefined)));
  await rx?.stop();
  if (pg) stopCluster(pg.dir);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("three gateways on one PostgreSQL database", () => {
  test("one leader; orders created through any gateway get exactly one callback per order and status (creation, expiry)", async () => {
    const leaders = await waitUntil("a leader", async () => {
      const roles = await Promise.all(gws.map(role));
      return roles.filter((r) => r === "leader").length === 1 && roles.every((r) => r !== null) ? roles : null;
    }, 30_000);
    expect(leaders.filter((r) => r === "follower").length).toBe(2);
    const orders: string[] = [];
    for (let i = 0; i < 30; i++) {
      const g = gws[i % 3]!;
      const o = await g.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `a-${i}`, amount: `${10 + i}.5`, notifyUrl: `${rx.url}/cb` });
      orders.push(o.orderNo);
      // Read back through another gateway.
      expect((await gws[(i + 1) % 3]!.client.getPayinOrder(o.orderNo)).orderNo).toBe(o.orderNo);
    }
    const mine = () => callbacksOf().filter((c) => orders.includes(c.orderNo));
    // Created (waiting_payment) then expired (expire_after) for every order.
    await waitUntil("creation and expiry callbacks", async () => mine().filter((c) => c.status === "expired").length === orders.length && mine().length >= 2 * orders.length, 60_000);
    await Bun.sleep(3000); // a few polls later: nothing twice
    const got = mine();
    const byEvent = new Map<string, number>();
    for (const c of got) byEvent.set(c.eventId, (byEvent.get(c.eventId) ?? 0) + 1);
    expect([...byEvent.values()].filter((n) => n > 1)).toEqual([]);
    const perOrderStatus = new Map<string, number>();
    for (const c of got) perOrderStatus.set(`${c.orderNo}/${c.status}`, (perOrderStatus.get(`${c.orderNo}/${c.status}`) ?? 0) + 1);
    expect(perOrderStatus.size).toBe(2 * orders.length);
    expect([...perOrderStatus.values()].every((n) => n === 1)).toBe(true);
  }, 120_000);

  test("orders created round-robin over the gateways and paid on the sandbox chain complete with exactly one callback per order and status", async () => {
    const orders: { orderNo: string; amount: string }[] = [];
    for (let i = 0; i < 9; i++) {
      const o = await gws[i % 3]!.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `paid-${i}`, amount: `${20 + i}.25`, notifyUrl: `${rx.url}/paid` });
      // Paid through another gateway's sandbox endpoint (one database, one sandbox chain).
      await sandboxOf(gws[(i + 1) % 3]!).transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: o.amount });
      orders.push({ orderNo: o.orderNo, amount: o.amount });
    }
    const nos = orders.map((o) => o.orderNo);
    const completed = () => callbacksOf().filter((c) => nos.includes(c.orderNo) && c.status === "completed").length;
    const t0 = performance.now();
    await waitUntil("every paid order completed and called back", async () => {
      if (completed() === nos.length) return true;
      await sandboxOf(gws[2]!).mine("TRON", 1);
      await Bun.sleep(300);
      return false;
    }, 90_000);
    console.log(`paid case: ${nos.length} orders completed and called back ${((performance.now() - t0) / 1000).toFixed(1)} s after the last payment`);
    await Bun.sleep(3000); // a few polls later: nothing twice
    const statuses = expectOncePerStatus(nos);
    for (const [i, o] of orders.entries()) {
      const list = statuses.get(o.orderNo)!;
      expect(list[0]).toBe("waiting_payment");
      expect(list.at(-1)).toBe("completed");
      expect(list.filter((s) => !["waiting_payment", "detected", "confirming", "completed"].includes(s))).toEqual([]);
      expect(await gws[(i + 2) % 3]!.client.getPayinOrder(o.orderNo)).toMatchObject({ status: "completed", paidAmount: o.amount });
    }
  }, 150_000);

  test("a merchant disabled from outside the gateways (the CLI's way) is refused by every gateway at once: the database notifies their key caches", async () => {
    // Every gateway's key cache is warm.
    for (const g of gws) await g.client.getPayinOrder("PI-none").catch(() => undefined);
    const db = openPgDb(dbUrl, 1);
    const deps = { db, cipher: new Cipher(keyFromString(MASTER_KEY)), now: () => Date.now() };
    const refusedBy = async (g: Gw) => (await g.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `off-${g.name}-${Date.now()}`, amount: "1.5", notifyUrl: `${rx.url}/off` }).then(() => null, (e: unknown) => e)) as ApiError | null;
    try {
      const t0 = performance.now();
      await setMerchantStatus(deps, merchant.uid, "disabled");
      const seen = await Promise.all(gws.map(async (g) => await waitUntil(`${g.name} refusing`, async () => ((await refusedBy(g)) ? performance.now() - t0 : null), 5000)));
      console.log(`a disabled merchant refused by every gateway within ${Math.max(...seen).toFixed(0)} ms (bus; the cache's own recheck is 1000 ms)`);
      expect(Math.max(...seen)).toBeLessThan(1000);
      await setMerchantStatus(deps, merchant.uid, "active");
      for (const g of gws) await waitUntil(`${g.name} serving again`, async () => ((await refusedBy(g)) ? null : true), 5000);
    } finally {
      await closeDb(db);
    }
  }, 60_000);

  test("the leader SIGKILLed: another gateway leads within takeover_after, and the others serve on", async () => {
    const roles = await Promise.all(gws.map(role));
    const leader = gws[roles.indexOf("leader")]!;
    const killedAt = performance.now();
    await leader.proc!.kill("SIGKILL");
    leader.proc = null;
    const others = gws.filter((g) => g !== leader);
    const next = await newLeaderAmong(others);
    const takeoverS = (performance.now() - killedAt) / 1000;
    console.log(`takeover after SIGKILL: ${takeoverS.toFixed(2)} s (takeover_after ${TAKEOVER}); new leader ${next.name}`);
    expect(takeoverS).toBeLessThan(TAKEOVER_MS / 1000 + 1.5);
    for (const g of others) {
      const o = await g.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `b-${g.name}`, amount: "7.25", notifyUrl: `${rx.url}/cb` });
      expect(o.status).toBe("waiting_payment");
    }
    // Back as a follower (the leader keeps its lead).
    await startGw(leader);
    expect(await waitUntil("the restarted gateway's role", () => role(leader), 10_000)).toBe("follower");
    expect(await role(next)).toBe("leader");
  }, 90_000);

  // (d) The leader SIGKILLed at a payout's crash point (armed in that gateway only), the payout
  // created through a follower: another gateway leads within takeover_after, follows the stored
  // signed transaction, and the payout lands once on the chain with one callback per status.
  test.each(["payout:after-sign-commit", "payout:after-broadcast"])("the leader killed at %s: another leads and the payout lands exactly once", async (point) => {
    const { leader, others } = await armedLeader(point);
    const diedAt = leader.proc!.proc.exited.then(() => performance.now());
    const via = others[0]!;
    const { b, created } = await fundedPayout(via, `treasury-${point.replace(/[^a-z]/g, "")}`);
    // The armed leader executes it and dies at the point.
    expect(await exitsWithin(leader.proc!.proc, 30_000)).toBe(true);
    const killedAt = await diedAt;
    expect(leader.proc!.proc.signalCode).toBe("SIGKILL");
    leader.proc = null;
    // What the crash left: the signed transaction stored, the order still submitted (the new leader needs ≥ T/5).
    expect(await payoutRow(created.orderNo)).toEqual({ status: "submitted", signed: true });
    expect((await sentFrom(b.address, true)).length).toBe(point === "payout:after-broadcast" ? 1 : 0);
    const next = await newLeaderAmong(others);
    const takeoverS = (performance.now() - killedAt) / 1000;
    const o = await payoutSettled(via, created.orderNo);
    const doneS = (performance.now() - killedAt) / 1000;
    console.log(`leader killed at ${point}: takeover ${takeoverS.toFixed(2)} s (takeover_after ${TAKEOVER}), new leader ${next.name}; payout confirmed ${doneS.toFixed(2)} s after the kill`);
    expect(takeoverS).toBeLessThan(TAKEOVER_MS / 1000 + 1.5);
    expect(o).toMatchObject({ status: "confirmed", fromAddress: b.address });
    expect(await sentFrom(b.address)).toEqual([{ tx_hash: o.txHash!, amount: "20000000" }]);
    await rx.waitFor(() => callbacksOf().some((c) => c.orderNo === created.orderNo && c.status === "confirmed"), 20_000);
    await Bun.sleep(2000); // a few polls later: nothing twice
    const statuses = expectOncePerStatus([created.orderNo]).get(created.orderNo)!;
    expect(statuses.at(-1)).toBe("confirmed");
    // The killed gateway back, unarmed, as a follower.
    await startGw(leader);
    expect(await waitUntil("the restarted gateway's role", () => role(leader), 10_000)).toBe("follower");
  }, 150_000);

  // (e) The deposed leader: frozen (SIGSTOP, STABLEGATE_CRASH_AT=stop:payout:before-sign) as it is
  // about to sign and store a payout's transaction, its lock connection cut (pg_terminate_backend of
  // cluster_leader.backend_pid); another gateway takes over with a higher epoch and sends the payout.
  // Resumed, the deposed gateway stores nothing and sends nothing (the epoch fence: NotLeader), and
  // steps down: the payout lands once, one callback per status.
  test("the deposed leader: its lock connection cut as it is about to store a signed transaction, it stores and sends nothing", async () => {
    const { leader, others } = await armedLeader("stop:payout:before-sign");
    const via = others[0]!;
    const { b, created } = await fundedPayout(via, "treasury-deposed");
    const pid = leader.proc!.proc.pid;
    await waitUntil("the leader frozen before signing", () => isStopped(pid), 30_000);
    const before = await leaderRow();
    const lostBefore = (leader.proc!.stdout() + leader.proc!.stderr()).split("no longer the leader").length;
    const q = new SQL({ url: dbUrl, max: 1 });
    const cutAt = performance.now();
    try {
      expect((await q`SELECT pg_terminate_backend(${before.backend_pid}::int) AS ok`)[0].ok).toBe(true);
    } finally {
      await q.close();
    }
    const next = await newLeaderAmong(others);
    const takeoverS = (performance.now() - cutAt) / 1000;
    expect((await leaderRow()).epoch).toBeGreaterThan(before.epoch);
    // The new leader signs, stores and sends it while the deposed one is still frozen.
    await waitUntil("the payout signed by the new leader", async () => (await payoutRow(created.orderNo)).signed, 30_000);
    leader.proc!.proc.kill("SIGCONT");
    // Resumed: it steps down (its lock session is gone) and its executor's store is refused by the fence.
    await waitUntil("the deposed gateway a follower", async () => (await role(leader)) === "follower", 15_000);
    const o = await payoutSettled(via, created.orderNo);
    console.log(`deposed leader: takeover ${takeoverS.toFixed(2)} s after its lock connection was cut (takeover_after ${TAKEOVER}), new leader ${next.name}`);
    expect(takeoverS).toBeLessThan(TAKEOVER_MS / 1000 + 1.5);
    expect(o).toMatchObject({ status: "confirmed", fromAddress: b.address });
    await Bun.sleep(2000); // the deposed gateway had time to try
    expect(await sentFrom(b.address, true)).toEqual([{ tx_hash: o.txHash!, amount: "20000000" }]);
    expect((leader.proc!.stdout() + leader.proc!.stderr()).split("no longer the leader").length).toBeGreaterThan(lostBefore);
    expect(leader.proc!.proc.exitCode).toBeNull();
    await rx.waitFor(() => callbacksOf().some((c) => c.orderNo === created.orderNo && c.status === "confirmed"), 20_000);
    expect(expectOncePerStatus([created.orderNo], { redelivered: true }).get(created.orderNo)!.at(-1)).toBe("confirmed");
    // Unarmed again, as a follower.
    await leader.proc!.kill("SIGTERM");
    await startGw(leader);
    expect(await waitUntil("the restarted gateway's role", () => role(leader), 10_000)).toBe("follower");
  }, 150_000);

  test("PostgreSQL stopped for 10 s under load: only successes or 503/10003, no 500; the gateways recover by themselves; no order lost", async () => {
    const answers = new Map<string, number>();
    const created: { orderNo: string; gw: Gw }[] = [];
    const firstSuccessAfter = { at: 0 };
    let restartedAt = 0;
    let running = true;
    let seq = 0;
    const note = (k: string) => answers.set(k, (answers.get(k) ?? 0) + 1);
    const worker = async (g: Gw) => {
      while (running) {
        const n = seq++;
        try {
          const o = await g.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `c-${n}`, amount: `${1 + (n % 500)}.${n % 97}`, notifyUrl: `${rx.url}/load` });
          created.push({ orderNo: o.orderNo, gw: g });
          note("ok");
          if (restartedAt && !firstSuccessAfter.at) firstSuccessAfter.at = performance.now();
        } catch (e) {
          if (e instanceof ApiError) note(`${e.status}/${e.code}`);
          else note(`other: ${String((e as Error)?.message ?? e).slice(0, 80)}`);
          await Bun.sleep(100);
        }
      }
    };
    const data = join(pg.dir, "data");
    const load = gws.flatMap((g) => [worker(g), worker(g)]);
    // Load running and served before the stop (a loaded machine may take more than a moment).
    await waitUntil("creates served before the outage", async () => (answers.get("ok") ?? 0) >= 20, 30_000);
    const before = answers.get("ok") ?? 0;
    const leaderBefore = gws[(await Promise.all(gws.map(role))).indexOf("leader")]!;
    const logOf = (g: Gw) => g.proc!.stdout() + g.proc!.stderr();
    const lostBefore = logOf(leaderBefore).split("no longer the leader").length;
    await pgCtl(["-D", data, "-m", "immediate", "-w", "stop"]);
    const stoppedAt = performance.now();
    await Bun.sleep(10_000);
    // readyz says not ready while it is down (asked until it answers: a request may queue behind
    // the load's on a loaded machine).
    const readyStatus = await waitUntil("an answer from /readyz during the outage", async () => {
      try {
        return (await fetch(`${gws[0]!.url}/readyz`, { signal: AbortSignal.timeout(5000) })).status;
      } catch {
        return null;
      }
    }, 20_000);
    expect(readyStatus).toBe(503);
    await startServer();
    restartedAt = performance.now();
    await waitUntil("a success after the restart", async () => firstSuccessAfter.at > 0, 60_000);
    const recoveryS = (firstSuccessAfter.at - restartedAt) / 1000;
    // And a leader again.
    const led = await waitUntil("a leader after the restart", async () => {
      const roles = await Promise.all(gws.map(role));
      return roles.includes("leader") ? performance.now() : null;
    }, 30_000);
    await Bun.sleep(2000);
    running = false;
    await Promise.all(load);
    console.log(
      `outage: down ${((restartedAt - stoppedAt) / 1000).toFixed(1)} s; first create served ${recoveryS.toFixed(2)} s after PostgreSQL was back; a leader ${((led - restartedAt) / 1000).toFixed(2)} s after; answers ${JSON.stringify(Object.fromEntries(answers))}`,
    );
    expect(before).toBeGreaterThan(0);
    const kinds = [...answers.keys()];
    expect(kinds.filter((k) => k !== "ok" && k !== "503/10003")).toEqual([]);
    expect(answers.get("503/10003") ?? 0).toBeGreaterThan(0);
    // The database is writable again for every gateway (/readyz; a leader's also waits for its chain watchers).
    for (const g of gws) {
      const writable = async () => {
        try {
          return ((await (await fetch(`${g.url}/readyz`, { signal: AbortSignal.timeout(5000) })).json()) as { database: { writable: boolean } }).database.writable;
        } catch {
          return false;
        }
      };
      expect(await waitUntil(`${g.name}'s /readyz: database writable`, writable, 20_000)).toBe(true);
    }
    // Every order whose create answered 2xx is there, read through another gateway.
    for (const c of created) {
      const other = gws[(gws.indexOf(c.gw) + 1) % gws.length]!;
      expect((await other.client.getPayinOrder(c.orderNo)).orderNo).toBe(c.orderNo);
    }
    // The leader's lock went with its connection: it stepped down (its jobs told to stop) during the outage.
    expect(logOf(leaderBefore).split("no longer the leader").length).toBeGreaterThan(lostBefore);
    // Nothing restarted: the same processes.
    for (const g of gws) expect(g.proc!.proc.exitCode).toBeNull();
  }, 180_000);
});
