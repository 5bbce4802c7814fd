import { expect, test } from "bun:test";
import { parseConfig } from "../config/load";
import { DEMO_RATES, withDemoRates } from "./demo";

test.each([
  ["no [rates] at all: the demo table", {}, true, { ...DEMO_RATES }],
  ["an empty fixed table: the demo table", { rates: { source: "fixed", fixed: {} } }, true, { ...DEMO_RATES }],
  ["the operator's own table is kept", { rates: { fixed: { EUR: "0.90" } } }, false, { EUR: "0.90" }],
  ["coingecko is kept (no fixed table added)", { rates: { source: "coingecko" } }, false, {}],
] as const)("serve --demo's rates: %s", (_name, raw, added, fixed) => {
  const loaded = parseConfig(raw);
  const got = withDemoRates(loaded);
  expect(got.added).toBe(added);
  expect(got.loaded.config.rates.fixed).toEqual(fixed);
  // The loaded config itself is never changed.
  expect(loaded.config.rates.fixed).toEqual("rates" in raw && "fixed" in raw.rates ? raw.rates.fixed : {});
});
