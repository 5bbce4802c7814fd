// Underpayment tolerance (DESIGN 18, [payin] underpay_tolerance and underpay_tolerance_percent):
// an address's one open order that receives less than expected, but short by no more than the
// tolerance, completes with the real paidAmount instead of freezing. Overpayment is never tolerated
// (it freezes for review, as before): the payer's extra money needs a decision.
import type { Config } from "../config/schema";
import { toBaseUnits } from "../lib/money";

export type ToleranceConfig = Pick<Config["payin"], "underpay_tolerance" | "underpay_tolerance_percent">;

/** The larger of the absolute tolerance and the percentage of `expected`, in base units (rounded down). */
export function underpayTolerance(cfg: ToleranceConfig, expected: bigint, decimals: number): bigint {
  const absolute = toBaseUnits(cfg.underpay_tolerance, decimals);
  // percent has at most 4 fractional digits: expected * pct * 10^4 / (100 * 10^4)
  const pct = toBaseUnits(cfg.underpay_tolerance_percent, 4);
  const relative = (expected * pct) / 1_000_000n;
  return absolute > relative ? absolute : relative;
}

/** Short of `expected`, but by no more than the tolerance. */
export function withinUnderpayTolerance(cfg: ToleranceConfig, expected: bigint, received: bigint, decimals: number): boolean {
  return received < expected && expected - received <= underpayTolerance(cfg, expected, decimals);
}
