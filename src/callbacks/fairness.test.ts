// The worker under load: a due delivery is never postponed by the stream of
// new callbacks, and one merchant's hanging endpoints never hold back another
// merchant's callbacks (DESIGN 7).
import { afterAll, describe, expect, test } from "bun:test";
import { TestClock } from "../lib/clock";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { type Receiver, startReceiver } from "../testing/receiver";
import { allInState, callbackRow, enqueueTestCallback } from "../testing/callbacks";
import { eventually } from "../testing/wait";
import { CallbackWorker, workerOptions } from "./worker";
import { mapSeq } from "../lib/async-seq";
import { listCallbackRows } from "./store";

const receivers: Receiver[] = [];
const gateways: TestGateway[] = [];
afterAll(async () => {
  for (const r of receivers) await r.stop();
  for (const g of gateways) await g.stop();
});
const receiver = (...a: Parameters<typeof startReceiver>) => {
  const r = startReceiver(...a);
  receivers.push(r);
  return r;
};

describe("a due delivery is never postponed", () => {
  test("a retry comes due (test clock) and is delivered while signed creates keep arriving", async () => {
    const clock = new TestClock();
    const g = await startTestGateway({ clock, config: { auth: { rate_limit_per_minute: 0 }, payin: { shared_pool_size: 200 }, callbacks: { retry_delays: ["1m", "5m"] } } });
    gateways.push(g);
    const rx = receiver((req) => (req.path === "/first" && !rx.requests.slice(0, -1).some((r) => r.path === "/first") ? { status: 500 } : { status: 200 }));
    const first = await g.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "first", amount: "1", notifyUrl: `${rx.url}/first` });
    await rx.waitFor((r) => r.some((x) => x.path === "/first"), 5000);
    const row = async () => (await listCallbackRows(g.ctx.db, { orderNo: first.orderNo, limit: 1 }))[0];
    await eventually(async () => (await row())?.attempts === 1, 5000, "first attempt recorded");
    expect((await row())?.state).toBe("pending");

    let creating = true;
    let created = 0;
    const load = Promise.all(
      Array.from({ length: 16 }, async (_, c) => {
        for (let i = 0; creating; i++) {
          await g.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `load-${c}-${i}`, amount: `${2 + c}.${i}`, notifyUrl: `${rx.url}/load` });
          created++;
        }
      }),
    );
    try {
      await eventually(() => created >= 50, 10_000, "creates under way");
      await clock.advance(61_000); // the retry is due now
      await eventually(async () => (await row())?.state === "delivered", 5000, "the due retry delivered during the create stream");
      expect((await row())?.attempts).toBe(2);
    } finally {
      creating = false;
      await load;
    }
  }, 30_000);

  test("kicks on every turn of the event loop (a callback committed each turn) do not starve the due poll", async () => {
    const clock = new TestClock();
    const g = await startTestGateway({ clock, jobs: false });
    gateways.push(g);
    const rx = receiver([{ status: 200 }]);
    const w = new CallbackWorker(workerOptions(g.ctx, { pollMs: 60_000 }));
    await w.start();
    const due = await enqueueTestCallback(g.ctx.db, { merchantId: g.merchant.id, url: `${rx.url}/due`, now: clock.now() + 1000 });
    let spinning = true;
    let n = 0;
    const spin = async () => {
      if (!spinning) return;
      // A callback for the future, and its kick: what every create does.
      await enqueueTestCallback(g.ctx.db, { merchantId: g.merchant.id, url: `${rx.url}/later`, now: clock.now() + 3_600_000 });
      n++;
      setImmediate(() => void spin());
    };
    await spin();
    try {
      await eventually(() => n > 100, 5000, "kicks under way");
      await clock.advance(1000);
      await eventually(async () => (await callbackRow(g.ctx.db, due))?.state === "delivered", 5000, "due callback delivered");
    } finally {
      spinning = false;
      await w.stop();
    }
  }, 30_000);
});

// Both engines: SQLite's planner (claim-plan.ts), PostgreSQL's fair claim (store.pg.ts CLAIM_SQL).
describe("fairness across merchants (DESIGN 7)", () => {
  test("merchant A's endpoints hang on 8 origins: merchant B's callbacks still arrive within 1 s each", async () => {
    const g = await startTestGateway({ jobs: false });
    gateways.push(g);
    const hanging = Array.from({ length: 8 }, () => receiver([{ hang: true }]));
    const fast = receiver([{ status: 200 }]);
    const a = g.merchant;
    const b = await g.newMerchant("B");
    const w = new CallbackWorker(workerOptions(g.ctx, { timeoutMs: 30_000, concurrency: 16, shutdownGraceMs: 100, pollMs: 200 }));
    try {
      for (const h of hanging) for (let i = 0; i < 20; i++) await enqueueTestCallback(g.ctx.db, { merchantId: a.id, url: `${h.url}/cb` });
      await w.start();
      // A's dead endpoints have taken the whole pool.
      await eventually(() => w.inFlightCount >= 16, 5000, "pool full of hanging deliveries");
      const delays: number[] = [];
      for (let i = 0; i < 10; i++) {
        const sent = Date.now();
        const id = await enqueueTestCallback(g.ctx.db, { merchantId: b.id, url: `${fast.url}/b`, now: sent });
        const got = await fast.waitFor((r) => r.some((x) => JSON.parse(x.text).eventId === id), 5000);
        delays.push(got.find((x) => JSON.parse(x.text).eventId === id)!.at - sent);
      }
      expect(Math.max(...delays)).toBeLessThan(1000);
    } finally {
      await w.stop();
    }
  }, 30_000);

  test("two merchants on one origin: A's path hangs, B's answers; B is not held behind A", async () => {
    const g = await startTestGateway({ jobs: false });
    gateways.push(g);
    const shared = receiver((req) => (req.path === "/a" ? { hang: true } : { status: 200 }));
    const a = g.merchant;
    const b = await g.newMerchant("B");
    const w = new CallbackWorker(workerOptions(g.ctx, { timeoutMs: 30_000, concurrency: 4, shutdownGraceMs: 100, pollMs: 200 }));
    try {
      for (let i = 0; i < 50; i++) await enqueueTestCallback(g.ctx.db, { merchantId: a.id, url: `${shared.url}/a` });
      await w.start();
      await shared.waitFor((r) => r.filter((x) => x.path === "/a").length >= w.perTarget, 5000);
      const sent = Date.now();
      const ids = await mapSeq(Array.from({ length: 10 }), async () => await enqueueTestCallback(g.ctx.db, { merchantId: b.id, url: `${shared.url}/b`, now: sent }));
      await eventually(async () => await allInState(g.ctx.db, ids, "delivered"), 5000, "B's callbacks delivered");
      const last = Math.max(...shared.requests.filter((x) => x.path === "/b").map((x) => x.at));
      expect(last - sent).toBeLessThan(1000);
      // A still holds only its share of that origin.
      expect(shared.requests.filter((x) => x.path === "/a").length).toBe(w.perTarget);
    } finally {
      await w.stop();
    }
  }, 30_000);
});

describe("a healthy endpoint and the pool", () => {
  test("an endpoint proven fast may use the whole pool for a burst (a hanging one keeps its share: worker.e2e.test.ts)", async () => {
    const g = await startTestGateway({ jobs: false });
    gateways.push(g);
    const quick = receiver([{ status: 200, delayMs: 150 }]);
    const w = new CallbackWorker(workerOptions(g.ctx, { timeoutMs: 30_000, concurrency: 4, shutdownGraceMs: 100, pollMs: 50 }));
    try {
      // One delivery first: it proves the endpoint fast.
      const first = await enqueueTestCallback(g.ctx.db, { merchantId: g.merchant.id, url: `${quick.url}/burst` });
      await w.start();
      await eventually(async () => (await callbackRow(g.ctx.db, first))?.state === "delivered", 5000, "first delivery");
      const burst = await mapSeq(Array.from({ length: 12 }), async () => await enqueueTestCallback(g.ctx.db, { merchantId: g.merchant.id, url: `${quick.url}/burst` }));
      let most = 0;
      await eventually(async () => {
        most = Math.max(most, w.inFlightCount);
        return await allInState(g.ctx.db, burst, "delivered");
      }, 10_000, "burst delivered");
      expect(most).toBeGreaterThan(w.perTarget);
      expect(most).toBeLessThanOrEqual(4);
    } finally {
      await w.stop();
    }
  }, 30_000);
});

// Both engines: the planner's failing cap (claim-plan.ts FAILING_AFTER, FAILING_SLOTS) and PostgreSQL's in CLAIM_SQL.
describe("a failing endpoint is probed, not flooded", () => {
  test("after FAILING_AFTER failures in a row an origin gets FAILING_SLOTS at a time, its other rows stay pending with no attempt spent; a success lifts the cap", async () => {
    const g = await startTestGateway({ jobs: false, config: { callbacks: { retry_delays: ["10m", "20m"] } } });
    gateways.push(g);
    let up = false;
    let open = 0;
    let maxOpen = 0;
    const opens: number[] = [];
    const rx = receiver(() => {
      open++;
      maxOpen = Math.max(maxOpen, open);
      opens.push(open);
      setTimeout(() => open--, 60);
      return up ? { status: 200, delayMs: 60 } : { status: 503, delayMs: 60 };
    });
    const w = new CallbackWorker(workerOptions(g.ctx, { timeoutMs: 5_000, concurrency: 16, shutdownGraceMs: 100, pollMs: 50 }));
    try {
      const ids = await mapSeq(Array.from({ length: 60 }), async () => await enqueueTestCallback(g.ctx.db, { merchantId: g.merchant.id, url: `${rx.url}/cb` }));
      await w.start();
      // The first claim takes perTarget (half the pool) of an origin nothing is known of.
      await rx.waitFor((r) => r.length >= w.perTarget, 5000);
      await eventually(() => rx.requests.length >= w.perTarget + 12, 10_000, "probes after the first failures");
      // Once failing: at most FAILING_SLOTS (2) requests open at a time.
      expect(Math.max(...opens.slice(w.perTarget + 2))).toBeLessThanOrEqual(2);
      const rows = await listCallbackRows(g.ctx.db, { limit: 100 });
      const attempted = rows.filter((r) => r.attempts > 0).length;
      expect(attempted).toBeLessThan(ids.length); // the rest wait, their attempts not spent
      expect(rows.filter((r) => r.state === "failed")).toEqual([]);
      // The endpoint is back: the first success lifts the cap and the backlog goes out.
      up = true;
      maxOpen = 0;
      // Every row that waited is delivered; the ones that failed before wait for their retry.
      const settled = (r: { state: string; attempts: number }) => r.state === "delivered" || (r.state === "pending" && r.attempts > 0);
      await eventually(async () => (await listCallbackRows(g.ctx.db, { limit: 100 })).every(settled), 10_000, "the waiting callbacks delivered");
      expect(maxOpen).toBeGreaterThan(2);
    } finally {
      await w.stop();
    }
  }, 30_000);
});
