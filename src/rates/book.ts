// The rate book (DESIGN 18): the current rate of a currency in USDT/USDC, or 56001 when there
// is none younger than [rates] max_age. Fixed rates come from config; fetched ones from fx_rates.
import { and, eq } from "drizzle-orm";
import type { Db, DbOrTx } from "../db/client";
import { fxRates, settings } from "../db/schema";
import { AppError, invalid } from "../errors";
import type { Clock } from "../lib/clock";
import { parseDuration } from "../lib/duration";
import { Big } from "../lib/money";
import { isTokenCurrency, priceCurrencies, USD, type RatesConfig } from "./currencies";
import type { FetchedRate } from "./coingecko";

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

/** Where the last failed fetch is noted (the rate_stale alert names it). */
const LAST_ERROR_KEY = "rates_last_error";

/** 10001 for a currency the configured source cannot price (the message lists those it can). */
export function checkPriceCurrency(config: RatesConfig, currency: string): void {
  const known = priceCurrencies(config);
  if (!known.includes(currency)) throw invalid({ priceCurrency: `unknown currency; this gateway prices ${known.join(", ")}` });
}

/** The current quote of `currency` in `token`; 56001 when there is none younger than max_age. */
export function currentRate(ctx: RatesCtx, currency: string, token: string): Quote {
  const now = ctx.clock.now();
  if (currency === USD || isTokenCurrency(currency)) return { rate: "1", observedAt: now, source: "par" };
  const r = ctx.config.rates;
  if (r.source === "fixed") {
    const rate = r.fixed[currency];
    if (rate && new Big(rate).gt(0)) return { rate, observedAt: now, source: "fixed" };
    throw new AppError(56001, { priceCurrency: currency });
  }
  const row = storedRate(ctx.db, currency, token);
  const maxAge = parseDuration(r.max_age);
  if (!row || now - row.observedAt > maxAge) {
    throw new AppError(56001, { priceCurrency: currency, ...(row ? { rateAt: new Date(row.observedAt).toISOString() } : {}) }, `No current rate for ${currency}: the last one is older than ${r.max_age}`);
  }
  return { rate: row.rate, observedAt: row.observedAt, source: "coingecko" };
}

function storedRate(db: DbOrTx, currency: string, token: string) {
  return db.select().from(fxRates).where(and(eq(fxRates.currency, currency), eq(fxRates.token, token))).get();
}

/** Stores a fetch: each rate replaces the last one of its pair; clears the noted error. */
export function storeRates(db: Db, rates: FetchedRate[], source: string, now: number): void {
  db.transaction((tx) => {
    for (const r of rates) {
      tx.insert(fxRates)
        .values({ currency: r.currency, token: r.token, rate: r.rate, source, observedAt: r.observedAt, fetchedAt: now })
        .onConflictDoUpdate({ target: [fxRates.currency, fxRates.token], set: { rate: r.rate, source, observedAt: r.observedAt, fetchedAt: now } })
        .run();
    }
    tx.delete(settings).where(eq(settings.key, LAST_ERROR_KEY)).run();
  });
}

export function noteFetchError(db: Db, message: string, now: number): void {
  const value = JSON.stringify({ at: now, message });
  db.insert(settings).values({ key: LAST_ERROR_KEY, value, updatedAt: now }).onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: now } }).run();
}

export interface StaleRates {
  /** Currencies whose newest rate is older than max_age. */
  stale: string[];
  /** No rate stored at all and the last fetch failed. */
  neverFetched: boolean;
  lastError: string | null;
}

/** For the rate_stale alert: fetched rates gone stale (fixed rates never are). */
export function staleRates(ctx: RatesCtx): StaleRates {
  const r = ctx.config.rates;
  if (r.source === "fixed") return { stale: [], neverFetched: false, lastError: null };
  const cutoff = ctx.clock.now() - parseDuration(r.max_age);
  const rows = ctx.db.select({ currency: fxRates.currency, observedAt: fxRates.observedAt }).from(fxRates).all();
  const newest = new Map<string, number>();
  for (const row of rows) newest.set(row.currency, Math.max(newest.get(row.currency) ?? 0, row.observedAt));
  const err = ctx.db.select({ v: settings.value }).from(settings).where(eq(settings.key, LAST_ERROR_KEY)).get();
  const lastError = err ? (JSON.parse(err.v) as { message: string }).message : null;
  return {
    stale: [...newest].filter(([, at]) => at < cutoff).map(([c]) => c).sort(),
    neverFetched: newest.size === 0 && lastError !== null,
    lastError,
  };
}
