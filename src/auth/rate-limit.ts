// Token buckets: per merchant for the signed API, per invoice and per client for the hosted
// invoice page's network choices (each makes a pay-in), per order and per client for the payer's
// transaction-hash checks (payin/tx-hash.ts). In memory on SQLite (one process serves everything).
// `takeFor` with a PostgreSQL handle uses the database's bucket instead (auth/rate-store.ts), so the
// limit holds across every gateway of the database (DESIGN 22): the signed API passes its handle.
import type { Db } from "../db/client";
import { isPg } from "../db/engine";
import { AppError } from "../errors";
import { takeToken } from "./rate-store";

/** Buckets kept before the full ones (nothing taken lately) are dropped. */
const PRUNE_AT = 10_000;

export class RateLimiter<K = number> {
  private buckets = new Map<K, { tokens: number; at: number }>();
  /** `name` keeps this limiter's buckets apart from others' in the database. */
  constructor(
    private readonly perMinute: number,
    private readonly name = "api",
  ) {}

  /** Takes one from `key`'s bucket in memory, or throws 10029 with the seconds until one is back. */
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

  /** `take` for the gateways of `db`: on PostgreSQL the database's bucket (shared by every gateway), else memory. */
  async takeFor(db: Db, key: K, now: number): Promise<void> {
    if (this.perMinute <= 0) return;
    if (!isPg(db)) return this.take(key, now);
    const retryAfter = await takeToken(db, `${this.name}:${String(key)}`, this.perMinute, now);
    if (retryAfter !== null) throw new AppError(10029, { retryAfter });
  }

  /** Drops the buckets that have filled up again (the same as no bucket). */
  private prune(now: number): void {
    for (const [k, b] of this.buckets) if (b.tokens + ((now - b.at) * this.perMinute) / 60_000 >= this.perMinute) this.buckets.delete(k);
  }
}
