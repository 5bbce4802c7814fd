// Durations in config are strings like "500ms", "3s", "5m", "24h", "7d".
export const DURATION_PATTERN = "^\\d+(ms|s|m|h|d)$";
const UNIT: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(s: string): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(s);
  if (!m) throw new Error(`not a duration: ${s}`);
  return Number(m[1]) * UNIT[m[2]];
}
