// The coingecko rate source: one `simple/price` request for USDT (tether) and USDC (usd-coin)
// against every fiat currency, answered as {"tether":{"cny":7.1,"last_updated_at":1700000000},…}.
import { Big } from "../lib/money";
import { redactUrl } from "../lib/redact-url";

/** CoinGecko's coin ids of the tokens an invoice is paid in. */
export const COIN_IDS = { USDT: "tether", USDC: "usd-coin" } as const;

export interface FetchedRate {
  currency: string;
  token: string;
  /** Decimal string: units of currency per 1 token. */
  rate: string;
  /** When CoinGecko last updated the price (ms), else when it was fetched. */
  observedAt: number;
}

export interface CoingeckoOptions {
  baseUrl: string;
  apiKey?: string;
  currencies: readonly string[];
  now: number;
  signal?: AbortSignal;
}

/** The documented request: ids, vs_currencies, last_updated_at for staleness, full precision. */
export function simplePriceUrl(baseUrl: string, currencies: readonly string[]): string {
  const q = new URLSearchParams({
    ids: Object.values(COIN_IDS).join(","),
    vs_currencies: currencies.map((c) => c.toLowerCase()).join(","),
    include_last_updated_at: "true",
    precision: "full",
  });
  return `${baseUrl.replace(/\/+$/, "")}/simple/price?${q}`;
}

/** Demo keys go in x-cg-demo-api-key; the Pro API (pro-api.coingecko.com) wants x-cg-pro-api-key. */
export function apiKeyHeader(baseUrl: string): string {
  return /(^|\.)pro-api\.coingecko\.com$/i.test(new URL(baseUrl).hostname) ? "x-cg-pro-api-key" : "x-cg-demo-api-key";
}

export async function fetchCoingecko(o: CoingeckoOptions): Promise<FetchedRate[]> {
  const url = simplePriceUrl(o.baseUrl, o.currencies);
  const headers: Record<string, string> = { accept: "application/json" };
  if (o.apiKey) headers[apiKeyHeader(o.baseUrl)] = o.apiKey;
  const res = await fetch(url, { headers, signal: o.signal ?? AbortSignal.timeout(10_000), redirect: "error" });
  if (!res.ok) throw new Error(`coingecko ${redactUrl(o.baseUrl)} answered HTTP ${res.status}`);
  return parseSimplePrice(await res.json(), o.currencies, o.now);
}

/** Reads the answer; a missing, zero or non-numeric price is skipped (that currency keeps its last rate). */
export function parseSimplePrice(body: unknown, currencies: readonly string[], now: number): FetchedRate[] {
  if (!body || typeof body !== "object") throw new Error("coingecko answer is not a JSON object");
  const out: FetchedRate[] = [];
  for (const [token, id] of Object.entries(COIN_IDS)) {
    const entry = (body as Record<string, unknown>)[id];
    if (!entry || typeof entry !== "object") continue;
    const e = entry as Record<string, unknown>;
    const updated = typeof e.last_updated_at === "number" && Number.isFinite(e.last_updated_at) ? e.last_updated_at * 1000 : now;
    for (const currency of currencies) {
      const rate = decimalOf(e[currency.toLowerCase()]);
      if (rate) out.push({ currency, token, rate, observedAt: Math.min(updated, now) });
    }
  }
  return out;
}

/** A positive JSON number as a plain decimal string (at most 12 fractional digits), else null. */
function decimalOf(v: unknown): string | null {
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) return null;
  const s = new Big(String(v)).round(12, Big.roundHalfUp).toFixed();
  return new Big(s).gt(0) ? s : null;
}
