// Callbacks between gateways of one PostgreSQL database (issue 38, DESIGN 22), two owners in one
// process, each with its own pool, bus and worker:
// - a callback written by gateway A, whose worker is stopped, is delivered by B at once: A's relay
//   (callbacks/cluster-wake.ts) sends the wake-up NOTIFY after the commit, B's worker (polling only
//   every 2 minutes here) wakes on it;
// - a gateway frozen between its claim and its send (here: inside the target's DNS lookup) whose
//   lease ended and whose row another gateway took and delivered neither sends nor records when it
//   resumes: by its clock (its lease is over) or by the row (no longer its claim).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { openPgDb } from "../db/tx-pg";
import { closeDb, type Db } from "../db/client";
import { pgState } from "../db/engine";
import { createTestDatabase, type TestDatabase } from "../testing/postgres";
import { Cipher } from "../secrets/cipher";
import { createMerchant } from "../merchants/service";
import { callbackRow, enqueueTestCallback } from "../testing/callbacks";
import { startReceiver, type Receiver } from "../testing/receiver";
import { eventually } from "../testing/wait";
import { systemClock, TestClock, type Clock } from "../lib/clock";
import { createLogger, silentLogger } from "../lib/logger";
import { ClusterBus } from "../cluster/notify";
import { CallbackWorker, type WorkerOptions } from "./worker";
import { CallbackWakeRelay } from "./cluster-wake";
import { callbackAttemptsOf } from "./resend";

let pgdb: TestDatabase;
let dbA: Db;
let dbB: Db;
let rx: Receiver;
const cipher = new Cipher(randomBytes(32));
let merchantId: number;
const HOST = "shop.test";
const toLocal = async () => ["127.0.0.1"];
/** Each test's own wake-ups only: never this process's callbacksDue(). */
const noWakeups = () => () => undefined;

beforeAll(async () => {
  pgdb = await createTestDatabase();
  dbA = openPgDb(pgdb.url, 4);
  dbB = openPgDb(pgdb.url, 4);
  rx = startReceiver();
  merchantId = (await createMerchant({ db: dbA, cipher, now: () => Date.now() }, { name: "shop" })).merchant.id;
});
afterAll(async () => {
  await rx.stop();
  await closeDb(dbA);
  await closeDb(dbB);
  await pgdb.drop();
});

const target = () => `http://${HOST}:${rx.port}/cb`;
const options = (db: Db, owner: string, over: Partial<WorkerOptions> = {}): WorkerOptions => ({
  db, cipher, clock: systemClock, logger: silentLogger, timeoutMs: 5_000, retryDelays: [1_000], concurrency: 4, allowPrivate: true, lookup: toLocal, owner, wakeups: noWakeups, ...over,
});
const received = (id: string) => rx.requests.filter((r) => (JSON.parse(r.text) as { eventId: string }).eventId === id).length;

test("a callback written on a gateway without a running worker is delivered by another at once, woken by the NOTIFY", async () => {
  const busA = new ClusterBus(pgState(dbA).pool, { self: "gw-a" });
  const busB = new ClusterBus(pgState(dbB).pool, { self: "gw-b" });
  await busA.start();
  await busB.start();
  const relayA = new CallbackWakeRelay({ publish: () => busA.wake(pgState(dbA).pool, "callbacks"), localRoom: () => false, clock: systemClock, logger: silentLogger }).start();
  const wakeups = (kick: () => void) => busB.onWake("callbacks", (fromSelf) => fromSelf || kick());
  // B polls every 2 minutes: only the wake-up delivers within the test's deadline.
  const workerB = new CallbackWorker(options(dbB, "gw-b", { pollMs: 120_000, wakeups }));
  await workerB.start();
  await workerB.poll(); // its start's poll is over: the next one is 2 minutes away
  try {
    const t0 = performance.now();
    const id = await enqueueTestCallback(dbA, { merchantId, url: target() });
    await eventually(async () => (await callbackRow(dbB, id))?.state === "delivered", 30_000, "B delivers A's callback");
    console.log(`delivered by the other gateway ${Math.round(performance.now() - t0)} ms after the commit`);
    expect(received(id)).toBe(1);
    expect(relayA.sent).toBe(1);
  } finally {
    relayA.stop();
    await workerB.stop();
    await busA.stop();
    await busB.stop();
  }
});

for (const resumed of ["its clock past the lease", "its clock still inside the lease (the row tells)"]) {
  test(`a gateway frozen after its claim, whose lease ended and whose row another delivered, neither sends nor records when it resumes: ${resumed}`, async () => {
    // A's clock is 2 minutes behind: the lease it writes (now + 5 s + 10 s) has ended for B at once.
    const clockA = new TestClock(Date.now() - 120_000);
    let thaw!: () => void;
    const thawed = new Promise<void>((r) => (thaw = r));
    let froze!: () => void;
    const frozen = new Promise<void>((r) => (froze = r));
    const logs: string[] = [];
    const workerA = new CallbackWorker(options(dbA, "gw-a", {
      clock: clockA as Clock,
      pollMs: 3_600_000,
      logger: createLogger({ level: "debug", sink: (l) => void logs.push(l) }),
      // Frozen between the claim and the send: the target's lookup waits for the thaw.
      lookup: async () => {
        froze();
        await thawed;
        return ["127.0.0.1"];
      },
    }));
    const id = await enqueueTestCallback(dbA, { merchantId, url: target(), now: clockA.now() });
    await workerA.start();
    await frozen;
    expect(await callbackRow(dbA, id)).toMatchObject({ state: "delivering", leaseOwner: "gw-a" });
    const workerB = new CallbackWorker(options(dbB, "gw-b", { pollMs: 100 }));
    await workerB.start();
    try {
      await eventually(async () => (await callbackRow(dbB, id))?.state === "delivered", 30_000, "B takes the ended lease and delivers");
    } finally {
      await workerB.stop();
    }
    if (resumed.startsWith("its clock past")) await clockA.advance(100_000);
    thaw();
    await eventually(() => logs.some((l) => l.includes("callback not sent: its claim ended")), 30_000, "A's attempt ends unsent");
    await workerA.stop();
    expect(received(id)).toBe(1);
    expect(await callbackAttemptsOf(dbA, id)).toHaveLength(1);
    expect(await callbackRow(dbA, id)).toMatchObject({ state: "delivered", attempts: 1, leaseOwner: null });
  });
}
