// Measured detection (DESIGN 25): the percentiles as a table, and on a sandbox gateway with the
// injected clock a payment seen 2 minutes after its block fires detection_slow for its chain
// (ops.detection_slo 60 s), is kept in detection_times with its completion, and is observed in
// the histograms.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TestClock } from "../lib/clock";
import { startTestGateway, type TestGateway } from "../testing/harness";
import type { SandboxChain } from "../chains/sandbox/chain";
import { detectionTimes } from "../db/schema";
import { events } from "../lib/event-metrics";
import { startReceiver, type Receiver } from "../testing/receiver";
import { sandboxClient } from "../testing/sandbox";
import { eventually } from "../testing/wait";
import { tableRows } from "../testing/engine-rows";
import { detectionStats, DAY_MS, nearestRank, summarize } from "./detection";

describe("percentiles", () => {
  const cases: Array<[values: number[], p: number, expected: number | null]> = [
    [[], 50, null],
    [[7], 50, 7],
    [[7], 95, 7],
    [[1, 2, 3, 4], 50, 2],
    [[1, 2, 3, 4], 95, 4],
    [Array.from({ length: 100 }, (_, i) => i + 1), 95, 95],
    [Array.from({ length: 100 }, (_, i) => i + 1), 50, 50],
  ];
  for (const [values, p, expected] of cases) test(`p${p} of ${values.length} values is ${expected}`, () => expect(nearestRank(values, p)).toBe(expected));

  test("per chain: block → seen of every sample, block → completed and completed → callback of those that got there", () => {
    const s = summarize([
      { chain: "TRON", blockTime: 0, seenAt: 3000, completedAt: 60_000, callbackAt: 61_000 },
      { chain: "TRON", blockTime: 0, seenAt: 5000, completedAt: null, callbackAt: null },
      { chain: "BSC", blockTime: 10_000, seenAt: 9_000, completedAt: 20_000, callbackAt: null },
    ]);
    expect(s).toEqual([
      { chain: "BSC", detection: { count: 1, p50: 0, p95: 0 }, completion: { count: 1, p50: 10, p95: 10 }, callback: { count: 0, p50: null, p95: null } },
      { chain: "TRON", detection: { count: 2, p50: 3, p95: 5 }, completion: { count: 1, p50: 60, p95: 60 }, callback: { count: 1, p50: 1, p95: 1 } },
    ]);
  });
});

describe("detection_slow on a sandbox gateway", () => {
  const clock = new TestClock(Date.now());
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ jobs: false, clock, config: { ops: { detection_slo: "60s" }, chains: { TRON: { confirmations: 1 } } } });
  });
  afterAll(() => gw.stop());

  test("a payment seen 2 minutes after its block: kept, observed, and detection_slow fires for TRON", async () => {
    const o = await gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "slow-1", amount: "3", notifyUrl: "https://shop.example/cb" });
    const tron = gw.ctx.chains.get("TRON") as SandboxChain;
    const watcher = gw.gateway.runtime.watchers.get("TRON")!;
    await watcher.tick();
    await tron.transfer({ token: "USDT", to: o.address, amount: 3_000_000n });
    await clock.advance(120_000);
    await watcher.tick();
    expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("completed");
    const [row] = await tableRows(gw.ctx.db, detectionTimes);
    expect(row).toMatchObject({ chain: "TRON", orderNo: o.orderNo });
    expect(row!.seenAt - row!.blockTime).toBe(120_000);
    expect(row!.completedAt).toBe(row!.seenAt);
    expect((await detectionStats(gw.ctx.db, clock.now(), DAY_MS))[0]).toMatchObject({ chain: "TRON", detection: { count: 1, p95: 120 }, completion: { count: 1, p95: 120 } });

    const text = await events.metrics();
    expect(text).toMatch(/stablegate_detection_seconds_bucket\{le="120",chain="TRON"\} [1-9]/);
    expect(text).toMatch(/stablegate_completion_seconds_count\{chain="TRON"\} [1-9]/);

    const fired = (await gw.gateway.runtime.ops.alerts.tick()).fired.filter((a) => a.condition === "detection_slow");
    expect(fired.map((a) => `${a.condition}:${a.subject}`)).toEqual(["detection_slow:TRON"]);
    expect(fired[0]!.message).toContain("120 s after their block");
    // An hour later the sample is out of the window: resolved.
    await clock.advance(61 * 60_000);
    expect((await gw.gateway.runtime.ops.alerts.tick()).resolved.map((a) => a.condition)).toContain("detection_slow");
  });
});

describe("the completed callback's 2xx", () => {
  let gw: TestGateway;
  let shop: Receiver;
  beforeAll(async () => {
    shop = startReceiver();
    gw = await startTestGateway({ config: { chains: { TRON: { confirmations: 1 } } } });
  });
  afterAll(async () => {
    await gw.stop();
    await shop.stop();
  });

  test("is kept on the transfer's detection row and observed in stablegate_callback_delay_seconds", async () => {
    const o = await gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "cb-1", amount: "4", notifyUrl: shop.url });
    await sandboxClient(gw.url).transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "4" });
    await eventually(async () => (await tableRows(gw.ctx.db, detectionTimes)).some((r) => r.orderNo === o.orderNo && r.callbackAt !== null), 15_000, "the completed callback delivered");
    const row = (await tableRows(gw.ctx.db, detectionTimes)).find((r) => r.orderNo === o.orderNo)!;
    expect(row.callbackAt!).toBeGreaterThanOrEqual(row.completedAt!);
    expect(await events.metrics()).toMatch(/stablegate_callback_delay_seconds_count [1-9]/);
  });
});
