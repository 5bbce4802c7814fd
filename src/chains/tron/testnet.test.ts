// Opt-in, manual: real full-node behaviour on TRON Nile (or any TRON HTTP endpoint).
// Skipped unless STABLEGATE_TRON_TESTNET_RPC is set (comma-separated URLs, e.g.
// https://nile.trongrid.io). Optional: STABLEGATE_TRON_TESTNET_API_KEY (TRON-PRO-API-KEY),
// STABLEGATE_TRON_TESTNET_TOKEN=<contract>[:decimals] (Nile USDT-like token; default 6 decimals).
import { describe, expect, test } from "bun:test";
import { sha256 } from "@noble/hashes/sha2.js";
import { watchSetOf } from "../../testing/watch-set";
import type { TokenInfo } from "../types";
import { deriveTronKey } from "./address";
import { createTronAdapter } from "./adapter";

const urls = process.env.STABLEGATE_TRON_TESTNET_RPC?.split(",").map((u) => u.trim()).filter(Boolean) ?? [];
const tokenEnv = process.env.STABLEGATE_TRON_TESTNET_TOKEN;

describe("TRON testnet (opt-in)", () => {
  test.skipIf(urls.length === 0)(
    "SKIPPED unless STABLEGATE_TRON_TESTNET_RPC is set: head, solidified block, block hashes and a scan on the real testnet",
    async () => {
      const tokens: TokenInfo[] = [];
      if (tokenEnv) {
        const [contract, decimals = "6"] = tokenEnv.split(":");
        tokens.push({ chain: "TRON", symbol: "USDT", contract, decimals: Number(decimals) });
      }
      const adapter = createTronAdapter({ rpcUrls: urls, apiKey: process.env.STABLEGATE_TRON_TESTNET_API_KEY, tokens, confirmations: 19 });
      await adapter.start();
      const head = await adapter.head();
      expect(head.latest).toBeGreaterThan(0n);
      expect(head.final).toBeLessThanOrEqual(head.latest);
      expect(head.latest - head.final).toBeLessThan(60n);
      expect(Math.abs(Date.now() - head.time)).toBeLessThan(5 * 60_000);
      const watched = [0, 1, 2].map((i) => deriveTronKey(sha256(new TextEncoder().encode("testnet")), i).address);
      const { tip } = await adapter.scan(head.final - 9n, head.final, watchSetOf(watched));
      expect(tip.number).toBe(head.final);
      expect(await adapter.blockHash(head.final)).toBe(tip.hash);
      if (tokens.length) expect(await adapter.tokenBalance(watched[0], "USDT")).toBe(0n);
    },
    60_000,
  );
});
