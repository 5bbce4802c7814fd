// Periodic jobs on the injected clock (src/lib/clock.ts), so a test moves time instead of
// waiting for a job to run. Whole-second jobs run at second boundaries, the first at the
// next whole second after start, then every interval; faster ones (sandbox BSC blocks every
// 450 ms) wait their interval after each run. A job never overlaps itself, and stop() waits
// for runs in flight.
import { type Clock, type Timer, systemClock } from "../lib/clock";
import type { Logger } from "../lib/logger";
import { LogLimiter } from "../lib/log-limit";
import { describeFault, isStorageFault } from "../db/storage-fault";

interface Job {
  name: string;
  running: Promise<void> | null;
  timer: Timer | null;
}

/** Delay of a job's next run: whole-second jobs on the next second boundary at least `ms` after the last due time. */
export function nextDelay(ms: number, now: number, lastDue: number | null): { delay: number; due: number } {
  if (!(ms >= 1000 && ms % 1000 === 0)) return { delay: ms, due: now + ms };
  const boundary = Math.floor(now / 1000) * 1000 + 1000;
  let due = lastDue === null ? boundary : Math.max(lastDue + ms, boundary);
  // A wall clock set back must not stall a job for that long: at most one interval away.
  if (due - now > ms) due = boundary;
  return { delay: due - now, due };
}

export class Scheduler {
  private jobs: Job[] = [];
  private services: Array<{ name: string; stop: () => Promise<void> }> = [];
  private stopped = false;
  /** A full disk fails every job every second: one line per job per minute, with a count. */
  private readonly limited: LogLimiter;
  constructor(
    private readonly logger: Logger,
    private readonly clock: Clock = systemClock,
  ) {
    this.limited = new LogLimiter(logger, () => clock.now());
  }

  every(name: string, ms: number, fn: () => Promise<unknown> | unknown): void {
    const job: Job = { name, running: null, timer: null };
    let lastDue: number | null = null;
    const arm = () => {
      if (this.stopped) return;
      const { delay, due } = nextDelay(ms, this.clock.now(), lastDue);
      lastDue = due;
      job.timer = this.clock.after(delay, () => void run());
    };
    const run = async () => {
      job.timer = null;
      if (this.stopped) return;
      job.running = (async () => {
        try {
          await fn();
        } catch (e) {
          // At shutdown, runs cut off by aborted RPC calls are expected, not errors.
          if (this.stopped) this.logger.debug("job failed", { job: name, error: String((e as Error)?.stack ?? e) });
          else if (isStorageFault(e)) this.limited.log("error", `job:${name}`, "job failed: storage unavailable", { job: name, error: describeFault(e) });
          else this.logger.error("job failed", { job: name, error: String((e as Error)?.stack ?? e) });
        }
      })();
      await job.running;
      job.running = null;
      arm();
    };
    arm();
    this.jobs.push(job);
  }

  /** A long-running service (the callback worker) stopped together with the jobs. */
  service(name: string, stop: () => Promise<void>): void {
    this.services.push({ name, stop });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const j of this.jobs) j.timer?.cancel();
    await Promise.all([...this.jobs.map((j) => j.running), ...this.services.map((s) => s.stop())]);
  }
}
