// The callback worker under database faults (DESIGN 16): a callback is sent
// only after its claim has committed, a failed claim sends nothing and the
// worker backs off (the wait doubles), an outcome that cannot be recorded is
// kept and written again rather than the callback being sent again; after
// recovery each callback is delivered exactly once. The fault is a real SQLite
// error on the real write ("database or disk is full", raised by a trigger on
// exactly the write under test); src/ops/storage.e2e.test.ts fills a real disk.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { startReceiver, type Receiver } from "../testing/receiver";
import { callbackRow, enqueueTestCallback } from "../testing/callbacks";
import { eventually } from "../testing/wait";
import { TestClock } from "../lib/clock";
import { TEST_ENGINE } from "../testing/engines";
import { CallbackWorker, DB_BACKOFF_MS, workerOptions } from "./worker";

// SQLite only: the fault is a TEMP trigger on the gateway's one SQLite connection; PostgreSQL's
// pool has no such per-connection trigger to raise it with.
const onPg = TEST_ENGINE === "pg";
const clock = new TestClock(Date.now() + 3_600_000);
let gw: TestGateway;
let rx: Receiver;
let w: CallbackWorker;

beforeAll(async () => {
  if (onPg) return;
  gw = await startTestGateway({ clock, jobs: false });
  rx = startReceiver([{ status: 200 }]);
  w = new CallbackWorker(workerOptions(gw.ctx, { pollMs: 200 }));
  await w.start();
});
afterAll(async () => {
  await w?.stop();
  await rx?.stop();
  await gw?.stop();
});

const fail = (name: string, when: string) =>
  gw.ctx.db.$client.run(`CREATE TEMP TRIGGER ${name} ${when} BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
const heal = (name: string) => gw.ctx.db.$client.run(`DROP TRIGGER IF EXISTS temp.${name}`);
/** Lets the worker's promise chains and HTTP round trips run without moving the clock. */
const turns = async (n = 20) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 5));
};
const sentTo = (path: string) => rx.requests.filter((r) => r.path === path).length;

describe.skipIf(onPg)("callback worker and a failing database", () => {
  test("a claim that cannot be committed sends nothing; the worker backs off, doubling; after recovery one delivery", async () => {
    fail("no_claim", "BEFORE UPDATE OF state ON callbacks WHEN NEW.state = 'delivering'");
    const id = await enqueueTestCallback(gw.ctx.db, { merchantId: gw.merchant.id, url: `${rx.url}/claim`, now: clock.now() });
    w.kick();
    await clock.advance(0);
    await turns();
    expect(w.dbBackoffMs).toBe(DB_BACKOFF_MS);
    const waits: number[] = [w.dbBackoffMs];
    for (let i = 0; i < 4; i++) {
      // Kicks inside the wait change nothing; each poll after it fails again and waits longer.
      w.kick();
      await clock.advance(w.dbBackoffMs);
      await turns();
      waits.push(w.dbBackoffMs);
    }
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000]);
    expect(sentTo("/claim")).toBe(0);
    expect((await callbackRow(gw.ctx.db, id))?.state).toBe("pending");
    // The errors were logged once, not once per attempt.
    expect(gw.logs.filter((l) => l.includes("callback claim not recorded")).length).toBe(1);

    heal("no_claim");
    await clock.advance(w.dbBackoffMs);
    await eventually(async () => (await callbackRow(gw.ctx.db, id))?.state === "delivered", 5000, "delivered after recovery");
    expect(sentTo("/claim")).toBe(1);
    expect(w.dbBackoffMs).toBe(0);
  });

  test("an outcome that cannot be recorded is kept and written again: the callback is sent once", async () => {
    fail("no_outcome", "BEFORE INSERT ON callback_attempts");
    const id = await enqueueTestCallback(gw.ctx.db, { merchantId: gw.merchant.id, url: `${rx.url}/outcome`, now: clock.now() });
    w.kick();
    await clock.advance(0);
    await eventually(() => sentTo("/outcome") === 1 && w.dbBackoffMs > 0, 5000, "sent, outcome refused");
    // The lease runs out meanwhile: the row is still this worker's, never claimed and sent again.
    for (let i = 0; i < 6; i++) {
      await clock.advance(Math.max(w.dbBackoffMs, 15_000));
      await turns();
    }
    expect(w.dbBackoffMs).toBeGreaterThan(DB_BACKOFF_MS);
    expect(sentTo("/outcome")).toBe(1);
    expect((await callbackRow(gw.ctx.db, id))?.state).toBe("delivering");

    heal("no_outcome");
    await clock.advance(w.dbBackoffMs);
    await eventually(async () => (await callbackRow(gw.ctx.db, id))?.state === "delivered", 5000, "outcome recorded after recovery");
    await clock.advance(60_000);
    await turns();
    expect(sentTo("/outcome")).toBe(1);
    expect((await callbackRow(gw.ctx.db, id))?.attempts).toBe(1);
  });
});
