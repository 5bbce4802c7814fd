import { describe, expect, test } from "bun:test";
import { payerAmount } from "./amount";

describe("payerAmount: price / rate (+ spread on fiat), rounded up to 6 digits", () => {
  const cases: Array<[string, string, string, string, string]> = [
    // price, currency, rate, spread %, expected
    ["71.00", "CNY", "7.1", "0", "10.000000"],
    ["100.00", "CNY", "7.1", "0", "14.084508"], // 14.0845070422… up
    ["100.00", "CNY", "7.1", "1.5", "14.295775"], // 14.29577464… up
    ["10.00", "USD", "1", "0", "10.000000"],
    ["10.00", "USD", "1", "2", "10.200000"],
    ["12.345678", "USDT", "1", "5", "12.345678"], // a token price: no spread
    ["0.01", "JPY", "150.123", "0", "0.000067"], // 0.0000666… up
    ["1", "EUR", "0.92", "0", "1.086957"],
  ];
  for (const [price, cur, rate, spread, want] of cases) {
    test(`${price} ${cur} at ${rate}, spread ${spread}% -> ${want}`, () => expect(payerAmount(price, cur, rate, spread)).toBe(want));
  }
});
