// Exact money: bigint base units inside, decimal strings at the edges.
// Never a JS number for an amount.
import Big from "big.js";

/** Request amount rule (DESIGN 4): digits, optional fraction of at most 6 digits. */
export const AMOUNT_PATTERN = /^\d+(\.\d+)?$/;
/** A fraction's trailing zeros (one object: a literal in the functions below made a RegExp per call, four per create). */
const TRAILING_ZEROS = /0+$/;

/** Decimal string -> base units; throws if it has more fractional digits than `decimals`. */
export function toBaseUnits(amount: string, decimals: number): bigint {
  if (!AMOUNT_PATTERN.test(amount)) throw new Error(`not a decimal amount: ${amount}`);
  const [whole, frac = ""] = amount.split(".");
  const trimmed = frac.replace(TRAILING_ZEROS, "");
  if (trimmed.length > decimals) throw new Error(`more than ${decimals} fractional digits: ${amount}`);
  return BigInt(whole + trimmed.padEnd(decimals, "0"));
}

/** Base units -> decimal string with at least `minFraction` fractional digits, extra precision kept. */
export function fromBaseUnits(units: bigint, decimals: number, minFraction = 6): string {
  const neg = units < 0n;
  let digits = (neg ? -units : units).toString();
  if (decimals > 0) digits = digits.padStart(decimals + 1, "0");
  const whole = decimals > 0 ? digits.slice(0, -decimals) : digits;
  let frac = decimals > 0 ? digits.slice(-decimals) : "";
  frac = frac.replace(TRAILING_ZEROS, "");
  if (frac.length < minFraction) frac = frac.padEnd(minFraction, "0");
  return (neg ? "-" : "") + whole + (frac ? "." + frac : "");
}

/** Normalised display of a request amount (6 fractional digits, more kept if given). */
export function formatAmount(amount: string, minFraction = 6): string {
  return fromBaseUnits(toBaseUnits(amount, 36), 36, minFraction);
}

export function compareAmounts(a: string, b: string): number {
  return new Big(a).cmp(new Big(b));
}

export { Big };
