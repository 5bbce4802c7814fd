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

// Issue 30: operators set up 2FA before anything else where real money moves; sandbox gateways are for trying out.
const RPC_TRON = { TRON: { mode: "rpc", rpc_urls: ["http://127.0.0.1:1"] }, BSC: { enabled: false }, SOL: { enabled: false } };
test.each([
  ["the embedded default (every chain sandbox)", {}, false],
  ["a sandbox gateway that says true", { backoffice: { require_2fa: true } }, true],
  ["an rpc chain", { chains: RPC_TRON }, true],
  ["an rpc chain that says false", { backoffice: { require_2fa: false }, chains: RPC_TRON }, false],
])("backoffice.require_2fa for %s: %p", (_name, raw, want) => {
  expect(parseConfig(raw).config.backoffice.require_2fa).toBe(want);
});
