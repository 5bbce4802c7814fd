// A create's callback handed straight from its transaction to the worker (callbacks/handoff.ts):
// claimed in the transaction that writes it, never a claim of its own; only while nothing older
// waits for a slot; a transaction rolled back hands nothing over. SQLite only: PostgreSQL's
// gateways claim with leases counted across them (no handoffs there).
import { afterAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { TEST_ENGINE } from "../testing/engines";
import { type Receiver, startReceiver } from "../testing/receiver";
import { eventually } from "../testing/wait";
import { listCallbackRows, type CallbackRow } from "./store";
import type { CallbackWorker } from "./worker";
import { PROCESS_ID } from "../lib/process-id";
import { writeTx } from "../db/client";
import { enqueueCallback } from "./outbox";
import { mapSeq } from "../lib/async-seq";
import { currentKey } from "../merchants/service";

const receivers: Receiver[] = [];
const gateways: TestGateway[] = [];
afterAll(async () => {
  for (const r of receivers) await r.stop();
  for (const g of gateways) await g.stop();
});

async function gateway(concurrency: number): Promise<{ g: TestGateway; worker: CallbackWorker; claims: () => number }> {
  const g = await startTestGateway({ config: { auth: { rate_limit_per_minute: 0 }, payin: { shared_pool_size: 20 }, callbacks: { concurrency, retry_delays: ["1m", "5m"] } } });
  gateways.push(g);
  const worker = g.gateway.runtime.callbackWorker!;
  // Counts the claim path's marks: a handed row has none.
  const store = (worker as unknown as { store: { mark: (...a: unknown[]) => Promise<boolean> } }).store;
  const mark = store.mark;
  let marks = 0;
  store.mark = async (...a) => (marks++, await mark(...a));
  // The start-up claim (nothing due) leaves the worker caught up.
  await eventually(async () => (worker as unknown as { caughtUp: boolean }).caughtUp, 5000, "the first claim");
  return { g, worker, claims: () => marks };
}

const rowOf = async (g: TestGateway, orderNo: string): Promise<CallbackRow> => (await listCallbackRows(g.ctx.db, { orderNo, limit: 5 }))[0]!;
const create = (g: TestGateway, no: string, url: string) =>
  g.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: no, amount: `1.${no.length}${no.charCodeAt(no.length - 1)}`, notifyUrl: url });

describe.skipIf(TEST_ENGINE === "pg")("a create's callback handed to the worker", () => {
  test("written claimed by this process in the create's transaction, delivered once with no claim of its own", async () => {
    const rx = startReceiver((_r, n) => (n === 0 ? { hang: true } : { status: 200 }));
    receivers.push(rx);
    const { g, claims } = await gateway(4);
    const o = await create(g, "h1", `${rx.url}/cb`);
    // The answer comes after the commit: the row is already the worker's, its lease this process's.
    const row = await rowOf(g, o.orderNo);
    expect(row.state).toBe("delivering");
    expect(row.leaseOwner).toBe(PROCESS_ID);
    expect(row.leaseUntil).toBeGreaterThan(row.createdAt);
    await rx.waitFor((r) => r.length === 1, 5000);
    const again = await create(g, "h2", `${rx.url}/cb`);
    await eventually(async () => (await rowOf(g, again.orderNo)).state === "delivered", 5000, "the second delivered");
    expect(rx.requests.map((r) => JSON.parse(r.text).orderNo)).toEqual([o.orderNo, again.orderNo]);
    expect(claims()).toBe(0);
    await rx.stop(); // the hanging answer ends: the first is retried later, never sent twice now
    await eventually(async () => (await rowOf(g, o.orderNo)).state === "pending", 5000, "the first's failed attempt recorded");
    expect((await rowOf(g, o.orderNo)).attempts).toBe(1);
  });

  test("no slot (the pool taken) or something older due: the row waits in the queue and goes out after, in order", async () => {
    const rx = startReceiver(() => ({ status: 200 }));
    receivers.push(rx);
    const { g, claims } = await gateway(1);
    // The first create's delivery holds the only slot until the gate opens.
    const slow = startReceiver(() => ({ hang: true }));
    receivers.push(slow);
    const first = await create(g, "q1", `${slow.url}/cb`);
    expect((await rowOf(g, first.orderNo)).state).toBe("delivering");
    await slow.waitFor((r) => r.length === 1, 5000);
    const queued = await mapSeq(["q2", "q3", "q4"], async (no) => await create(g, no, `${rx.url}/cb`));
    for (const q of queued) expect((await rowOf(g, q.orderNo)).state).toBe("pending");
    await slow.stop(); // the slot frees (an attempt that failed): the queue's rows are claimed, one at a time
    await eventually(async () => rx.requests.length === 3, 5000, "the queued three delivered");
    expect(rx.requests.map((r) => JSON.parse(r.text).orderNo)).toEqual(queued.map((q) => q.orderNo));
    expect(claims()).toBe(3);
  });

  test("a transaction rolled back after its handoff was offered: nothing written, nothing sent", async () => {
    const rx = startReceiver(() => ({ status: 200 }));
    receivers.push(rx);
    const { g } = await gateway(4);
    const event = { merchantId: g.merchant.id, kind: "payin" as const, orderNo: "PI20261130000000000000001", status: "pending", apiKeyId: (await currentKey(g.ctx.db, g.merchant.id))!.id, url: `${rx.url}/cb`, payload: { orderNo: "PI20261130000000000000001" }, now: Date.now() };
    await expect(
      writeTx(g.ctx.db, async (tx) => {
        await enqueueCallback(tx, event, { first: true });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    const o = await create(g, "r1", `${rx.url}/cb`);
    await eventually(async () => (await rowOf(g, o.orderNo)).state === "delivered", 5000, "a later create delivered");
    expect(await listCallbackRows(g.ctx.db, { orderNo: event.orderNo, limit: 5 })).toEqual([]);
    expect(rx.requests.map((r) => JSON.parse(r.text).orderNo)).toEqual([o.orderNo]);
  });
});
