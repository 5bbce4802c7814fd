// The job loop on a TestClock: when jobs run, that they never overlap, and that stop()
// waits for a run in flight, without waiting for real time.
import { describe, expect, test } from "bun:test";
import { TestClock } from "../lib/clock";
import { createLogger } from "../lib/logger";
import { nextDelay, Scheduler } from "./scheduler";

const T0 = Date.parse("2026-11-21T00:00:00.000Z");
const quiet = createLogger({ level: "error", sink: () => {} });

describe("nextDelay", () => {
  const cases: Array<{ name: string; ms: number; now: number; lastDue: number | null; delay: number }> = [
    { name: "sub-second jobs wait their interval after each run", ms: 450, now: T0 + 123, lastDue: null, delay: 450 },
    { name: "whole-second jobs start at the next second boundary", ms: 60_000, now: T0 + 250, lastDue: null, delay: 750 },
    { name: "exactly on a boundary: the next one", ms: 1000, now: T0, lastDue: null, delay: 1000 },
    { name: "then every interval after the last due time", ms: 5000, now: T0 + 1010, lastDue: T0 + 1000, delay: 4990 },
    { name: "a run that overran skips to the next boundary (never overlaps, never bunches up)", ms: 1000, now: T0 + 3400, lastDue: T0 + 1000, delay: 600 },
    { name: "a wall clock set back an hour does not stall the job: the next boundary", ms: 60_000, now: T0 - 3_600_000 + 300, lastDue: T0, delay: 700 },
  ];
  for (const k of cases) test(k.name, () => expect(nextDelay(k.ms, k.now, k.lastDue).delay).toBe(k.delay));
});

describe("Scheduler on a TestClock", () => {
  test("jobs run as the clock moves, once per due time", async () => {
    const clock = new TestClock(T0 + 500);
    const s = new Scheduler(quiet, clock);
    const runs: Record<string, number[]> = { fast: [], slow: [] };
    s.every("fast", 450, () => runs.fast.push(clock.now() - T0));
    s.every("slow", 5000, () => runs.slow.push(clock.now() - T0));
    await clock.advance(449);
    expect(runs).toEqual({ fast: [], slow: [] });
    await clock.advance(1); // T0+950
    await clock.advance(50); // T0+1000: the first whole second
    expect(runs).toEqual({ fast: [950], slow: [1000] });
    await clock.advance(5000); // T0+6000
    expect(runs).toEqual({ fast: [950, 6000], slow: [1000, 6000] });
    await s.stop();
    await clock.advance(60_000);
    expect(runs).toEqual({ fast: [950, 6000], slow: [1000, 6000] });
  });

  test("a job never overlaps itself, and stop() waits for the run in flight", async () => {
    const clock = new TestClock(T0);
    const s = new Scheduler(quiet, clock);
    let release!: () => void;
    let started = 0;
    let finished = 0;
    s.every("slow", 1000, async () => {
      started++;
      await new Promise<void>((r) => (release = r));
      finished++;
    });
    await clock.advance(1000);
    expect(started).toBe(1);
    await clock.advance(10_000); // still running: no second run
    expect(started).toBe(1);
    const stopped = s.stop().then(() => "stopped");
    expect(await Promise.race([stopped, Promise.resolve("waiting")])).toBe("waiting");
    release();
    expect(await stopped).toBe("stopped");
    expect(finished).toBe(1);
  });

  test("a failing run is logged and the job keeps its schedule", async () => {
    const clock = new TestClock(T0);
    const lines: string[] = [];
    const s = new Scheduler(createLogger({ level: "error", sink: (l) => lines.push(l) }), clock);
    let n = 0;
    s.every("flaky", 1000, () => {
      if (++n === 1) throw new Error("node down");
    });
    await clock.advance(1000);
    await clock.advance(1000);
    expect(n).toBe(2);
    expect(lines.some((l) => l.includes("job failed") && l.includes("node down"))).toBe(true);
    await s.stop();
  });

  test("heavy jobs run at their phases, 100 ms apart, not in one turn; light ones spread over the second", async () => {
    const clock = new TestClock(T0 + 500);
    const s = new Scheduler(quiet, clock);
    const runs: Array<[string, number]> = [];
    const note = (name: string) => () => void runs.push([name, clock.now() - T0]);
    s.every("expire", 1000, note("expire"));
    s.every("reconcile-A", 60_000, note("reconcile-A"), { heavy: true });
    s.every("reconcile-B", 60_000, note("reconcile-B"), { heavy: true });
    s.every("watch", 1000, note("watch"));
    for (let t = 0; t < 1300; t += 10) await clock.advance(10); // to T0+1800
    expect(runs).toEqual([
      ["expire", 1000],
      ["watch", 1040],
      ["reconcile-A", 1100],
      ["reconcile-B", 1200],
    ]);
    expect(s.plan.map((j) => [j.name, j.phase])).toEqual([
      ["expire", 0],
      ["reconcile-A", 100],
      ["reconcile-B", 200],
      ["watch", 40],
    ]);
    await clock.advance(59_250); // T0+61050: the next minute, each at its phase again
    for (let t = 0; t < 300; t += 10) await clock.advance(10);
    expect(runs.filter(([n]) => n.startsWith("reconcile")).map(([, t]) => t)).toEqual([1100, 1200, 61_100, 61_200]);
    await s.stop();
  });
});
