// Opt-in, manual: real RPC behaviour on Solana devnet. Skipped unless STABLEGATE_SOL_DEVNET_RPC
// is set (comma-separated URLs). Uses devnet's USDC mint unless STABLEGATE_SOL_DEVNET_MINT is given.
import { describe, expect, test } from "bun:test";
import { someSolAddresses } from "../../testing/sol-fixture";
import { watchSetOf } from "../../testing/watch-set";
import { createSolAdapter } from "./adapter";

const urls = process.env.STABLEGATE_SOL_DEVNET_RPC?.split(",").map((u) => u.trim()).filter(Boolean) ?? [];
const mint = process.env.STABLEGATE_SOL_DEVNET_MINT ?? "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU";

describe("Solana devnet (opt-in)", () => {
  test.skipIf(urls.length === 0)(
    "SKIPPED unless STABLEGATE_SOL_DEVNET_RPC is set: mint decimals, head, and a scan of the mint's own activity window",
    async () => {
      const adapter = createSolAdapter({ rpcUrls: urls, tokens: [{ chain: "SOL", symbol: "USDC", contract: mint, decimals: 6 }], confirmations: 32 });
      await adapter.start();
      const head = await adapter.head();
      expect(head.latest).toBeGreaterThan(head.final);
      expect(head.scanTo).toBe(head.final);
      expect(Math.abs(Date.now() - head.time)).toBeLessThan(5 * 60_000);
      const { tip, transfers } = await adapter.scan(head.final - 500n, head.final, watchSetOf(someSolAddresses(3, "devnet")));
      expect(tip.number).toBe(head.final);
      expect(transfers).toEqual([]);
    },
    60_000,
  );
});
