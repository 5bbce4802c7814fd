// The first-run schedule as a table (issue 37): for the gateway's job sets, simulated an hour
// from several start times, no two heavy jobs are ever due in the same 100 ms window, light
// ones do not pile up on one instant, and every job's first run comes within its period.
import { describe, expect, test } from "bun:test";
import { firstDue, HEAVY_GAP_MS, type JobSpec, phaseDistance, planPhases } from "./phases";
import { nextDelay } from "./scheduler";

const heavy = (name: string, everyMs: number): JobSpec => ({ name, everyMs, heavy: true });
const light = (name: string, everyMs: number): JobSpec => ({ name, everyMs, heavy: false });

/** The jobs src/app/server.ts startJobs registers, in its order, for these chains. */
function gatewayJobs(chains: string[], o: { sweeps?: boolean; backups?: boolean; rates?: boolean; sandboxBlocksMs?: number } = {}): JobSpec[] {
  const jobs = [heavy("prune-nonces", 60_000), heavy("prune-callbacks", 600_000), heavy("optimize", 6 * 3_600_000), heavy("alerts", 5000), light("storage-file", 2000)];
  if (o.rates) jobs.push(heavy("rates", 300_000));
  if (o.backups) jobs.push(heavy("backups", 15_000));
  jobs.push(light("expire-payins", 1000), light("expire-invoices", 1000), light("payout-batches", 1000), light("collections", 1000));
  for (const c of chains) {
    jobs.push(light(`payouts-${c}`, 1000), heavy(`reconcile-${c}`, 60_000), light(`restore-gap-${c}`, 250), light(`gas-balance-${c}`, 60_000));
    if (o.sandboxBlocksMs) jobs.push(light(`sandbox-blocks-${c}`, o.sandboxBlocksMs));
    jobs.push(light(`watch-${c}`, o.sandboxBlocksMs ? Math.min(o.sandboxBlocksMs, 1000) : 3000));
    if (o.sweeps) jobs.push(heavy(`sweep-${c}`, 300_000));
    if (c === "TRON") jobs.push(light("energy-reclaim:TRON", 60_000));
    if (c === "SOL") jobs.push(light("sol-token-accounts", 2000));
  }
  return jobs;
}

/** Every due time of each job from `start` for `spanMs`, on a scheduler made at `start` (runs take no time). */
function simulate(jobs: JobSpec[], start: number, spanMs: number): Map<string, number[]> {
  const phases = planPhases(jobs);
  const origin = Math.floor(start / 1000) * 1000 + 1000;
  const out = new Map<string, number[]>();
  for (const j of jobs) {
    const lattice = { origin, phase: phases.get(j.name)! };
    const due: number[] = [];
    let now = start;
    let last: number | null = null;
    while (now < start + spanMs) {
      const next = nextDelay(j.everyMs, now, last, lattice);
      last = next.due;
      now = next.due;
      due.push(next.due);
    }
    out.set(j.name, due);
  }
  return out;
}

const T0 = Date.parse("2026-11-29T03:00:00.000Z");
const STARTS = [T0, T0 + 1, T0 + 437, T0 + 999];
const SETS: Array<{ name: string; jobs: JobSpec[] }> = [
  { name: "growth bench: TRON, BSC, SOL sandbox", jobs: gatewayJobs(["TRON", "BSC", "SOL"]) },
  { name: "sandbox with block times (demo)", jobs: gatewayJobs(["TRON", "BSC", "SOL"], { sandboxBlocksMs: 3000 }) },
  { name: "four rpc chains, sweeps, backups, live rates", jobs: gatewayJobs(["TRON", "BSC", "SOL", "TON"], { sweeps: true, backups: true, rates: true }) },
  { name: "one chain", jobs: gatewayJobs(["BSC"]) },
];

describe("first-run schedule", () => {
  for (const set of SETS) {
    for (const start of STARTS) {
      const label = `${set.name}, start at +${start - T0} ms`;
      const runs = simulate(set.jobs, start, 3_600_000);

      test(`${label}: every job's first run comes within its period`, () => {
        for (const j of set.jobs) {
          const first = runs.get(j.name)![0]!;
          expect({ job: j.name, late: first - start > j.everyMs }).toEqual({ job: j.name, late: false });
          expect(first).toBeGreaterThan(start);
        }
      });

      test(`${label}: no two heavy jobs are due in the same ${HEAVY_GAP_MS} ms window, first runs or later`, () => {
        const due = set.jobs.filter((j) => j.heavy).flatMap((j) => runs.get(j.name)!.map((t) => ({ t, job: j.name })));
        due.sort((a, b) => a.t - b.t);
        const close = due.slice(1).filter((d, i) => d.t - due[i]!.t < HEAVY_GAP_MS && d.job !== due[i]!.job);
        expect(close.slice(0, 3).map((d) => d.job)).toEqual([]);
      });

      test(`${label}: light whole-second jobs are spread (at most two due at one instant)`, () => {
        const count = new Map<number, number>();
        for (const j of set.jobs.filter((x) => !x.heavy && x.everyMs >= 1000)) for (const t of runs.get(j.name)!.slice(0, 10)) count.set(t, (count.get(t) ?? 0) + 1);
        expect(Math.max(...count.values())).toBeLessThanOrEqual(2);
      });
    }
  }

  test("deterministic: the same jobs in the same order get the same phases", () => {
    const jobs = gatewayJobs(["TRON", "BSC", "SOL"]);
    expect([...planPhases(jobs)]).toEqual([...planPhases([...jobs])]);
  });

  test("the growth bench's heavy jobs start in the second after the first whole second, 100 ms apart", () => {
    const phases = planPhases(gatewayJobs(["TRON", "BSC", "SOL"]));
    expect(["prune-nonces", "prune-callbacks", "optimize", "alerts", "reconcile-TRON", "reconcile-BSC", "reconcile-SOL"].map((n) => phases.get(n))).toEqual([100, 200, 300, 400, 500, 600, 700]);
  });
});

describe("phase arithmetic", () => {
  const cases: Array<{ name: string; a: [number, number]; b: [number, number]; distance: number }> = [
    { name: "same period: plain distance", a: [100, 60_000], b: [300, 60_000], distance: 200 },
    { name: "5 s and 60 s meet every 5 s", a: [5100, 60_000], b: [100, 5000], distance: 0 },
    { name: "around the circle", a: [50, 1000], b: [950, 1000], distance: 100 },
  ];
  for (const k of cases) test(k.name, () => expect(phaseDistance({ phase: k.a[0], everyMs: k.a[1] }, { phase: k.b[0], everyMs: k.b[1] })).toBe(k.distance));

  const dues: Array<{ name: string; everyMs: number; phase: number; now: number; due: number }> = [
    { name: "the origin plus the phase, when still ahead", everyMs: 60_000, phase: 300, now: T0 + 999, due: T0 + 1300 },
    { name: "a 1 s job whose phase already passed this second: the next second's", everyMs: 1000, phase: 200, now: T0 + 500, due: T0 + 1200 },
    { name: "a 1 s job whose point is still ahead in the scheduler's first second", everyMs: 1000, phase: 800, now: T0 + 500, due: T0 + 800 },
  ];
  for (const k of dues) test(`firstDue: ${k.name}`, () => expect(firstDue(k.everyMs, k.phase, T0 + 1000, k.now)).toBe(k.due));
});
