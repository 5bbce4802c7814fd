// The sandbox pay-in flow on the engine of the process (SG_TEST_DB=pg: PostgreSQL), with the
// gateway's own watcher (runtime.watchers, ticked here: jobs are off so nothing else ticks it) and
// callback worker: the checkout's "simulate" button pays an order, blocks complete it, and the
// merchant gets exactly one callback per status, in order. The clock stands still, so every event of
// an order is written in one millisecond (as a deep first sighting's detected and completed can
// be): they go out in the order they were written because the callbacks' sequence (migrations
// 0431) orders them, never their hashed ids.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { startReceiver, type Receiver } from "../testing/receiver";
import { startCallbackWorker, type CallbackWorker } from "../callbacks/worker";
import { verifyCallback } from "../sdk/callback";
import type { SandboxChain } from "../chains/sandbox/chain";
import { listCallbacks } from "../callbacks/resend";
import { TestClock } from "../lib/clock";

let gw: TestGateway;
let rx: Receiver;
let worker: CallbackWorker;
const CONFIRMATIONS = 3;
const clock = new TestClock(Date.now());

beforeAll(async () => {
  gw = await startTestGateway({ clock, jobs: false, config: { chains: { TRON: { confirmations: CONFIRMATIONS } } } });
  rx = startReceiver();
  worker = await startCallbackWorker(gw.ctx, { shutdownGraceMs: 500 });
});
afterAll(async () => {
  await worker.stop();
  await rx.stop();
  await gw.stop();
});

const tron = () => gw.ctx.chains.get("TRON") as SandboxChain;
const tick = async () => await gw.gateway.runtime.watchers.get("TRON")!.tick();
const create = (merchantOrderNo: string, amount: string) =>
  gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo, amount, notifyUrl: rx.url + "/cb" });
/** The statuses the merchant's endpoint received for an order, in arrival order. */
const received = (orderNo: string) => rx.requests.map((r) => JSON.parse(r.text) as { orderNo: string; status: string }).filter((b) => b.orderNo === orderNo).map((b) => b.status);
const waitForStatus = async (orderNo: string, status: string) => await rx.waitFor(() => received(orderNo).includes(status), 20_000);

test("simulate pays the order: detected, confirming, completed; one signed callback per status, in order", async () => {
  await tick(); // the cursor starts at the head
  const o = await create("flow-1", "7.25");
  const token = new URL(o.cashierUrl).pathname.split("/").pop()!;
  const res = await fetch(`${gw.url}/checkout/${token}/simulate`, { method: "POST" });
  expect(res.status).toBe(200);
  expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("detected");
  await tron().mine(1);
  await tick();
  expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("confirming");
  await tron().mine(CONFIRMATIONS);
  await tick();
  const done = await gw.client.getPayinOrder(o.orderNo);
  expect(done).toMatchObject({ status: "completed", paidAmount: "7.250000" });
  await waitForStatus(o.orderNo, "completed");
  // Later ticks change nothing and send nothing again.
  await tick();
  await Bun.sleep(500);
  expect(received(o.orderNo)).toEqual(["waiting_payment", "detected", "confirming", "completed"]);
  for (const r of rx.requests) expect(verifyCallback(r.raw, r.headers, gw.merchant.apiKey)).toBe(true);
  expect((await listCallbacks(gw.ctx.db, { orderNo: o.orderNo })).map((c) => c.state)).toEqual(["delivered", "delivered", "delivered", "delivered"]);
});

test("a deep first sighting (detected and completed in one millisecond) is delivered detected first, for every order", async () => {
  await tick();
  const orders = [];
  for (let i = 0; i < 8; i++) orders.push(await create(`deep-${i}`, `${11 + i}.5`));
  for (const o of orders) await waitForStatus(o.orderNo, "waiting_payment");
  // The worker is off while the watcher sees the payments: every order's detected and completed wait together.
  await worker.stop();
  for (const o of orders) await tron().transfer({ token: "USDT", to: o.address, amount: BigInt(o.amount.replace(".", "")) });
  await tron().mine(CONFIRMATIONS + 1);
  await tick();
  worker = await startCallbackWorker(gw.ctx, { shutdownGraceMs: 500 });
  for (const o of orders) {
    expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("completed");
    await waitForStatus(o.orderNo, "completed");
  }
  await Bun.sleep(300);
  for (const o of orders) {
    const rows = await listCallbacks(gw.ctx.db, { orderNo: o.orderNo });
    // One millisecond: the creation time cannot order them.
    expect(new Set(rows.map((r) => r.createdAt)).size).toBe(1);
    expect(received(o.orderNo)).toEqual(["waiting_payment", "detected", "completed"]);
  }
});
