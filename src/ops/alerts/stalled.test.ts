// scanner_stalled with the injected clock: a watcher that has not caught up for longer
// than ops.max_scan_lag makes /readyz 503 and fires once; its next good tick resolves it.
// A webhook that fails is retried after its backoff, not before.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { TestClock } from "../../lib/clock";
import { startTestGateway, type TestGateway } from "../../testing/harness";
import { startReceiver, type Receiver } from "../../testing/receiver";

const SECRET = "whsec_" + Buffer.from("stalled-secret-0123456789").toString("base64");
let gw: TestGateway;
let hook: Receiver;
const clock = new TestClock(Date.now());
beforeAll(async () => {
  hook = startReceiver([{ status: 500, body: "down" }, { status: 204 }]);
  gw = await startTestGateway({
    jobs: false,
    clock,
    config: { ops: { max_scan_lag: "2m" }, alerts: { webhook_url: hook.url, webhook_secret: SECRET }, chains: { TRON: { enabled: false }, SOL: { enabled: false } } },
  });
});
afterAll(async () => {
  await gw.stop();
  await hook.stop();
});

test("scanner_stalled: 503 with the reason past ops.max_scan_lag, fires once, resolves on the next tick", async () => {
  const watcher = gw.gateway.runtime.watchers.get("BSC")!;
  await watcher.tick();
  expect((await fetch(gw.url + "/readyz")).status).toBe(200);

  await clock.advance(2 * 60_000 + 1000);
  const r = await fetch(gw.url + "/readyz");
  expect(r.status).toBe(503);
  const body = (await r.json()) as { reasons: string[]; chains: Array<{ lagSeconds: number }> };
  expect(body.reasons).toEqual(["BSC: watcher 121 s behind the final head (ops.max_scan_lag 120 s)"]);
  expect(body.chains[0].lagSeconds).toBe(121);

  const alerts = gw.gateway.runtime.ops.alerts;
  expect((await alerts.tick()).fired.map((a) => `${a.condition}:${a.subject}`)).toEqual(["scanner_stalled:BSC"]);
  // The webhook answered 500: retried after 30 s of the injected clock, not at the next tick.
  expect(hook.requests).toHaveLength(1);
  expect((await alerts.tick()).fired).toEqual([]);
  expect(hook.requests).toHaveLength(1);
  await clock.advance(30_000);
  await alerts.tick();
  expect(hook.requests).toHaveLength(2);
  expect(hook.requests[0].headers["webhook-id"]).toBe(hook.requests[1].headers["webhook-id"]);
  expect(new Webhook(SECRET).verify(hook.requests[1].text, hook.requests[1].headers)).toMatchObject({ type: "alert.fired", data: { condition: "scanner_stalled", subject: "BSC" } });
  await watcher.tick();
  expect((await alerts.tick()).resolved.map((a) => a.condition)).toEqual(["scanner_stalled"]);
  expect((await fetch(gw.url + "/readyz")).status).toBe(200);
});
