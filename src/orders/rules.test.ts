// checkAmount's limits (DESIGN 4) are compared as exact integers (no Big per request): the same
// answers as the decimal comparison, at the edges, for every token scale.
import { expect, test } from "bun:test";
import { checkAmount } from "./rules";
import { AppError } from "../errors";
import { compareAmounts } from "../lib/money";
import type { ChainCode, TokenSymbol } from "../chains/types";

const ctx = (min: string, max: string) => ({ config: { chains: { TRON: { tokens: { USDT: { min_amount: min, max_amount: max } } } } } }) as never;
const verdict = (min: string, max: string, amount: string, decimals: number): string => {
  try {
    checkAmount(ctx(min, max), "TRON" as ChainCode, "USDT" as TokenSymbol, amount, decimals);
    return "ok";
  } catch (e) {
    const why = e instanceof AppError ? String((e.data?.fields as Record<string, string> | undefined)?.amount ?? "") : "";
    return why.includes("at least") ? "below" : why.includes("at most") ? "above" : `throws: ${String(e)}`;
  }
};
const expected = (min: string, max: string, amount: string): string =>
  compareAmounts(amount, min) < 0 ? "below" : compareAmounts(amount, max) > 0 ? "above" : "ok";

const cases: Array<[min: string, max: string, amount: string, decimals: number]> = [
  ["0.000001", "100000000", "0.000001", 6],
  ["0.000001", "100000000", "100000000", 6],
  ["0.000001", "100000000", "100000000.000001", 6],
  ["1", "10", "0.999999", 6],
  ["1", "10", "1", 6],
  ["1", "10", "1.000000", 6],
  ["1", "10", "10.000001", 6],
  ["1.5", "2.5", "2.5", 18],
  ["1.5", "2.5", "2.500000000000000001", 18],
  ["0.0000001", "5", "0.000001", 6], // a limit finer than the token: still exact
  ["10", "1e3", "999", 6], // a limit that is not a plain decimal: the Big comparison decides
  ["10", "1e3", "1001", 6],
  ["0", "1", "0.1", 6],
];

test("amount limits: the integer comparison gives the decimal comparison's answer", () => {
  for (const [min, max, amount, decimals] of cases) {
    expect({ min, max, amount, verdict: verdict(min, max, amount, decimals) }).toEqual({ min, max, amount, verdict: expected(min, max, amount) });
  }
});
