// Event-loop stalls measured by timer drift: a timer asks to fire every `everyMs`;
// how late it fires is how long the loop was held. On a loaded machine a late
// timer may also mean the process was not scheduled, so each gap is also capped
// by the CPU time the loop's own thread used in it (`busy`): a real stall burns CPU
// on that thread. Other threads (the database maintenance worker, the JIT compiler,
// the garbage collector's helpers) do not hold the loop, so on Linux the thread's own
// time is read from /proc/thread-self/schedstat (ns); elsewhere the process's CPU time.
// (The gateway runs the same probe on itself: src/ops/loop-stalls.ts, read from /metrics.)
import { STALL_WINDOWS, threadCpuUs, windowOf } from "../../src/ops/loop-stalls";

export { STALL_WINDOWS };

export interface StallFigures {
  /** Longest timer lateness (wall clock). */
  max: number;
  p99: number;
  /** Longest lateness that the process spent on CPU (min of lateness and CPU used in the gap). */
  busyMax: number;
  /** When the longest on-CPU stall ended, ms after the sampler started. */
  busyAtMs: number;
  /** The longest on-CPU stall after the first `settleMs` (one-off start-up work: first job runs, lazy modules). */
  busyMaxSettled: number;
  /** Longest stall (wall, and on CPU) per window after the sampler started: [0, 1 s), [1 s, 3 s), [3 s, end). */
  windows: Array<{ label: string; wall: number; busy: number }>;
  samples: number;
}

export function stallSampler(everyMs = 5, settleMs = 3000): { stop(): StallFigures } {
  const lateness: number[] = [];
  let busyMax = 0;
  let busyAtMs = 0;
  let busyMaxSettled = 0;
  const windows = STALL_WINDOWS.map((w) => ({ label: w.label as string, wall: 0, busy: 0 }));
  const t0 = performance.now();
  let expected = t0 + everyMs;
  let cpu = threadCpuUs();
  const timer = setInterval(() => {
    const now = performance.now();
    const late = Math.max(0, now - expected);
    const c = threadCpuUs();
    const d = c - cpu;
    cpu = c;
    lateness.push(late);
    const busy = Math.min(late, d / 1000);
    if (busy > busyMax) [busyMax, busyAtMs] = [busy, now - t0];
    if (now - t0 > settleMs) busyMaxSettled = Math.max(busyMaxSettled, busy);
    // A stall belongs to the window it started in (the timer was due at `expected`).
    const w = windows[windowOf(expected - t0)]!;
    w.wall = Math.max(w.wall, late);
    w.busy = Math.max(w.busy, busy);
    expected = now + everyMs;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const s = [...lateness].sort((a, b) => a - b);
      return { max: s[s.length - 1] ?? 0, p99: s[Math.floor(s.length * 0.99)] ?? 0, busyMax, busyAtMs, busyMaxSettled, windows, samples: s.length };
    },
  };
}
