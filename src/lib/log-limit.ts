// Repeated error lines, rate-limited (DESIGN 16): a full disk fails every write,
// and one line per failure would fill what is left of it. The first line of a
// kind is written; more of the same kind within `intervalMs` are counted, and
// the next line written after the interval carries `suppressed: n`.
import type { Logger } from "./logger";

type Level = "warn" | "error" | "info";

export class LogLimiter {
  private readonly last = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number,
    readonly intervalMs = 60_000,
  ) {}

  /** Logs `msg` unless a line of `kind` was written within the interval; returns whether it was written. */
  log(level: Level, kind: string, msg: string, fields: Record<string, unknown> = {}): boolean {
    const now = this.now();
    const s = this.last.get(kind);
    if (s && now - s.at < this.intervalMs && now >= s.at) {
      s.suppressed++;
      return false;
    }
    const suppressed = s?.suppressed ?? 0;
    if (this.last.size > 1000) this.last.clear();
    this.last.set(kind, { at: now, suppressed: 0 });
    this.logger[level](msg, suppressed ? { ...fields, kind, suppressed } : { ...fields, kind });
    return true;
  }

  /** Forgets a kind (its condition is over): the next line of it is written at once. */
  reset(kind: string): void {
    this.last.delete(kind);
  }
}
