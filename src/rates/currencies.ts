// Which price currencies an invoice may use (DESIGN 18) and how many fractional digits each takes.
import type { Config } from "../config/schema";

/** Priced 1:1 by the token itself: no rate, no spread. */
export const TOKEN_CURRENCIES = ["USDT", "USDC"] as const;

/** USD prices USDT and USDC at 1 (DESIGN 18) whatever the source says. */
export const USD = "USD";

/**
 * Fiat currencies the coingecko source fetches: CoinGecko's `simple/supported_vs_currencies`
 * without metals, crypto units and retired currencies. One request fetches them all.
 */
export const COINGECKO_FIATS = [
  "AED", "ARS", "AUD", "BDT", "BHD", "BRL", "CAD", "CHF", "CLP", "CNY", "CZK", "DKK", "EUR", "GBP", "GEL", "HKD", "HUF", "IDR",
  "ILS", "INR", "JPY", "KRW", "KWD", "LKR", "MMK", "MXN", "MYR", "NGN", "NOK", "NZD", "PHP", "PKR", "PLN", "RUB", "SAR", "SEK",
  "SGD", "THB", "TRY", "TWD", "UAH", "VND", "ZAR",
] as const;

export type RatesConfig = Pick<Config, "rates">;

export function isTokenCurrency(c: string): boolean {
  return (TOKEN_CURRENCIES as readonly string[]).includes(c);
}

/** Fiat currencies the configured source can price (USD always). */
export function fiatCurrencies(config: RatesConfig): string[] {
  const r = config.rates;
  const list = r.source === "fixed" ? Object.keys(r.fixed) : [...COINGECKO_FIATS];
  return [USD, ...list.filter((c) => c !== USD).sort()];
}

/** Every currency an invoice may be priced in: the fiats the source can price, then USDT and USDC. */
export function priceCurrencies(config: RatesConfig): string[] {
  return [...fiatCurrencies(config), ...TOKEN_CURRENCIES];
}

/** Fractional digits a price may have: 2 for a fiat currency, 6 for USDT/USDC (DESIGN 18). */
export function priceDecimals(currency: string): number {
  return isTokenCurrency(currency) ? 6 : 2;
}
