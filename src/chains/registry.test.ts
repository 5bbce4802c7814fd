import { describe, expect, test } from "bun:test";
import { mnemonicToSeedSync } from "@scure/bip39";
import { chainModule, chainModules, hasChainModule } from "./registry";

const SEED = mnemonicToSeedSync("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about");
const PRODUCT = ["TRON", "BSC", "SOL", "ETH", "POLYGON", "ARBITRUM", "BASE", "OPTIMISM", "AVALANCHE", "XLAYER", "PLASMA", "TON"] as const;

describe("chain registry", () => {
  test("every product chain code has exactly one module, under its own code", () => {
    expect(chainModules().map((m) => m.code).sort()).toEqual(["ARBITRUM", "AVALANCHE", "BASE", "BSC", "ETH", "OPTIMISM", "PLASMA", "POLYGON", "SOL", "TON", "TRON", "XLAYER"]);
    for (const c of PRODUCT) expect(chainModule(c).code).toBe(c);
    expect(hasChainModule("DOGE")).toBe(false);
    expect(() => chainModule("DOGE" as never)).toThrow("unknown chain: DOGE");
  });

  // DESIGN 17 and 23: each new EVM network's chain id, native coin and mainnet token facts (their
  // sources: docs/networks.md, "Token contracts"), off by default.
  test.each([
    ["ETH", 1, "ETH", { USDT: ["0xdAC17F958D2ee523a2206206994597C13D831ec7", 6], USDC: ["0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", 6] }],
    ["POLYGON", 137, "POL", { USDT: ["0xc2132D05D31c914a87C6611C10748AEb04B58e8F", 6], USDC: ["0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359", 6] }],
    ["ARBITRUM", 42161, "ETH", { USDT: ["0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9", 6], USDC: ["0xaf88d065e77c8cC2239327C5EDb3A432268e5831", 6] }],
    ["BASE", 8453, "ETH", { USDC: ["0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", 6] }],
    ["OPTIMISM", 10, "ETH", { USDT: ["0x01bFF41798a0BcF287b996046Ca68b395DbC1071", 6], USDC: ["0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85", 6] }],
    ["AVALANCHE", 43114, "AVAX", { USDT: ["0x9702230A8Ea53601f5cD2dc00fDBc13d4dF4A8c7", 6], USDC: ["0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E", 6] }],
    ["XLAYER", 196, "OKB", { USDT: ["0x779Ded0c9e1022225f8E0630b35a9b54bE713736", 6], USDC: ["0xB6CEceAB302E2E4948951eE7843FC24E92933061", 6] }],
    ["PLASMA", 9745, "XPL", { USDT: ["0xB8CE59FC3717ada4C02eaDF9682A9e934F625ebb", 6] }],
  ] as const)("%s: chain id %d, native %s, the table's tokens; off unless enabled", (c, chainId, native, tokens) => {
    const m = chainModule(c);
    expect(m.native).toEqual({ symbol: native, decimals: 18 });
    expect(Object.fromEntries(m.defaults.tokens.map((t) => [t.symbol, [t.contract, t.decimals]]))).toEqual(tokens as never);
    expect(m.defaults.enabled).toBe(false);
    const t = m.defaults.tokens[0]!;
    expect(m.paymentUri(t, "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", 5n, "PI1")).toBe(`ethereum:${t.contract}@${chainId}/transfer?address=0x70997970C51812dc3A010C7d01b50e0d17dc79C8&uint256=5`);
  });

  test.each(PRODUCT)("%s: derived and random addresses are valid and canonical; the payment URI names the address and token", (c) => {
    const m = chainModule(c);
    const derived = m.deriveKey(SEED, 7).address;
    const random = m.address.random();
    for (const a of [derived, random]) {
      expect(m.address.isValid(a)).toBe(true);
      expect(m.address.normalize(a)).toBe(a);
    }
    expect(m.address.isValid("not-an-address")).toBe(false);
    const token = chainModule(c).defaults.tokens[0]!;
    const uri = m.paymentUri(token, derived, 10n ** BigInt(token.decimals), "PI1");
    expect(uri).toContain(derived);
    expect(uri).toContain(token.contract);
    expect(m.explorer.tx).toContain("{tx}");
  });

  test.each([
    ...(["BSC", "ETH", "POLYGON", "ARBITRUM", "BASE", "OPTIMISM", "AVALANCHE", "XLAYER", "PLASMA"] as const).map((c) => [c, /^0x[0-9a-f]{64}$/, /^0x[0-9a-f]{64}$/] as const),
    ["TRON", /^[0-9a-f]{64}$/, /^[0-9a-f]{64}$/],
    // Tonviewer takes a transaction's hash in hex.
    ["TON", /^[0-9a-f]{64}$/, /^[0-9a-f]{64}$/],
    // A Solana transaction id is a 64-byte signature in base58; a block hash 32 bytes.
    ["SOL", /^[1-9A-HJ-NP-Za-km-z]{43,44}$/, /^[1-9A-HJ-NP-Za-km-z]{86,88}$/],
  ] as const)("%s writes block and transaction ids the way its explorers do", (c, block, tx) => {
    const h = new Uint8Array(32).fill(7);
    expect(chainModule(c).ids.block(h)).toMatch(block);
    expect(chainModule(c).ids.tx(h)).toMatch(tx);
  });
});
