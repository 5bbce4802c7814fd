// Opt-in, manual: real RPC behaviour on BSC testnet (chain id 97). Skipped unless
// STABLEGATE_BSC_TESTNET_RPC is set (comma-separated URLs). Optional token to check and scan:
// STABLEGATE_BSC_TESTNET_TOKEN=<contract>[:decimals] (default 18 decimals).
import { describe, expect, test } from "bun:test";
import { someAddresses } from "../../testing/bsc-fixture";
import { watchSetOf } from "../../testing/watch-set";
import type { TokenInfo } from "../types";
import { createBscAdapter } from "./adapter";

const urls = process.env.STABLEGATE_BSC_TESTNET_RPC?.split(",").map((u) => u.trim()).filter(Boolean) ?? [];
const tokenEnv = process.env.STABLEGATE_BSC_TESTNET_TOKEN;

describe("BSC testnet (opt-in)", () => {
  test.skipIf(urls.length === 0)(
    "SKIPPED unless STABLEGATE_BSC_TESTNET_RPC is set: head, block hashes and a chunked scan on the real testnet",
    async () => {
      const tokens: TokenInfo[] = [];
      if (tokenEnv) {
        const [contract, decimals = "18"] = tokenEnv.split(":");
        tokens.push({ chain: "BSC", symbol: "USDT", contract, decimals: Number(decimals) });
      }
      const adapter = createBscAdapter({ rpcUrls: urls, tokens, confirmations: 3, chainId: 97, maxLogRange: 50 });
      await adapter.start();
      const head = await adapter.head();
      expect(head.latest).toBeGreaterThan(0n);
      expect(head.final).toBe(head.latest - 2n);
      expect(Math.abs(Date.now() - head.time)).toBeLessThan(5 * 60_000);

      const from = head.final - 99n;
      const { tip } = await adapter.scan(from, head.final, watchSetOf(someAddresses(3, "testnet")));
      expect(tip.number).toBe(head.final);
      expect(await adapter.blockHash(head.final)).toBe(tip.hash);
    },
  );
});
