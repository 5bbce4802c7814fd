// Scheduled backups on a real gateway (injected clock): taken on the cron schedule, checked,
// kept `keep` deep here and in a real S3-compatible server on 127.0.0.1 (s3rver), and
// backup_failed fires once when a backup or its upload fails and resolves on the next success.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { S3Client } from "bun";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { startTestS3, type TestS3 } from "../testing/s3-server";
import { TestClock } from "../lib/clock";
import { listAlerts } from "../ops/alerts/store";
import { inspectBackup } from "./inspect";
import { pgDatabaseName, ScheduledBackups } from "./schedule";
import { inspectPgBackup } from "./pg-dump";
import { TEST_ENGINE } from "../testing/engines";

let gw: TestGateway;
let s3: TestS3;
let dir: string;
const clock = new TestClock(Date.parse("2026-11-24T08:01:00.000Z"));

beforeAll(async () => {
  s3 = await startTestS3();
  gw = await startTestGateway({
    clock,
    jobs: false,
    config: { backup: { schedule: "*/5 * * * *", keep: 2, s3_url: s3.url("gw1"), s3_access_key: s3.accessKey, s3_secret_key: s3.secretKey } },
  });
  dir = join(gw.dir, "backups");
  // Both engines (SG_TEST_DB=pg): `<database>-<stamp>.dump` with pg_dump on PostgreSQL.
  if (TEST_ENGINE === "pg") [NAME, EXT] = [pgDatabaseName(gw.ctx.config.database.url!), ".dump"];
});
let NAME = "stablegate";
let EXT = ".db";
/** The file name a backup of this slot gets on this engine. */
const file = (stamp: string) => `${NAME}-${stamp}${EXT}`;
afterAll(async () => {
  await gw?.stop();
  await s3?.dispose();
});

const backups = () => gw.gateway.runtime.ops.backups!;
const local = () => readdirSync(dir).filter((f) => f.endsWith(EXT)).sort();
const bucket = () => new S3Client({ endpoint: `http://127.0.0.1:${s3.port}`, bucket: s3.bucket, accessKeyId: s3.accessKey, secretAccessKey: s3.secretKey });
const remote = async () => ((await bucket().list({ prefix: "gw1/" })).contents ?? []).map((o) => o.key).sort();
/** Moves the clock to the next slot and runs the job as the scheduler would. */
async function nextSlot() {
  const due = (await backups().dueAt())!;
  expect(await backups().tick()).toBeNull(); // not due yet
  await clock.set(due);
  return (await backups().tick())!;
}
/** One alert round; what it fired and resolved about backups (the frozen chains stall, as they may). */
async function alertTick() {
  const r = await gw.gateway.runtime.ops.alerts.tick();
  const only = (xs: typeof r.fired) => xs.filter((a) => a.condition === "backup_failed");
  return { fired: only(r.fired), resolved: only(r.resolved) };
}

describe("scheduled backups", () => {
  test("on the schedule: a checked 0600 backup in backups/ beside the database, uploaded byte for byte", async () => {
    expect(await backups().dueAt()).toBe(Date.parse("2026-11-24T08:05:00.000Z"));
    const r = await nextSlot();
    expect(r.status).toBe("ok");
    expect(r.file).toBe(join(dir, file("20261124T080500Z")));
    expect((statSync(r.file!).mode & 0o777).toString(8)).toBe("600");
    expect((statSync(dir).mode & 0o777).toString(8)).toBe("700");
    expect((await (TEST_ENGINE === "pg" ? inspectPgBackup(r.file!) : inspectBackup(r.file!))).rows.merchants).toBe(1);
    expect(r.s3Key).toBe(`gw1/${file("20261124T080500Z")}`);
    const stored = new Uint8Array(await bucket().file(r.s3Key!).arrayBuffer());
    expect(Buffer.from(stored).equals(Buffer.from(await Bun.file(r.file!).arrayBuffer()))).toBe(true);
    expect(await backups().dueAt()).toBe(Date.parse("2026-11-24T08:10:00.000Z"));
  });

  test("keeps `keep` of the backups it made, locally and in the bucket; other files are left alone", async () => {
    writeFileSync(join(dir, `manual-copy${EXT}`), "the operator's own file");
    await nextSlot();
    await nextSlot();
    expect(local()).toEqual([`manual-copy${EXT}`, file("20261124T081000Z"), file("20261124T081500Z")]);
    expect(await remote()).toEqual([`gw1/${file("20261124T081000Z")}`, `gw1/${file("20261124T081500Z")}`]);
  });

  test("an upload that fails raises backup_failed once (the local copy is still made); the next good run resolves it", async () => {
    await s3.stop();
    const failed = await nextSlot();
    expect(failed.status).toBe("failed");
    expect(failed.error).toContain(`upload to http://127.0.0.1:${s3.port}/backups/gw1/ failed`);
    expect(existsSync(failed.file!)).toBe(true);
    const fired = await alertTick();
    expect(fired.fired.map((a) => a.condition)).toEqual(["backup_failed"]);
    expect(fired.fired[0]!.message).toContain("upload to");
    expect((await alertTick()).fired).toEqual([]);

    await s3.start();
    expect((await nextSlot()).status).toBe("ok");
    const resolved = await alertTick();
    expect(resolved.resolved.map((a) => a.condition)).toEqual(["backup_failed"]);
    expect((await listAlerts(gw.ctx.db)).filter((a) => a.condition === "backup_failed").map((a) => a.status)).toEqual(["resolved"]);
  });

  test("a backup that cannot be written (its folder is a file) fails with the reason", async () => {
    const notDir = join(gw.dir, "not-a-folder");
    writeFileSync(notDir, "x");
    const job = new ScheduledBackups({ db: gw.ctx.db, clock, logger: gw.ctx.logger, config: { database: gw.ctx.config.database, backup: { ...gw.ctx.config.backup, dir: notDir, s3_url: undefined } } });
    const r = await job.run();
    expect(r.status).toBe("failed");
    expect(r.error).toContain(`backup to ${notDir}/${NAME}-`);
    expect((await alertTick()).fired.map((a) => a.condition)).toEqual(["backup_failed"]);
    mkdirSync(join(gw.dir, "ok-folder"));
    const ok = await new ScheduledBackups({ db: gw.ctx.db, clock, logger: gw.ctx.logger, config: { database: gw.ctx.config.database, backup: { ...gw.ctx.config.backup, dir: join(gw.dir, "ok-folder"), s3_url: undefined } } }).run();
    expect(ok.status).toBe("ok");
    expect((await alertTick()).resolved.map((a) => a.condition)).toEqual(["backup_failed"]);
  });
});

// The copy on a worker thread is SQLite's (pg_dump is a process of its own); the test fills the file through $client.
describe.skipIf(TEST_ENGINE === "pg")("scheduled backups in a serving gateway", () => {
  test("the job runs on the schedule, and requests are answered while the copy runs (worker thread)", async () => {
    const c = new TestClock(Date.parse("2026-11-24T08:59:30.000Z"));
    const g = await startTestGateway({ clock: c, config: { backup: { schedule: "0 * * * *", keep: 3 } } });
    try {
      // ~40 MB of rows, so the copy takes long enough to be seen.
      g.ctx.db.$client.run("CREATE TABLE bulk (id INTEGER PRIMARY KEY, b BLOB)");
      g.ctx.db.$client.transaction(() => {
        const ins = g.ctx.db.$client.prepare("INSERT INTO bulk (b) VALUES (randomblob(4000))");
        for (let i = 0; i < 10_000; i++) ins.run();
      })();
      let maxGap = 0;
      let last = performance.now();
      const probe = setInterval(() => {
        const now = performance.now();
        maxGap = Math.max(maxGap, now - last);
        last = now;
      }, 5);
      const started = performance.now();
      await c.set(Date.parse("2026-11-24T09:00:00.000Z"));
      const healthy = await fetch(g.url + "/healthz");
      const dirOf = join(g.dir, "backups");
      for (let i = 0; i < 600 && !(existsSync(dirOf) && readdirSync(dirOf).some((f) => f.endsWith("Z.db"))); i++) await Bun.sleep(50);
      const took = performance.now() - started;
      clearInterval(probe);
      expect(healthy.status).toBe(200);
      expect(readdirSync(dirOf).filter((f) => f.endsWith("Z.db"))).toEqual([file("20261124T090000Z")]);
      // On the gateway's thread the copy would stall the loop for most of its run.
      expect(maxGap).toBeLessThan(Math.max(100, took / 2));
    } finally {
      await g.stop();
    }
  });
});
