import { describe, expect, test } from "bun:test";
import { formatAmount, fromBaseUnits, toBaseUnits } from "./money";

describe("money", () => {
  test.each([
    ["100.5", 6, 100500000n],
    ["0.000001", 6, 1n],
    ["1.123456789012345678", 18, 1123456789012345678n],
    ["12345678901234567890.000000000000000001", 18, 12345678901234567890000000000000000001n],
    ["7", 18, 7000000000000000000n],
  ] as const)("toBaseUnits(%s, %d)", (s, d, units) => {
    expect(toBaseUnits(s, d)).toBe(units);
  });

  test("18-decimal amounts round-trip exactly", () => {
    for (const s of ["1.123456789012345678", "0.000000000000000001", "98765.432100000000000001"]) {
      expect(fromBaseUnits(toBaseUnits(s, 18), 18)).toBe(s);
    }
  });

  test("responses show at least six fractional digits", () => {
    expect(fromBaseUnits(100500000n, 6)).toBe("100.500000");
    expect(fromBaseUnits(5n * 10n ** 18n, 18)).toBe("5.000000");
    expect(formatAmount("100.50")).toBe("100.500000");
    expect(formatAmount("0")).toBe("0.000000");
  });

  test("rejects more precision than the token has, and non-decimals", () => {
    expect(() => toBaseUnits("1.0000001", 6)).toThrow();
    expect(() => toBaseUnits("1e5", 6)).toThrow();
    expect(() => toBaseUnits("-1", 6)).toThrow();
    expect(toBaseUnits("1.1000000", 6)).toBe(1100000n);
  });
});
