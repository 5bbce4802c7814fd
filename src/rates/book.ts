// The rate book (DESIGN 18): the current rate of a currency in USDT/USDC, or 56001 when there
// is none younger than [rates] max_age. Fixed rates come from config; fetched ones from fx_rates.
import type { Db } from "../db/client";
import { AppError, invalid } from "../errors";
import type { Clock } from "../lib/clock";
import { parseDuration } from "../lib/duration";
import { Big } from "../lib/money";
import { isTokenCurrency, priceCurrencies, USD, type RatesConfig } from "./currencies";
import { lastFetchError, rateAges, storedRate } from "./store";

export { noteFetchError, storeRates } from "./store";

/** What the rate book reads. */
export interface RatesCtx {
  db: Db;
  clock: Clock;
  config: RatesConfig;
}

export interface Quote {
  /** Units of the price currency per 1 token (decimal string). */
  rate: string;
  /** When the rate was observed (ms). */
  observedAt: number;
  source: "par" | "fixed" | "coingecko";
}

/** 10001 for a currency the configured source cannot price (the message lists those it can). */
export function checkPriceCurrency(config: RatesConfig, currency: string): void {
  const known = priceCurrencies(config);
  if (!known.includes(currency)) throw invalid({ priceCurrency: `unknown currency; this gateway prices ${known.join(", ")}` });
}

/** The current quote of `currency` in `token`; 56001 when there is none younger than max_age. */
export async function currentRate(ctx: RatesCtx, currency: string, token: string): Promise<Quote> {
  const now = ctx.clock.now();
  if (currency === USD || isTokenCurrency(currency)) return { rate: "1", observedAt: now, source: "par" };
  const r = ctx.config.rates;
  if (r.source === "fixed") {
    const rate = r.fixed[currency];
    if (rate && new Big(rate).gt(0)) return { rate, observedAt: now, source: "fixed" };
    throw new AppError(56001, { priceCurrency: currency });
  }
  const row = await storedRate(ctx.db, currency, token);
  const maxAge = parseDuration(r.max_age);
  if (!row || now - row.observedAt > maxAge) {
    throw new AppError(56001, { priceCurrency: currency, ...(row ? { rateAt: new Date(row.observedAt).toISOString() } : {}) }, `No current rate for ${currency}: the last one is older than ${r.max_age}`);
  }
  return { rate: row.rate, observedAt: row.observedAt, source: "coingecko" };
}

export interface StaleRates {
  /** Currencies whose newest rate is older than max_age. */
  stale: string[];
  /** No rate stored at all and the last fetch failed. */
  neverFetched: boolean;
  lastError: string | null;
}

/** For the rate_stale alert: fetched rates gone stale (fixed rates never are). */
export async function staleRates(ctx: RatesCtx): Promise<StaleRates> {
  const r = ctx.config.rates;
  if (r.source === "fixed") return { stale: [], neverFetched: false, lastError: null };
  const cutoff = ctx.clock.now() - parseDuration(r.max_age);
  const rows = await rateAges(ctx.db);
  const newest = new Map<string, number>();
  for (const row of rows) newest.set(row.currency, Math.max(newest.get(row.currency) ?? 0, row.observedAt));
  const lastError = await lastFetchError(ctx.db);
  return {
    stale: [...newest].filter(([, at]) => at < cutoff).map(([c]) => c).sort(),
    neverFetched: newest.size === 0 && lastError !== null,
    lastError,
  };
}
