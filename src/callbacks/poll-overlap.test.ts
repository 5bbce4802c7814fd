// Polls of the callback worker never overlap (review R4). On PostgreSQL every store read of a
// poll is a round trip, and a kick (a committed callback) or a finished delivery arriving then
// used to start a second poll: both planned from the same `inflight`, both claimed the row, the
// second launch (its mark refused) replaced the real delivery in `inflight` and erased it, so
// the limits undercounted it and stop() neither waited for it nor aborted it. Here the worker's
// due-row read is held open (a round trip that does not come back until the test says so)
// while two kicks arrive.
import { afterAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { startReceiver, type Receiver } from "../testing/receiver";
import { callbackRow, enqueueTestCallback } from "../testing/callbacks";
import { eventually } from "../testing/wait";
import { systemClock } from "../lib/clock";
import { CallbackWorker, workerOptions } from "./worker";

let g: TestGateway;
let rx: Receiver;
afterAll(async () => {
  await rx?.stop();
  await g?.stop();
});

test("R4: kicks during a poll start no second poll; the delivery stays in flight and stop() waits for it", async () => {
  g = await startTestGateway({ jobs: false, config: { callbacks: { allow_private_targets: true } } });
  rx = startReceiver(() => ({ status: 200, delayMs: 400 }));
  const w = new CallbackWorker(workerOptions(g.ctx, { clock: systemClock, pollMs: 60_000, timeoutMs: 5000, allowPrivate: true, concurrency: 4 }));
  const st = (w as unknown as { store: Record<string, (...a: unknown[]) => Promise<unknown>> }).store;
  // The poll's read of due rows: the planner's page on SQLite, the leased claim on PostgreSQL.
  const read = st.claimLeased ? "claimLeased" : "due";
  const due = st[read]!;
  let dueCalls = 0;
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  st[read] = async (...a: unknown[]) => {
    dueCalls++;
    const rows = await due(...a);
    await gate; // the answer is on the wire
    return rows;
  };
  const id = await enqueueTestCallback(g.ctx.db, { merchantId: g.merchant.id, url: `${rx.url}/cb` });
  await w.start(); // a poll at 0 ms
  await eventually(() => dueCalls >= 1, 10_000, "the first poll reads the due rows");
  w.kick(); // callbacks committed elsewhere while the poll waits on its read
  w.kick();
  await Bun.sleep(50); // room for a second poll to reach its read
  expect(dueCalls).toBe(1);
  open();
  await eventually(() => rx.requests.length === 1, 10_000, "the callback is sent");
  expect(w.inFlightCount).toBe(1); // the receiver answers after 400 ms
  await w.stop(); // waits for the delivery and its outcome
  expect(rx.requests.length).toBe(1);
  expect((await callbackRow(g.ctx.db, id))?.state).toBe("delivered");
}, 30_000);
