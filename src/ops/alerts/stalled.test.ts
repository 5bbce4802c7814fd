// scanner_stalled with the injected clock: a watcher that has not caught up for longer
// than ops.max_scan_lag makes /readyz 503 and fires once; its next good tick resolves it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { TestClock } from "../../lib/clock";
import { startTestGateway, type TestGateway } from "../../testing/harness";

let gw: TestGateway;
const clock = new TestClock(Date.now());
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, clock, config: { ops: { max_scan_lag: "2m" }, chains: { TRON: { enabled: false }, SOL: { enabled: false } } } });
});
afterAll(() => gw.stop());

test("scanner_stalled: 503 with the reason past ops.max_scan_lag, fires once, resolves on the next tick", async () => {
  const watcher = gw.gateway.runtime.watchers.get("BSC")!;
  await watcher.tick();
  expect((await fetch(gw.url + "/readyz")).status).toBe(200);

  clock.advance(2 * 60_000 + 1000);
  const r = await fetch(gw.url + "/readyz");
  expect(r.status).toBe(503);
  const body = (await r.json()) as { reasons: string[]; chains: Array<{ lagSeconds: number }> };
  expect(body.reasons).toEqual(["BSC: watcher 121 s behind the final head (ops.max_scan_lag 120 s)"]);
  expect(body.chains[0].lagSeconds).toBe(121);

  const alerts = gw.gateway.runtime.ops.alerts;
  expect((await alerts.tick()).fired.map((a) => `${a.condition}:${a.subject}`)).toEqual(["scanner_stalled:BSC"]);
  expect((await alerts.tick()).fired).toEqual([]);
  await watcher.tick();
  expect((await alerts.tick()).resolved.map((a) => a.condition)).toEqual(["scanner_stalled"]);
  expect((await fetch(gw.url + "/readyz")).status).toBe(200);
});
