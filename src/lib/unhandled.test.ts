// The process-wide unhandled-rejection handler (review R11): a rejected promise nobody awaits is
// logged (masked) and counted. The test runner reports a real unhandled rejection itself, so the
// installed listener is called here directly; unhandled.e2e.test.ts rejects for real in the binary.
import { afterEach, expect, test } from "bun:test";
import { createLogger } from "./logger";
import { events } from "./event-metrics";
import { handleUnhandledRejections, logUnhandledRejectionsTo } from "./unhandled";

let remove: (() => void) | undefined;
afterEach(() => remove?.());

const counted = async () => (await events.getSingleMetric("stablegate_unhandled_rejections_total")!.get()).values[0]?.value ?? 0;

test("R11: a rejection nobody awaits is logged masked and counted", async () => {
  const early: string[] = [];
  const lines: string[] = [];
  remove = handleUnhandledRejections(createLogger({ sink: (l) => early.push(l) }));
  logUnhandledRejectionsTo(createLogger({ sink: (l) => lines.push(l) })); // the gateway's logger, once it exists
  const before = await counted();
  const key = "mch_" + "a1B2c3D4e5F6g7H8i9J0k1L2";
  const listeners = process.listeners("unhandledRejection");
  expect(listeners).toHaveLength(1);
  (listeners[0] as (r: unknown) => void)(new Error(`storing rates failed for ${key}`));
  expect(await counted()).toBe(before + 1);
  expect(early).toEqual([]);
  expect(lines).toHaveLength(1);
  const rec = JSON.parse(lines[0]!) as { level: string; msg: string; error: string };
  expect(rec.level).toBe("error");
  expect(rec.msg).toContain("unhandled promise rejection");
  expect(rec.error).toContain("storing rates failed for mch_a1B2");
  expect(lines[0]).not.toContain(key);
});

test("R11: without an installed handler, logUnhandledRejectionsTo installs nothing", async () => {
  const lines: string[] = [];
  logUnhandledRejectionsTo(createLogger({ sink: (l) => lines.push(l) }));
  expect(process.listeners("unhandledRejection").length).toBe(0);
  expect(lines).toEqual([]);
});
