import { describe, expect, test } from "bun:test";
import { networkName, networkOnlyName, pickLocale } from "./i18n";

describe("pickLocale", () => {
  test.each([
    [null, null, "en"],
    ["", null, "en"],
    ["zh-CN,zh;q=0.9,en;q=0.8", null, "zh"],
    ["zh-TW", null, "zh"],
    ["en-US,en;q=0.9", null, "en"],
    ["fr-FR,fr;q=0.9", null, "en"],
    ["fr-FR,zh;q=0.5", null, "zh"],
    ["en;q=0.4,zh;q=0.8", null, "zh"],
    ["zh;q=0,en;q=0.1", null, "en"],
    ["ZH-cn", null, "zh"],
    ["zh-CN", "en", "en"],
    ["en-US", "zh", "zh"],
    ["zh-CN", "de", "zh"],
  ])("Accept-Language %p with ?lang=%p -> %p", (header, explicit, expected) => {
    expect(pickLocale(header, explicit) as string).toBe(expected);
  });
});

describe("network names", () => {
  test.each([
    ["TRON", "USDT", "USDT on TRON (TRC20)"],
    ["BSC", "USDT", "USDT on BNB Smart Chain (BEP20)"],
    ["BSC", "USDC", "USDC on BNB Smart Chain (BEP20)"],
    ["SOL", "USDC", "USDC on Solana (SPL)"],
    ["ETH", "USDT", "USDT on Ethereum (ERC20)"],
    ["POLYGON", "USDC", "USDC on Polygon (ERC20)"],
    ["ARBITRUM", "USDT", "USDT on Arbitrum One (ERC20)"],
    ["BASE", "USDC", "USDC on Base (ERC20)"],
    ["OPTIMISM", "USDT", "USDT on OP Mainnet (ERC20)"],
    ["AVALANCHE", "USDC", "USDC on Avalanche C-Chain (ERC20)"],
    ["XLAYER", "USDT", "USDT on X Layer (ERC20)"],
    ["PLASMA", "USDT", "USDT on Plasma (ERC20)"],
  ] as const)("%s %s", (chain, token, expected) => {
    expect(networkName("en", chain, token)).toBe(expected);
  });

  test("Chinese names keep the network and standard", () => {
    expect(networkName("zh", "TRON", "USDT")).toBe("TRON 网络（TRC20）上的 USDT");
    expect(networkOnlyName("en", "SOL")).toBe("Solana (SPL)");
  });
});
