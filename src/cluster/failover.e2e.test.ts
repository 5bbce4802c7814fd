// The failover drill (issue 38, DESIGN 22): a PostgreSQL primary and a streaming standby made
// with pg_basebackup (synchronous replication), three gateways in miniature on the libpq failover
// URL (both hosts, target_session_attrs=read-write): an elector, a lease claimer, a notification
// bus and a writer loop each. The primary is SIGKILLed and the standby promoted (what Patroni or a
// managed PostgreSQL does); the gateways find the promoted host by themselves, with no restart.
// Printed: seconds from the kill to the first write acknowledged by the new primary, and to a new
// leader (docs/operations.md "More than one gateway" quotes them).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { openPg, pgCurrentHost } from "../db/client-pg";
import { migratePg } from "../db/migrate-pg";
import { replicaBinariesPresent, startReplicaPair, type ReplicaPair } from "../testing/postgres-replica";
import { withDatabase } from "../testing/postgres";
import { eventually } from "../testing/wait";
import { LeaderElector } from "./leader";
import { CALLBACK_LEASES, leaseClaimer } from "./leases";
import { ClusterBus } from "./notify";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../config/load";
import { initPostgres } from "../app/postgres";
import { openPgDb } from "../db/tx-pg";
import { closeDb } from "../db/client";
import { createMerchant } from "../merchants/service";
import { Cipher } from "../secrets/cipher";
import { keyFromString } from "../secrets/master-key";
import { ApiError, StablegateClient } from "../sdk/client";
import { startGatewayProcess, type GatewayProcess } from "../testing/process";
import { freePort } from "../testing/wait";

const TAKEOVER_MS = 15_000;
let pair: ReplicaPair;
let url: string;

const describeIf = replicaBinariesPresent() ? describe : describe.skip;

beforeAll(async () => {
  if (!replicaBinariesPresent()) return;
  pair = await startReplicaPair({ synchronous: true });
  const admin = new SQL({ url: pair.primary.url, max: 1 });
  await admin.unsafe(`CREATE DATABASE stablegate`);
  await admin.close();
  const db = new SQL({ url: withDatabase(pair.primary.url, "stablegate"), max: 1 });
  await migratePg(db);
  await db.unsafe(`CREATE TABLE drill_writes (id text PRIMARY KEY, gateway text NOT NULL)`);
  await db.unsafe(
    `INSERT INTO callbacks (id, merchant_id, kind, order_no, order_status, api_key_id, payload, state, attempts, next_attempt_at, created_at, updated_at)
     SELECT 'cb' || lpad(i::text, 3, '0'), 1, 'payin', 'o' || i, 'completed', 'k', '{}', 'pending', 0, 0, i, i FROM generate_series(1, 30) AS i`,
  );
  await db.close();
  url = pair.failoverUrl("stablegate");
  await startHttpGateways();
}, 120_000);
afterAll(async () => {
  for (const h of http) await h.proc.kill("SIGTERM").catch(() => undefined);
  if (httpDir) rmSync(httpDir, { recursive: true, force: true });
  pair?.stop();
});

// Two `serve` processes (the product itself) on a database of their own on the same pair, given the
// failover URL: they create orders through the drill, find the promoted host by themselves and go on.
const MASTER_KEY = "failover-drill-master-key";
interface HttpGateway {
  name: string;
  url: string;
  proc: GatewayProcess;
  client: StablegateClient;
}
const http: HttpGateway[] = [];
let httpDir = "";

async function startHttpGateways(): Promise<void> {
  const admin = new SQL({ url: pair.primary.url, max: 1 });
  await admin.unsafe(`CREATE DATABASE stablegate_http`);
  await admin.close();
  const dbUrl = pair.failoverUrl("stablegate_http");
  httpDir = mkdtempSync(join(tmpdir(), "stablegate-failover-"));
  const env: Record<string, string> = { ...(process.env as Record<string, string>), STABLEGATE_MASTER_KEY: MASTER_KEY };
  delete env.STABLEGATE_CONFIG;
  delete env.STABLEGATE_DATABASE_URL;
  const configs: { name: string; configPath: string; url: string }[] = [];
  for (const name of ["http-1", "http-2"]) {
    const port = await freePort();
    const configPath = join(httpDir, `${name}.toml`);
    writeFileSync(
      configPath,
      [
        `[server]\nhost = "127.0.0.1"\nport = ${port}`,
        `[database]\nurl = "${dbUrl}"\npool_size = 4`,
        `[cluster]\ntakeover_after = "${TAKEOVER_MS / 1000}s"`,
        `[auth]\nrate_limit_per_minute = 0`,
        `[chains.TRON]\nblock_time = "0s"`,
        `[chains.BSC]\nenabled = false`,
        `[chains.SOL]\nenabled = false`,
      ].join("\n") + "\n",
    );
    configs.push({ name, configPath, url: `http://127.0.0.1:${port}` });
  }
  await initPostgres(loadConfig(configs[0]!.configPath), env);
  const db = openPgDb(dbUrl, 2);
  let merchant: { uid: string; apiKey: string };
  try {
    const m = await createMerchant({ db, cipher: new Cipher(keyFromString(MASTER_KEY)), now: () => Date.now() }, { name: "Failover Shop" });
    merchant = { uid: m.merchant.uid, apiKey: m.apiKey };
  } finally {
    await closeDb(db);
  }
  await Promise.all(
    configs.map(async (c) => {
      const proc = await startGatewayProcess({ configPath: c.configPath, url: c.url, env, dir: httpDir, dbPath: "", port: 0 }, { timeoutMs: 60_000 });
      http.push({ name: c.name, url: c.url, proc, client: new StablegateClient({ baseUrl: c.url, merchantUid: merchant.uid, apiKey: merchant.apiKey, now: () => Date.now(), timeoutMs: 10_000 }) });
    }),
  );
}

/** Creates orders through a serve gateway until stopped: each answered order, and when each answer came. */
function createLoop(g: HttpGateway) {
  const created: { orderNo: string; at: number }[] = [];
  const refused = new Map<string, number>();
  let running = true;
  const done = (async () => {
    for (let n = 0; running; n++) {
      try {
        const o = await g.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `${g.name}-${n}`, amount: `${1 + (n % 400)}.${n % 89}`, notifyUrl: "http://127.0.0.1:9/cb" });
        created.push({ orderNo: o.orderNo, at: performance.now() });
      } catch (e) {
        const k = e instanceof ApiError ? `${e.status}/${e.code}` : "no answer";
        refused.set(k, (refused.get(k) ?? 0) + 1);
        await Bun.sleep(50);
      }
      await Bun.sleep(10);
    }
  })();
  return {
    created,
    refused,
    firstAfter: (t: number) => created.find((c) => c.at > t)?.at ?? null,
    async stop() {
      running = false;
      await done;
    },
  };
}

async function roleOf(g: HttpGateway): Promise<string | null> {
  try {
    return ((await (await fetch(`${g.url}/healthz`, { signal: AbortSignal.timeout(2000) })).json()) as { role?: string }).role ?? null;
  } catch {
    return null;
  }
}

interface Gateway {
  name: string;
  pool: SQL;
  elector: LeaderElector;
  bus: ClusterBus;
  claimer: ReturnType<typeof leaseClaimer<{ id: string }>>;
  acked: string[];
  unknown: string[];
  firstAckAfter: (t: number) => number | null;
  stopWriting(): Promise<void>;
}

async function gateway(name: string): Promise<Gateway> {
  const pool = openPg(url, 3, { connectionTimeout: 2 });
  const elector = new LeaderElector({ url, takeoverAfterMs: TAKEOVER_MS, owner: name });
  const bus = new ClusterBus(pool, { self: name });
  await bus.start();
  await elector.start();
  const acked: string[] = [];
  const ackTimes: number[] = [];
  const unknown: string[] = [];
  let writing = true;
  // The writer: one insert after another, each id once; a failed insert's id is never sent again.
  const loop = (async () => {
    for (let n = 0; writing; n++) {
      const id = `${name}-${n}`;
      try {
        await pool`INSERT INTO drill_writes (id, gateway) VALUES (${id}, ${name})`;
        acked.push(id);
        ackTimes.push(performance.now());
      } catch {
        unknown.push(id);
        await Bun.sleep(20);
      }
      await Bun.sleep(5);
    }
  })();
  return {
    name,
    pool,
    elector,
    bus,
    claimer: leaseClaimer<{ id: string }>(pool, CALLBACK_LEASES, name),
    acked,
    unknown,
    firstAckAfter: (t) => ackTimes.find((x) => x > t) ?? null,
    async stopWriting() {
      writing = false;
      await loop;
    },
  };
}

describeIf("failover drill: primary killed, standby promoted", () => {
  test("the gateways reconnect to the promoted host by themselves: one leader with a higher epoch, nothing acknowledged lost, nothing twice", async () => {
    const gws = [await gateway("gw-a"), await gateway("gw-b"), await gateway("gw-c")];
    const loads = http.map(createLoop);
    try {
      await eventually(() => loads.every((l) => l.created.length >= 3), 30_000, "orders created through both serve gateways", 20);
      await eventually(async () => (await Promise.all(http.map(roleOf))).filter((r) => r === "leader").length === 1, 30_000, "one leader among the serve gateways", 100);
      await eventually(() => gws.filter((g) => g.elector.isLeader()).length === 1, 10_000, "a leader", 20);
      const oldEpoch = gws.find((g) => g.elector.isLeader())!.elector.epoch()!;
      await eventually(() => gws.every((g) => g.acked.length >= 5), 10_000, "writes on the primary", 20);
      const woken: string[] = [];
      gws[1]!.bus.onWake("callbacks", () => woken.push("gw-b"));
      const listens = gws.map((g) => g.bus.subscriptions);

      const t0 = performance.now();
      pair.killPrimary();
      const ackedBeforeKill = gws.flatMap((g) => g.acked.slice());
      await pair.promoteStandby();
      const promotedAfter = (performance.now() - t0) / 1000;

      await eventually(() => gws.every((g) => g.firstAckAfter(t0) !== null), 30_000, "a write on the promoted standby from every gateway", 20);
      const firstWrite = (Math.min(...gws.map((g) => g.firstAckAfter(t0)!)) - t0) / 1000;
      const lastWrite = (Math.max(...gws.map((g) => g.firstAckAfter(t0)!)) - t0) / 1000;
      await eventually(() => gws.filter((g) => g.elector.isLeader()).length === 1, TAKEOVER_MS + 10_000, "a new leader", 20);
      const leaderAfter = (performance.now() - t0) / 1000;
      console.log(
        `failover (synchronous replication, takeover_after ${TAKEOVER_MS / 1000} s): standby promoted ${promotedAfter.toFixed(2)} s after the kill; ` +
          `first write on the new primary ${firstWrite.toFixed(2)} s (every gateway by ${lastWrite.toFixed(2)} s); new leader ${leaderAfter.toFixed(2)} s`,
      );

      // The serve gateways: creating again on the promoted host, no restart, one of them leading.
      await eventually(() => loads.every((l) => l.firstAfter(t0) !== null), 60_000, "an order created through each serve gateway after the failover", 50);
      const httpFirst = (Math.min(...loads.map((l) => l.firstAfter(t0)!)) - t0) / 1000;
      const httpEvery = (Math.max(...loads.map((l) => l.firstAfter(t0)!)) - t0) / 1000;
      await eventually(async () => (await Promise.all(http.map(roleOf))).filter((r) => r === "leader").length === 1, TAKEOVER_MS + 20_000, "a leader among the serve gateways", 100);
      const httpLeader = (performance.now() - t0) / 1000;
      for (const l of loads) await l.stop();
      console.log(
        `serve gateways: first order created on the new primary ${httpFirst.toFixed(2)} s after the kill (both by ${httpEvery.toFixed(2)} s); a leader ${httpLeader.toFixed(2)} s; ` +
          `${loads.reduce((t, l) => t + l.created.length, 0)} orders answered, refused meanwhile ${JSON.stringify(Object.fromEntries(loads.flatMap((l) => [...l.refused])))}`,
      );
      // Refusals during the failover are 503/10003 (the database unreachable) or no answer within the client's timeout; never a 500.
      for (const l of loads) expect([...l.refused.keys()].filter((k) => k !== "503/10003" && k !== "no answer")).toEqual([]);
      // Every order a gateway answered is there, read through the other one (synchronous replication).
      for (const [i, l] of loads.entries()) {
        const other = http[(i + 1) % http.length]!;
        for (const c of l.created) expect((await other.client.getPayinOrder(c.orderNo)).orderNo).toBe(c.orderNo);
      }
      for (const h of http) expect(h.proc.proc.exitCode).toBeNull();

      const leader = gws.find((g) => g.elector.isLeader())!;
      expect(leader.elector.epoch()!).toBeGreaterThan(oldEpoch);
      for (const g of gws) expect(pgCurrentHost(g.pool)?.port).toBe(pair.standby.port);

      // The bus came back on the new host (caches dropped) and carries messages again.
      await eventually(() => gws.every((g, i) => g.bus.subscriptions > listens[i]!), 10_000, "every bus re-subscribed", 20);
      await gws[0]!.bus.wake(gws[0]!.pool, "callbacks");
      await eventually(() => woken.length > 0, 5000, "a wake-up through the new primary", 20);

      // Leases on the new primary: the 30 callbacks claimed across the gateways, none twice.
      const claimed = (await Promise.all(gws.map((g) => g.claimer.claim(30, 60_000)))).flat().map((r) => r.id);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect(claimed.length).toBe(30);

      for (const g of gws) await g.stopWriting();
      const rows = (await gws[0]!.pool`SELECT id FROM drill_writes`) as { id: string }[];
      const stored = new Set(rows.map((r) => r.id));
      expect(stored.size).toBe(rows.length);
      // Synchronous replication: every write acknowledged before the kill is on the promoted standby, and every one after.
      for (const id of ackedBeforeKill) expect(stored.has(id)).toBe(true);
      const acked = gws.flatMap((g) => g.acked);
      for (const id of acked) expect(stored.has(id)).toBe(true);
      // Nothing stored that was neither acknowledged nor in doubt (a failed insert whose commit reached the standby).
      const inDoubt = new Set(gws.flatMap((g) => g.unknown));
      for (const id of stored) expect(acked.includes(id) || inDoubt.has(id)).toBe(true);
      console.log(`writes: ${acked.length} acknowledged, ${inDoubt.size} failed during the failover (${[...inDoubt].filter((id) => stored.has(id)).length} of them committed)`);
    } finally {
      for (const l of loads) await l.stop();
      for (const g of gws) {
        await g.stopWriting();
        await g.bus.stop().catch(() => {});
        await g.elector.stop();
        await g.pool.close({ timeout: 0 });
      }
    }
  }, 150_000);
});
