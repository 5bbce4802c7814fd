// The bench scripts' client load: `clients` concurrent clients send requests 0..n-1 in turn;
// the rate, latency percentiles and the failures (a failed request is counted, not thrown).

export function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

export async function load(n: number, clients: number, send: (i: number) => Promise<void>, lat: number[] = []): Promise<LoadResult> {
  let next = 0;
  let errors = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (;;) {
        const i = next++;
        if (i >= n) return;
        const s = performance.now();
        try {
          await send(i);
        } catch {
          errors++;
        }
        lat.push(performance.now() - s);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  return { rps: n / secs, p50: pct(lat, 50), p99: pct(lat, 99), errors };
}

