// Event-loop stalls of the running gateway, measured inside its process (issue 37, DESIGN 11:
// no job holds the loop for more than 50 ms): a timer asks to fire every `everyMs`; how late it
// fires is how long the loop was held. On a loaded machine a late timer may also mean the
// process was not scheduled, so each gap is also capped by the CPU time the loop's own thread
// used in it (a real stall burns CPU on that thread; the maintenance and backup workers, the JIT
// and the collector's helpers run on others). Kept per window since the gateway started: the
// first second (every job's first run), 1-3 s, and after; exported on /metrics.
import { readFileSync } from "node:fs";

/** The windows stalls are kept in, from the gateway's start. */
export const STALL_WINDOWS = [
  { label: "0-1s", untilMs: 1000 },
  { label: "1-3s", untilMs: 3000 },
  { label: "3s+", untilMs: Infinity },
] as const;

export interface StallWindow {
  label: string;
  /** Longest timer lateness (ms, wall clock). */
  wall: number;
  /** Longest lateness the loop's thread spent on CPU (ms). */
  cpu: number;
}

const SCHEDSTAT = "/proc/thread-self/schedstat";
let schedstat = true;
/** The calling thread's CPU clock (Bun, Node 23.9+): a clock_gettime, ~2.5 µs; reading schedstat is an open/read/close, ~40 µs, 100 times a second. */
const threadCpu = (process as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage;
/** CPU time (µs) of the calling thread where the OS tells it (Linux), else of the whole process. */
export function threadCpuUs(): number {
  if (threadCpu) {
    const u = threadCpu.call(process);
    return u.user + u.system;
  }
  if (schedstat) {
    try {
      return Number(readFileSync(SCHEDSTAT, "utf8").split(" ")[0]) / 1000;
    } catch {
      schedstat = false;
    }
  }
  const c = process.cpuUsage();
  return c.user + c.system;
}

/** Which window a stall that began `sinceStartMs` after the start belongs to. */
export function windowOf(sinceStartMs: number): number {
  return STALL_WINDOWS.findIndex((w) => sinceStartMs < w.untilMs);
}

export class LoopStallProbe {
  private timer: ReturnType<typeof setInterval> | null = null;
  private t0 = 0;
  readonly windows: StallWindow[] = STALL_WINDOWS.map((w) => ({ label: w.label, wall: 0, cpu: 0 }));

  constructor(private readonly everyMs = 10) {}

  start(): void {
    if (this.timer) return;
    this.t0 = performance.now();
    let expected = this.t0 + this.everyMs;
    let cpu = threadCpuUs();
    this.timer = setInterval(() => {
      const now = performance.now();
      const late = Math.max(0, now - expected);
      const c = threadCpuUs();
      const onCpu = Math.min(late, (c - cpu) / 1000);
      cpu = c;
      // A stall belongs to the window it began in (when the timer was due).
      const w = this.windows[windowOf(expected - this.t0)]!;
      w.wall = Math.max(w.wall, late);
      w.cpu = Math.max(w.cpu, onCpu);
      expected = now + this.everyMs;
    }, this.everyMs);
    // Never what keeps a stopping process alive.
    (this.timer as { unref?: () => void }).unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
