// TestClock's timer semantics, case by case: what fires on advance/set, in which order, at
// what time; and the system clock's real timers.
import { describe, expect, test } from "bun:test";
import { type Clock, sleep, systemClock, TestClock } from "./clock";

const T0 = Date.parse("2026-11-21T00:00:00.000Z");

/** Something a case does to the clock; `log` records [label, clock time] as timers fire. */
type Step = (c: TestClock, log: Array<[string, number]>) => unknown;
const at = (label: string, ms: number): Step => (c, log) => void c.after(ms, () => log.push([label, c.now()]));
const advance = (ms: number): Step => (c) => c.advance(ms);
const set = (ms: number): Step => (c) => c.set(T0 + ms);

interface Case {
  name: string;
  steps: Step[];
  /** Fired timers, in order, with the time each saw (offsets from T0). */
  fired: Array<[string, number]>;
  /** Clock time at the end (offset from T0). */
  now: number;
}

const cases: Case[] = [
  { name: "nothing fires while time stands still", steps: [at("a", 10)], fired: [], now: 0 },
  { name: "a timer fires once time reaches it", steps: [at("a", 10), advance(10)], fired: [["a", 10]], now: 10 },
  { name: "not before", steps: [at("a", 10), advance(9)], fired: [], now: 9 },
  { name: "due timers fire earliest first, each seeing the new time", steps: [at("late", 30), at("early", 10), at("mid", 20), advance(50)], fired: [["early", 50], ["mid", 50], ["late", 50]], now: 50 },
  { name: "ties fire in the order they were set", steps: [at("x", 5), at("y", 5), at("z", 5), advance(5)], fired: [["x", 5], ["y", 5], ["z", 5]], now: 5 },
  { name: "only the due ones fire; the rest wait for the next advance", steps: [at("a", 10), at("b", 100), advance(50), advance(50)], fired: [["a", 50], ["b", 100]], now: 100 },
  { name: "set() forward fires like advance()", steps: [at("a", 10), set(60_000)], fired: [["a", 60_000]], now: 60_000 },
  { name: "set() backward fires nothing; the timer keeps its due time", steps: [at("a", 10), set(-5_000), advance(5_009)], fired: [], now: 9 },
  { name: "a 0 ms timer fires on its own", steps: [at("now", 0)], fired: [["now", 0]], now: 0 },
  { name: "a negative delay counts as 0", steps: [at("now", -50)], fired: [["now", 0]], now: 0 },
  {
    name: "a cancelled timer never fires",
    steps: [(c, log) => c.after(10, () => log.push(["cancelled", c.now()])).cancel(), at("kept", 10), advance(10)],
    fired: [["kept", 10]],
    now: 10,
  },
  {
    name: "a timer set by a firing timer counts from the new time (a periodic job runs once per advance)",
    steps: [
      (c, log) => {
        const tick = () => {
          log.push(["tick", c.now()]);
          c.after(1000, tick);
        };
        c.after(1000, tick);
      },
      advance(10_000),
      advance(999),
      advance(1),
    ],
    fired: [["tick", 10_000], ["tick", 11_000]],
    now: 11_000,
  },
  {
    name: "a 0 ms timer set by a firing timer fires right after, on its own",
    steps: [(c, log) => c.after(10, () => (log.push(["first", c.now()]), c.after(0, () => log.push(["chained", c.now()])))), advance(10)],
    fired: [["first", 10], ["chained", 10]],
    now: 10,
  },
];

describe("TestClock timers", () => {
  for (const k of cases) {
    test(k.name, async () => {
      const c = new TestClock(T0);
      const log: Array<[string, number]> = [];
      for (const step of k.steps) await step(c, log);
      // A few turns of the event loop, where a real 0 ms timer would fire too; no time passes.
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      expect(log.map(([l, t]) => [l, t - T0])).toEqual(k.fired);
      expect(c.now() - T0).toBe(k.now);
    });
  }

  test("a stream of 0 ms timers (one per event-loop turn) does not keep advance() from finishing", async () => {
    const c = new TestClock(T0);
    let spinning = true;
    let fired = 0;
    const spin = () => {
      if (!spinning) return;
      c.after(0, () => fired++);
      setImmediate(spin);
    };
    spin();
    let due = false;
    c.after(1000, () => (due = true));
    await c.advance(1000);
    spinning = false;
    expect(due).toBe(true);
    expect(fired).toBeGreaterThan(0);
  });

  test("advance() resolves after the promise chains the timers started have run", async () => {
    const c = new TestClock(T0);
    const seen: string[] = [];
    c.after(10, () => void Promise.resolve().then(() => seen.push("then")).then(() => seen.push("then-then")));
    await c.advance(10);
    expect(seen).toEqual(["then", "then-then"]);
  });

  test("sleep() resolves when the clock passes it, or at once when aborted", async () => {
    const c = new TestClock(T0);
    let woke = false;
    const p = sleep(c, 250).then(() => (woke = true));
    await c.advance(249);
    expect(woke).toBe(false);
    await c.advance(1);
    await p;
    expect(woke).toBe(true);

    const abort = new AbortController();
    const q = sleep(c, 60_000, abort.signal);
    abort.abort();
    await q; // no advance needed
    expect(c.pending).toBe(0);
    await sleep(c, 1, AbortSignal.abort()); // already aborted: returns at once
  });

  test("a timer that throws does not stop the others", async () => {
    const c = new TestClock(T0);
    const seen: string[] = [];
    const err = console.error;
    console.error = () => {};
    try {
      c.after(1, () => {
        throw new Error("boom");
      });
      c.after(2, () => seen.push("after"));
      await c.advance(5);
    } finally {
      console.error = err;
    }
    expect(seen).toEqual(["after"]);
  });
});

describe("systemClock", () => {
  test("now() is Date.now() and timers are real", async () => {
    const clock: Clock = systemClock;
    expect(Math.abs(clock.now() - Date.now())).toBeLessThan(50);
    const t0 = performance.now();
    await sleep(clock, 20);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(15);
    let fired = false;
    clock.after(5, async () => (fired = true)).cancel();
    await Bun.sleep(15);
    expect(fired).toBe(false);
  });
});
