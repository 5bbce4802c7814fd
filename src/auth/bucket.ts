// A token bucket's arithmetic (auth/rate-limit.ts in memory, auth/rate-store.ts in the database):
// the level is in 1/60000 of a token, so `perMinute` tokens a minute refill `elapsed ms × perMinute`.

/** One token in a bucket's level. */
export const TOKEN = 60_000;

/** Whole seconds (at least 1) until the bucket holds a token again. */
export function retryAfter(b: { level: number; at: number }, perMinute: number, now: number): number {
  const level = Math.min(perMinute * TOKEN, b.level + Math.max(0, now - b.at) * perMinute);
  return Math.max(1, Math.ceil((TOKEN - level) / perMinute / 1000));
}
