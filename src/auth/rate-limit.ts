// Token buckets in memory (one process serves everything): per merchant for the signed API,
// per invoice and per client for the hosted invoice page's network choices (each makes a pay-in),
// per order and per client for the payer's transaction-hash checks (payin/tx-hash.ts).
import { AppError } from "../errors";

/** Buckets kept before the full ones (nothing taken lately) are dropped. */
const PRUNE_AT = 10_000;

export class RateLimiter<K = number> {
  private buckets = new Map<K, { tokens: number; at: number }>();
  constructor(private readonly perMinute: number) {}

  /** Takes one from `key`'s bucket, or throws 10029 with the seconds until one is back. */
  take(key: K, now: number): void {
    if (this.perMinute <= 0) return;
    if (this.buckets.size >= PRUNE_AT) this.prune(now);
    const b = this.buckets.get(key) ?? { tokens: this.perMinute, at: now };
    b.tokens = Math.min(this.perMinute, b.tokens + ((now - b.at) * this.perMinute) / 60_000);
    b.at = now;
    if (b.tokens < 1) {
      this.buckets.set(key, b);
      const retryAfter = Math.max(1, Math.ceil(((1 - b.tokens) * 60_000) / this.perMinute / 1000));
      throw new AppError(10029, { retryAfter });
    }
    b.tokens -= 1;
    this.buckets.set(key, b);
  }

  /** Drops the buckets that have filled up again (the same as no bucket). */
  private prune(now: number): void {
    for (const [k, b] of this.buckets) if (b.tokens + ((now - b.at) * this.perMinute) / 60_000 >= this.perMinute) this.buckets.delete(k);
  }
}
