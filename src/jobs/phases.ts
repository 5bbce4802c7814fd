// Where in its period each job runs (issue 37, DESIGN 11 "no job holds the event loop for more
// than 50 ms"). Whole-second jobs run on one lattice per scheduler: the due times of a job with
// period P and phase φ are origin + φ + k·P (origin: the first whole second after the scheduler
// was made), its first run the first of them after start, so every job runs within its period.
// Without phases every job's first run landed in the same turn of the event loop (175 ms held
// in the first second on the growth bench), and jobs with a common period met again there.
// Heavy jobs (database walks, per-chain reconcile) take phases at least HEAVY_GAP_MS apart
// modulo the gcd of their periods, so no two of them are ever due in the same 100 ms window;
// light ones (a few ms: a poll, a stat) are spread LIGHT_STEP_MS apart so they do not pile up
// in one turn either. Deterministic: the same jobs in the same order get the same phases.

export interface JobSpec {
  name: string;
  everyMs: number;
  /** Walks tables or does per-row work (reconcile, retention, alerts): kept apart from the others. */
  heavy: boolean;
}

/** Heavy jobs are never due within this of one another. */
export const HEAVY_GAP_MS = 100;
/** The first heavy phase: the first whole second after start belongs to the light jobs. */
export const HEAVY_FIRST_MS = 100;
/** Light jobs' phases step by this within the second. */
export const LIGHT_STEP_MS = 40;

/** Jobs on the whole-second lattice; faster ones (a 250 ms or 450 ms loop) wait their interval after each run. */
export function onLattice(everyMs: number): boolean {
  return everyMs >= 1000 && everyMs % 1000 === 0;
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** Distance of two phases on the circle where jobs of periods p and q meet again (their gcd). */
export function phaseDistance(a: { phase: number; everyMs: number }, b: { phase: number; everyMs: number }): number {
  const g = gcd(a.everyMs, b.everyMs);
  const d = (((a.phase - b.phase) % g) + g) % g;
  return Math.min(d, g - d);
}

/** Assigns phases one job at a time, in registration order (the scheduler's `every`). */
export class PhasePlan {
  private readonly heavy: Array<{ phase: number; everyMs: number }> = [];
  private light = 0;

  place(job: Omit<JobSpec, "name">): number {
    if (!onLattice(job.everyMs)) return 0;
    if (!job.heavy) return (this.light++ * LIGHT_STEP_MS) % 1000;
    // The first phase clear of every heavy job placed so far; failing that (more heavy jobs
    // than their periods leave room for), the one farthest from its nearest neighbour.
    let best = HEAVY_FIRST_MS % job.everyMs;
    let bestGap = -1;
    for (let phase = HEAVY_FIRST_MS; phase < job.everyMs; phase += HEAVY_GAP_MS) {
      const gap = Math.min(Infinity, ...this.heavy.map((h) => phaseDistance({ phase, everyMs: job.everyMs }, h)));
      if (gap >= HEAVY_GAP_MS) {
        best = phase;
        break;
      }
      if (gap > bestGap) [best, bestGap] = [phase, gap];
    }
    this.heavy.push({ phase: best, everyMs: job.everyMs });
    return best;
  }
}

/** The phases a scheduler gives these jobs, registered in this order. */
export function planPhases(jobs: JobSpec[]): Map<string, number> {
  const plan = new PhasePlan();
  return new Map(jobs.map((j) => [j.name, plan.place(j)]));
}

/** The first due time after `now` on the job's lattice (origin + phase + k·everyMs). */
export function firstDue(everyMs: number, phase: number, origin: number, now: number): number {
  const base = origin + phase;
  const k = Math.floor((now - base) / everyMs) + 1;
  return base + k * everyMs;
}
