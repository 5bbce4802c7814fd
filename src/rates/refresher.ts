// The rates job: with [rates] source = "coingecko", fetch every `refresh` and store what came back.
// A failed fetch keeps the last rates (they serve until max_age) and is noted for the alert.
import type { Logger } from "../lib/logger";
import { writeTx } from "../db/client";
import { type RatesCtx, noteFetchError, storeRates } from "./book";
import { fetchCoingecko } from "./coingecko";
import { COINGECKO_FIATS } from "./currencies";

export class RateRefresher {
  private running: Promise<number> | null = null;
  private readonly abort = new AbortController();

  constructor(private readonly ctx: RatesCtx & { logger: Logger }) {}

  get enabled(): boolean {
    return this.ctx.config.rates.source === "coingecko";
  }

  /** One fetch (the job calls it; tests too); returns how many rates were stored. Runs never overlap. */
  tick(): Promise<number> {
    if (!this.enabled) return Promise.resolve(0);
    this.running ??= this.run().finally(() => (this.running = null));
    return this.running;
  }

  stop(): void {
    this.abort.abort();
  }

  private async run(): Promise<number> {
    const r = this.ctx.config.rates;
    const now = this.ctx.clock.now();
    try {
      const rates = await fetchCoingecko({
        baseUrl: r.coingecko_url,
        apiKey: r.coingecko_api_key,
        currencies: COINGECKO_FIATS,
        now,
        signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(10_000)]),
      });
      if (!rates.length) throw new Error("coingecko answered no usable rate");
      await writeTx(this.ctx.db, async (tx) => await storeRates(tx, rates, "coingecko", this.ctx.clock.now()));
      return rates.length;
    } catch (e) {
      if (this.abort.signal.aborted) return 0;
      const message = String((e as Error)?.message ?? e);
      this.ctx.logger.warn("rates fetch failed; the last rates serve until max_age", { error: message });
      try {
        await writeTx(this.ctx.db, async (tx) => await noteFetchError(tx, message, this.ctx.clock.now()));
      } catch (e2) {
        // The store itself failing (a full disk) must not turn a failed fetch into a failed tick.
        this.ctx.logger.warn("rates fetch error not recorded", { error: String((e2 as Error)?.message ?? e2) });
      }
      return 0;
    }
  }
}
