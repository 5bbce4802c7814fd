import { describe, expect, test } from "bun:test";
import { toBaseUnits } from "../lib/money";
import { underpayTolerance, withinUnderpayTolerance } from "./tolerance";

describe("underpay tolerance: the larger of the absolute amount and the percentage, underpayment only", () => {
  const rows: Array<[tolerance: string, percent: string, expected: string, received: string, decimals: number, within: boolean]> = [
    ["0", "0", "10", "9.999999", 6, false], // the default: nothing tolerated
    ["0", "0", "10", "10", 6, false], // exact is a match, not a tolerance case
    ["0.05", "0", "10", "9.95", 6, true], // on the boundary
    ["0.05", "0", "10", "9.949999", 6, false],
    ["0.05", "0", "10", "10.01", 6, false], // overpaid: never tolerated
    ["0", "1", "10", "9.9", 6, true], // 1 % of 10
    ["0", "1", "10", "9.899999", 6, false],
    ["0.05", "1", "100", "99", 6, true], // the percentage is larger here
    ["0.05", "1", "1", "0.95", 6, true], // the absolute amount is larger here
    ["0.05", "1", "1", "0.949999", 6, false],
    ["0", "0.5", "14.084508", "14.014086", 6, true], // 0.070422 (rounded down from 0.07042254)
    ["0", "0.5", "14.084508", "14.014085", 6, false],
    ["0.01", "0", "5", "4.99", 18, true], // 18-decimal BEP20
    ["0.01", "0", "5", "4.989999999999999999", 18, false],
  ];
  test.each(rows)("tolerance %s, %s%%: expected %s, received %s (%i decimals) -> %p", (tol, pct, expected, received, decimals, within) => {
    const cfg = { underpay_tolerance: tol, underpay_tolerance_percent: pct };
    expect(withinUnderpayTolerance(cfg, toBaseUnits(expected, decimals), toBaseUnits(received, decimals), decimals)).toBe(within);
  });

  test("the tolerance itself", () => {
    expect(underpayTolerance({ underpay_tolerance: "0.05", underpay_tolerance_percent: "1" }, toBaseUnits("100", 6), 6)).toBe(1_000_000n);
    expect(underpayTolerance({ underpay_tolerance: "0.05", underpay_tolerance_percent: "1" }, toBaseUnits("1", 6), 6)).toBe(50_000n);
  });
});
