// Periodic jobs: croner for whole-second schedules, a timer loop for faster
// ones (sandbox BSC blocks every 450 ms). A job never overlaps itself, and
// stop() waits for runs in flight.
import { Cron } from "croner";
import type { Logger } from "../lib/logger";

interface Job {
  name: string;
  running: Promise<void> | null;
  stop(): void;
}

export class Scheduler {
  private jobs: Job[] = [];
  private services: Array<{ name: string; stop: () => Promise<void> }> = [];
  private stopped = false;
  constructor(private readonly logger: Logger) {}

  every(name: string, ms: number, fn: () => Promise<unknown> | unknown): void {
    const job: Job = { name, running: null, stop: () => {} };
    const run = async () => {
      if (this.stopped || job.running) return;
      job.running = (async () => {
        try {
          await fn();
        } catch (e) {
          // At shutdown, runs cut off by aborted RPC calls are expected, not errors.
          this.logger[this.stopped ? "debug" : "error"]("job failed", { job: name, error: String((e as Error)?.stack ?? e) });
        }
      })();
      await job.running;
      job.running = null;
    };
    if (ms >= 1000 && ms % 1000 === 0) {
      const cron = new Cron("* * * * * *", { interval: ms / 1000, protect: true }, run);
      job.stop = () => cron.stop();
    } else {
      let timer: ReturnType<typeof setTimeout> | null = null;
      const loop = async () => {
        await run();
        if (!this.stopped) timer = setTimeout(loop, ms);
      };
      timer = setTimeout(loop, ms);
      job.stop = () => timer && clearTimeout(timer);
    }
    this.jobs.push(job);
  }

  /** A long-running service (the callback worker) stopped together with the jobs. */
  service(name: string, stop: () => Promise<void>): void {
    this.services.push({ name, stop });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const j of this.jobs) j.stop();
    await Promise.all([...this.jobs.map((j) => j.running), ...this.services.map((s) => s.stop())]);
  }
}
