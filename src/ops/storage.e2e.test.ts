// Storage faults end to end (DESIGN 14, 16).
//
// A full disk: the gateway's database lives on a small tmpfs this test mounts and
// fills (we run as root; where mount is not permitted, e.g. an unprivileged CI
// container, every write of the gateway's connection is failed instead with
// SQLite's own "database or disk is full" through temporary triggers, and the test
// name says "injected"). Creates and signed GETs answer 503 / 10003 with
// Retry-After, the back office a plain 503 page, /readyz is not ready, the alerts
// storage_unwritable (and, on the real disk, disk_low) fire although the database
// cannot record them, a pending callback is sent exactly once, and everything
// recovers once space is freed.
//
// A database file deleted under a running gateway (a child process): /readyz is not
// ready, creates are refused with 10003 and storage_unwritable fires.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { startReceiver, type Receiver } from "../testing/receiver";
import { sendSigned } from "../testing/signed-request";
import { callbackRow, enqueueTestCallback } from "../testing/callbacks";
import { postLogin } from "../testing/backoffice-client";
import { crashGateway, disposeCrashGateways, SANDBOX_TRON_ONLY } from "../testing/crash";
import { eventually } from "../testing/wait";
import { TestClock } from "../lib/clock";
import { CallbackWorker, workerOptions } from "../callbacks/worker";
import { createUser } from "../backoffice/users";
import { CLI_ACTOR } from "../audit/log";
import { listAlerts } from "./alerts/store";
import { ApiError } from "../sdk/client";

type Obj = Record<string, any>;
const SECRET = "whsec_" + Buffer.from("storage-alert-secret-0123456789").toString("base64");

const mnt = mkdtempSync(join(tmpdir(), "sg-disk-"));
// SG_TEST_NO_MOUNT=1 runs the injected variant where mount would work (to check it).
const MOUNTED = !process.env.SG_TEST_NO_MOUNT && Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", mnt], { stderr: "pipe", stdout: "pipe" }).exitCode === 0;
const MODE = MOUNTED ? "a real full tmpfs" : "injected SQLITE_FULL (mount not permitted here)";

const clock = new TestClock(Date.now());
let gw: TestGateway;
let hook: Receiver;
let rx: Receiver;
let worker: CallbackWorker | undefined;

beforeAll(async () => {
  hook = startReceiver();
  rx = startReceiver([{ status: 200 }]);
  gw = await startTestGateway({
    clock,
    jobs: false,
    config: {
      database: { path: join(mnt, "stablegate.db") },
      ops: { min_free_disk_mb: 1 },
      alerts: { webhook_url: hook.url + "/alerts", webhook_secret: SECRET },
    },
  });
});
afterAll(async () => {
  await worker?.stop();
  await gw?.stop();
  gw?.ctx.db.$client.close();
  await hook?.stop();
  await rx?.stop();
  if (MOUNTED) Bun.spawnSync(["umount", "-l", mnt]);
  rmSync(mnt, { recursive: true, force: true });
  await disposeCrashGateways();
});

const FILLER = join(mnt, "filler");
/** Fills the filesystem to the last page (real mode), or fails every write of the gateway's connection (injected). */
function fillDisk(): void {
  if (!MOUNTED) {
    const c = gw.ctx.db.$client;
    const tables = c.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all();
    for (const { name } of tables) {
      for (const op of ["INSERT", "UPDATE", "DELETE"]) {
        c.run(`CREATE TEMP TRIGGER full_${name}_${op.toLowerCase()} BEFORE ${op} ON main.${name} BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
      }
    }
    return;
  }
  // The WAL emptied first (the maintenance worker keeps it checkpointed, so commits would reuse
  // its space and succeed on a full disk for a while): the next commit needs new space.
  gw.ctx.db.$client.run("PRAGMA wal_checkpoint(TRUNCATE)");
  const fd = openSync(FILLER, "w");
  try {
    for (const size of [1 << 20, 64 << 10, 4096, 512]) {
      const chunk = Buffer.alloc(size, 1);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e;
      }
    }
  } finally {
    closeSync(fd);
  }
}
function freeDisk(): void {
  if (!MOUNTED) {
    const c = gw.ctx.db.$client;
    for (const { name } of c.query<{ name: string }, []>("SELECT name FROM sqlite_temp_master WHERE type = 'trigger' AND name LIKE 'full\\_%' ESCAPE '\\'").all()) c.run(`DROP TRIGGER temp.${name}`);
    return;
  }
  unlinkSync(FILLER);
}

const signed = (method: "GET" | "POST", path: string, body?: unknown) => sendSigned({ baseUrl: gw.url, uid: gw.merchant.uid, apiKey: gw.merchant.apiKey, method, path, body, now: () => clock.now() });
const createOrder = (no: string) => signed("POST", "/openapi/payin/orders", { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: no, amount: "5", notifyUrl: "https://shop.example/cb" });
const readyz = async () => {
  const r = await fetch(gw.url + "/readyz");
  return { status: r.status, body: (await r.json()) as Obj };
};
const alertEvents = () =>
  hook.requests.map((r) => {
    const v = new Webhook(SECRET).verify(r.text, r.headers) as Obj;
    return `${v.type} ${v.data.condition}`;
  });

describe(`storage faults: a full disk (${MODE})`, () => {
  test("503 / 10003 with Retry-After, readiness fails, alerts fire, one delivery per callback, and recovery once space is freed", async () => {
    const before = await createOrder("before-full");
    expect(before.status).toBe(200);
    const user = { username: "ops-storage", password: (await createUser({ db: gw.ctx.db, cipher: gw.ctx.cipher, now: () => Date.now() }, { username: "ops-storage", role: "operator" }, CLI_ACTOR)).password };
    const cb = await enqueueTestCallback(gw.ctx.db, { merchantId: gw.merchant.id, url: `${rx.url}/cb`, now: clock.now() });
    const ready0 = await readyz();
    expect(ready0.body.database).toMatchObject({ writable: true, file: "ok", diskLow: false });

    fillDisk();

    // The merchant API: creates and signed GETs (their nonce is a write) answer 503 / 10003, never 500.
    for (let i = 0; i < 5; i++) {
      const r = await createOrder(`full-${i}`);
      expect({ status: r.status, code: r.body.code, retryAfter: r.headers.get("retry-after") }).toEqual({ status: 503, code: 10003, retryAfter: "30" });
      expect(r.body.message).toBe("Storage unavailable");
    }
    const get = await signed("GET", `/openapi/payin/orders/${before.body.orderNo}`);
    expect({ status: get.status, code: get.body.code, retryAfter: get.headers.get("retry-after") }).toEqual({ status: 503, code: 10003, retryAfter: "30" });
    // Repeated failures are logged once per interval, not once per request.
    expect(gw.logs.filter((l) => l.includes("storage unavailable: request refused")).length).toBe(1);

    // The hosted page's sandbox "pay" button (a write): 503 / 10003 too.
    const sim = await fetch(`${before.body.cashierUrl}/simulate`, { method: "POST" });
    expect({ status: sim.status, retryAfter: sim.headers.get("retry-after"), code: ((await sim.json()) as Obj).code }).toEqual({ status: 503, retryAfter: "30", code: 10003 });

    // The back office: a plain page, 503 with Retry-After (signing in writes a session).
    const bo = await postLogin(gw.url, user);
    expect(bo.status).toBe(503);
    expect(bo.headers.get("retry-after")).toBe("30");
    expect(bo.headers.get("content-type")).toContain("text/html");
    expect(await bo.text()).toContain("Temporarily unavailable");

    // Readiness: a probe write that must commit.
    const ready = await readyz();
    expect(ready.status).toBe(503);
    expect(ready.body.database.writable).toBe(false);
    expect(ready.body.reasons.join("\n")).toMatch(/database is not writable: .*(database or disk is full|SQLITE_FULL)/);
    if (MOUNTED) {
      expect(ready.body.database.diskLow).toBe(true);
      expect(ready.body.reasons.join("\n")).toContain("disk space low");
    }

    // Alerts fire although the database cannot record them.
    await gw.gateway.runtime.ops.alerts.tick();
    expect(alertEvents()).toContain("alert.fired storage_unwritable");
    if (MOUNTED) expect(alertEvents()).toContain("alert.fired disk_low");
    await gw.gateway.runtime.ops.alerts.tick();
    expect(alertEvents().filter((e) => e === "alert.fired storage_unwritable")).toHaveLength(1);

    // The callback worker: its claim cannot commit, so nothing is sent; it backs off.
    worker = new CallbackWorker(workerOptions(gw.ctx, { pollMs: 200 }));
    await worker.start();
    await clock.advance(0);
    await eventually(() => worker!.dbBackoffMs > 0, 5000, "worker backing off");
    const first = worker.dbBackoffMs;
    await clock.advance(first);
    await eventually(() => worker!.dbBackoffMs > first, 5000, "backoff grows");
    for (let i = 0; i < 5; i++) await clock.advance(worker.dbBackoffMs);
    expect(rx.requests.length).toBe(0);

    freeDisk();

    // Recovery: the callback goes out once, readiness and creates come back, the alerts resolve once.
    await clock.advance(worker.dbBackoffMs);
    await eventually(async () => (await callbackRow(gw.ctx.db, cb))?.state === "delivered", 10_000, "callback delivered after recovery");
    for (let i = 0; i < 5; i++) await clock.advance(15_000); // past the lease: still one delivery
    expect(rx.requests.length).toBe(1);
    const after = await readyz();
    expect(after.body.database).toMatchObject({ writable: true, file: "ok", diskLow: false });
    expect(after.body.reasons.join("\n")).not.toMatch(/database|disk/);
    expect((await createOrder("after-full")).status).toBe(200);
    expect((await signed("GET", `/openapi/payin/orders/${before.body.orderNo}`)).status).toBe(200);
    await gw.gateway.runtime.ops.alerts.tick();
    await gw.gateway.runtime.ops.alerts.tick();
    expect(alertEvents().filter((e) => e.endsWith("storage_unwritable"))).toEqual(["alert.fired storage_unwritable", "alert.resolved storage_unwritable"]);
    // The incident opened in memory is on record now, resolved.
    expect((await listAlerts(gw.ctx.db)).find((a) => a.condition === "storage_unwritable")).toMatchObject({ status: "resolved" });
  }, 60_000);
});

describe("storage faults: the database file deleted under a running gateway", () => {
  test("readyz not ready, creates refused with 10003, storage_unwritable fires", async () => {
    const alerts = startReceiver();
    try {
      const g = await crashGateway({
        merchantName: "deleted-db",
        engine: "sqlite", // the file deleted under it: SQLite's storage monitor
        toml: `${SANDBOX_TRON_ONLY}[alerts]\nwebhook_url = "${alerts.url}/alerts"\nwebhook_secret = "${SECRET}"\n`,
      });
      await g.start();
      const create = (no: string) => g.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: no, amount: "5", notifyUrl: "https://shop.example/cb" });
      await create("before-delete");
      for (const suffix of ["", "-wal", "-shm"]) rmSync(g.s.dbPath + suffix, { force: true });

      const r = await eventually(
        async () => {
          const res = await fetch(g.s.url + "/readyz");
          const body = (await res.json()) as Obj;
          return res.status === 503 && body.database.file === "deleted" ? body : undefined;
        },
        10_000,
        "readyz not ready",
      );
      expect(r.database.writable).toBe(false);
      expect(r.reasons.join("\n")).toContain("database file deleted");
      const refused = await create("after-delete").then(
        () => null,
        (e) => e as ApiError,
      );
      expect(refused).toBeInstanceOf(ApiError);
      expect({ status: refused!.status, code: refused!.code }).toEqual({ status: 503, code: 10003 });
      const got = await alerts.waitFor((rs) => rs.some((x) => x.text.includes("storage_unwritable")), 20_000);
      const ev = new Webhook(SECRET).verify(got.find((x) => x.text.includes("storage_unwritable"))!.text, got[0]!.headers) as Obj;
      expect(ev).toMatchObject({ type: "alert.fired", data: { condition: "storage_unwritable" } });
    } finally {
      await alerts.stop();
    }
  }, 60_000);
});
