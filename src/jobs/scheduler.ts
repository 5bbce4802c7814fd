// Periodic jobs on the injected clock (src/lib/clock.ts), so a test moves time instead of
// waiting for a job to run. Whole-second jobs run on a lattice of whole seconds plus their
// phase (src/jobs/phases.ts: heavy jobs never due in the same 100 ms window, light ones spread
// over the second), the first on the first point of it after start, then every interval;
// faster ones (sandbox BSC blocks every 450 ms) wait their interval after each run. A job never
// overlaps itself, and stop() waits for runs in flight.
import { type Clock, type Timer, systemClock } from "../lib/clock";
import type { Logger } from "../lib/logger";
import { LogLimiter } from "../lib/log-limit";
import { describeFault, isStorageFault } from "../db/storage-fault";
import { firstDue, onLattice, PhasePlan } from "./phases";

interface Job {
  name: string;
  running: Promise<void> | null;
  timer: Timer | null;
}

/** A job's place on the scheduler's lattice: due times are origin + phase + k·interval. */
export interface Lattice {
  origin: number;
  phase: number;
}

/**
 * Delay of a job's next run. Whole-second jobs: the first run on the first lattice point after
 * now (without a lattice: the next whole second); then at least `ms` after the last due time,
 * on the job's sub-second offset (a run that overran skips to the next second at that offset).
 */
export function nextDelay(ms: number, now: number, lastDue: number | null, lattice?: Lattice): { delay: number; due: number } {
  if (!onLattice(ms)) return { delay: ms, due: now + ms };
  const { origin, phase } = lattice ?? { origin: 0, phase: 0 };
  const second = firstDue(1000, phase % 1000, origin, now);
  let due = lastDue !== null ? Math.max(lastDue + ms, second) : lattice ? firstDue(ms, phase, origin, now) : second;
  // A wall clock set back must not stall a job for that long: at most one interval away.
  if (due - now > ms) due = second;
  return { delay: due - now, due };
}

/** Runs longer than this are logged at debug level. */
export const SLOW_JOB_MS = 50;

export class Scheduler {
  private jobs: Job[] = [];
  private services: Array<{ name: string; stop: () => Promise<void> }> = [];
  private stopped = false;
  /** The lattice's origin: the first whole second after the scheduler was made. */
  private readonly origin: number;
  private readonly phases = new PhasePlan();
  /** Each job's interval and phase, in registration order (tests check the plan the gateway runs). */
  readonly plan: Array<{ name: string; everyMs: number; heavy: boolean; phase: number }> = [];
  /** A full disk fails every job every second: one line per job per minute, with a count. */
  private readonly limited: LogLimiter;
  constructor(
    private readonly logger: Logger,
    private readonly clock: Clock = systemClock,
  ) {
    this.limited = new LogLimiter(logger, () => clock.now());
    this.origin = Math.floor(clock.now() / 1000) * 1000 + 1000;
  }

  /** Runs `fn` every `ms`; `heavy` for jobs that walk tables or do per-row work (src/jobs/phases.ts). */
  every(name: string, ms: number, fn: () => Promise<unknown> | unknown, opts: { heavy?: boolean } = {}): void {
    const job: Job = { name, running: null, timer: null };
    const heavy = opts.heavy ?? false;
    const lattice = { origin: this.origin, phase: this.phases.place({ everyMs: ms, heavy }) };
    this.plan.push({ name, everyMs: ms, heavy, phase: lattice.phase });
    let lastDue: number | null = null;
    const arm = () => {
      if (this.stopped) return;
      const { delay, due } = nextDelay(ms, this.clock.now(), lastDue, lattice);
      lastDue = due;
      job.timer = this.clock.after(delay, async () => void run());
    };
    const run = async () => {
      job.timer = null;
      if (this.stopped) return;
      job.running = (async () => {
        const started = performance.now();
        try {
          await fn();
          // Wall time, awaits included (an RPC-bound job is slow without holding the loop): for
          // operators and the growth bench, which lines it up with event-loop stalls.
          const ms = performance.now() - started;
          if (ms > SLOW_JOB_MS) this.logger.debug("job ran long", { job: name, ms: Math.round(ms) });
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
