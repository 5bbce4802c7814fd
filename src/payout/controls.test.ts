import { describe, expect, test } from "bun:test";
import { fromMicro, payoutFee, toMicro } from "./controls";

describe("payout fee", () => {
  test.each([
    ["0", "0", 100_000_000n, 0n],
    ["0.5", "0", 1n, 500_000n],
    ["0", "0.001", 100_000_000n, 100_000n], // 0.1 % of 100
    ["0", "0.001", 1n, 1n], // rounded up to one micro-unit, never down to zero
    ["0.5", "0.01", 30_250_000n, 802_500n],
    ["0", "0.00000001", 999_999n, 1n],
  ])("fixed %s + rate %s of %d micro = %d", (fixed, rate, amount, fee) => {
    expect(payoutFee({ payoutFeeFixed: fixed, payoutFeeRate: rate }, amount)).toBe(fee);
  });

  test.each([
    [6, 1_234_567n, 1_234_567n],
    [18, 1_234_567_000_000_000_000n, 1_234_567n],
  ])("micro-units of %d-decimal tokens", (decimals, units, micro) => {
    expect(toMicro(units, decimals)).toBe(micro);
    expect(fromMicro(micro, decimals)).toBe(units);
  });
});
