import { expect, test } from "bun:test";
import { parseConfig } from "./load";

// DESIGN 8: a developer's receiver on 127.0.0.1 works out of the box in a sandbox gateway.
test.each([
  ["the embedded default (every chain sandbox)", {}, true],
  ["a sandbox gateway that says false", { callbacks: { allow_private_targets: false } }, false],
  ["an rpc chain", { chains: { TRON: { mode: "rpc", rpc_urls: ["http://127.0.0.1:1"] }, BSC: { enabled: false }, SOL: { enabled: false } } }, false],
  ["an rpc chain that says true", { callbacks: { allow_private_targets: true }, chains: { TRON: { mode: "rpc", rpc_urls: ["http://127.0.0.1:1"] }, BSC: { enabled: false }, SOL: { enabled: false } } }, true],
])("callbacks.allow_private_targets for %s: %p", (_name, raw, want) => {
  expect(parseConfig(raw).config.callbacks.allow_private_targets).toBe(want);
});
