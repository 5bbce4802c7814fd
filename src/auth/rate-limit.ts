// Token buckets in memory (one process serves everything): per merchant for signed requests,
// any key (an order, a client) for the checks that name one (payin/tx-hash.ts).
import { AppError } from "../errors";

export class RateLimiter {
  private buckets = new Map<number | string, { tokens: number; at: number }>();
  constructor(private readonly perMinute: number) {}

  take(merchantId: number | string, now: number): void {
    if (this.perMinute <= 0) return;
    const b = this.buckets.get(merchantId) ?? { tokens: this.perMinute, at: now };
    b.tokens = Math.min(this.perMinute, b.tokens + ((now - b.at) * this.perMinute) / 60_000);
    b.at = now;
    if (b.tokens < 1) {
      this.buckets.set(merchantId, b);
      const retryAfter = Math.max(1, Math.ceil(((1 - b.tokens) * 60_000) / this.perMinute / 1000));
      throw new AppError(10029, { retryAfter });
    }
    b.tokens -= 1;
    this.buckets.set(merchantId, b);
  }
}
