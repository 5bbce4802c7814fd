// Measured detection (DESIGN 25) read back: p50/p95 per chain of block → seen and block →
// completed over a window of detection_times, for the dashboard (24 h) and the detection_slow
// alert (1 h, against [ops] detection_slo).
import type { Db } from "../db/client";
import { detectionSamplesSince, type DetectionSample } from "./store";

export const DAY_MS = 24 * 60 * 60 * 1000;
export const HOUR_MS = 60 * 60 * 1000;

export interface Percentiles {
  count: number;
  /** Seconds; null without samples. */
  p50: number | null;
  p95: number | null;
}

export interface ChainDetection {
  chain: string;
  /** Block time → first seen. */
  detection: Percentiles;
  /** Block time → order completed. */
  completion: Percentiles;
  /** Order completed → completed callback answered 2xx. */
  callback: Percentiles;
}

/** Nearest-rank percentile of sorted values (p in 0..100). */
export function nearestRank(sorted: number[], p: number): number | null {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function percentiles(values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  return { count: sorted.length, p50: nearestRank(sorted, 50), p95: nearestRank(sorted, 95) };
}

const seconds = (from: number, to: number) => Math.max(0, to - from) / 1000;

/** The samples' percentiles per chain, chains in name order. */
export function summarize(samples: DetectionSample[]): ChainDetection[] {
  const chains = [...new Set(samples.map((s) => s.chain))].sort();
  return chains.map((chain) => {
    const mine = samples.filter((s) => s.chain === chain);
    const done = mine.filter((s) => s.completedAt !== null);
    return {
      chain,
      detection: percentiles(mine.map((s) => seconds(s.blockTime, s.seenAt))),
      completion: percentiles(done.map((s) => seconds(s.blockTime, s.completedAt!))),
      callback: percentiles(done.filter((s) => s.callbackAt !== null).map((s) => seconds(s.completedAt!, s.callbackAt!))),
    };
  });
}

/** Per chain over the last `windowMs` (credited transfers first seen in it). */
export async function detectionStats(db: Db, now: number, windowMs: number): Promise<ChainDetection[]> {
  return summarize(await detectionSamplesSince(db, now - windowMs));
}
