// What the payer sends for a price (DESIGN 18): priceAmount / rate, plus the spread for a fiat
// price, rounded UP to 6 fractional digits (the merchant never receives less than the price).
import { Big } from "../lib/money";
import { isTokenCurrency } from "./currencies";

/** A decimal as an exact fraction n / 10^scale. */
function fraction(d: string): { n: bigint; scale: number } {
  const s = new Big(d).toFixed();
  const [whole, frac = ""] = s.split(".");
  return { n: BigInt(whole + frac), scale: frac.length };
}

export function payerAmount(priceAmount: string, priceCurrency: string, rate: string, spreadPercent: string): string {
  const p = fraction(priceAmount);
  const r = fraction(rate);
  const s = fraction(isTokenCurrency(priceCurrency) ? "0" : spreadPercent);
  // micro = ceil(price * (100 + spread) / (rate * 100) * 10^6), all in integers.
  const hundredPlus = 100n * 10n ** BigInt(s.scale) + s.n; // (100 + spread) * 10^s.scale
  const num = p.n * hundredPlus * 10n ** BigInt(r.scale) * 1_000_000n;
  const den = r.n * 100n * 10n ** BigInt(s.scale + p.scale);
  const micro = (num + den - 1n) / den;
  return (micro / 1_000_000n).toString() + "." + (micro % 1_000_000n).toString().padStart(6, "0");
}
