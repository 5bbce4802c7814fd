// The leader's work, started and stopped with the leadership (DESIGN 22 "Cluster roles"): the
// chain watchers, the payout executor, collection, energy, rates, backups and the scheduled jobs
// run on the leader only. `start` runs on `gained` with the epoch (the payout store passes it to
// assertEpoch); on `lost` the work is told to stop at once, in the same turn as the event, and a
// start still under way is stopped as soon as it finishes. A gateway that leads again later
// starts afresh under its new epoch.
import type { LeaderElector } from "./leader";

export interface Stoppable {
  stop(): Promise<void>;
}

export interface LeaderWork {
  /** The epoch the running work was started under; null when none runs. */
  epoch(): number | null;
  /** Stops following the elector and stops the work (a gateway's shutdown). */
  stop(): Promise<void>;
}

export function whileLeader(elector: Pick<LeaderElector, "on">, start: (epoch: number) => Promise<Stoppable>, onError?: (e: unknown) => void): LeaderWork {
  const report = (e: unknown) => onError?.(e);
  /** The work of the epoch led now (it never rejects: a failed start is reported and is null). */
  let running: { epoch: number; work: Promise<Stoppable | null> } | null = null;
  /** Every stop so far, in order: new work starts only once the old one has stopped. */
  let stopping: Promise<void> = Promise.resolve();
  const stopRunning = (): Promise<void> => {
    const r = running;
    running = null;
    if (r) stopping = stopping.then(async () => void (await (await r.work)?.stop())).catch(report);
    return stopping;
  };
  const launch = async (after: Promise<void>, epoch: number): Promise<Stoppable | null> => {
    await after;
    try {
      return await start(epoch);
    } catch (e) {
      report(e);
      return null;
    }
  };
  const offGained = elector.on("gained", (epoch) => {
    running = { epoch, work: launch(stopRunning(), epoch) };
  });
  const offLost = elector.on("lost", () => void stopRunning());
  return {
    epoch: () => running?.epoch ?? null,
    async stop() {
      offGained();
      offLost();
      await stopRunning();
    },
  };
}
