import { describe, expect, test } from "bun:test";
import type { ChainAdapter, ChainCode } from "../chains/types";
import { explorerUrl, nativeSymbol } from "./format";

const ctxOf = (modes: Partial<Record<string, "rpc" | "sandbox">>) => ({
  chains: new Map(Object.entries(modes).map(([c, mode]) => [c as ChainCode, { mode } as ChainAdapter])),
});

describe("back-office links and coin names come from the chain modules", () => {
  test.each([
    ["TRON", "tx", "ab12", "https://tronscan.org/#/transaction/ab12"],
    ["TRON", "address", "TXYZ", "https://tronscan.org/#/address/TXYZ"],
    ["BSC", "tx", "0xab", "https://bscscan.com/tx/0xab"],
    ["BSC", "address", "0xAb", "https://bscscan.com/address/0xAb"],
    ["SOL", "tx", "5sig", "https://solscan.io/tx/5sig"],
    ["SOL", "address", "Own3r", "https://solscan.io/account/Own3r"],
    ["ETH", "tx", "0xab", "https://etherscan.io/tx/0xab"],
    ["POLYGON", "address", "0xAb", "https://polygonscan.com/address/0xAb"],
    ["ARBITRUM", "tx", "0xab", "https://arbiscan.io/tx/0xab"],
    ["BASE", "address", "0xAb", "https://basescan.org/address/0xAb"],
    ["OPTIMISM", "tx", "0xab", "https://optimistic.etherscan.io/tx/0xab"],
    ["AVALANCHE", "address", "0xAb", "https://snowtrace.io/address/0xAb"],
    ["XLAYER", "tx", "0xab", "https://www.okx.com/web3/explorer/xlayer/tx/0xab"],
    ["PLASMA", "address", "0xAb", "https://plasmascan.to/address/0xAb"],
    ["TON", "tx", "ab12", "https://tonviewer.com/transaction/ab12"],
    ["TON", "address", "UQAb", "https://tonviewer.com/UQAb"],
  ] as const)("%s %s link", (chain, kind, value, url) => {
    expect(explorerUrl(ctxOf({ [chain]: "rpc" }), chain, kind, value)).toBe(url);
  });

  test("no public link on a sandbox chain, a disabled chain or an unknown code; values are URI-encoded", () => {
    expect(explorerUrl(ctxOf({ BSC: "sandbox" }), "BSC", "tx", "0xab")).toBeNull();
    expect(explorerUrl(ctxOf({}), "BSC", "tx", "0xab")).toBeNull();
    expect(explorerUrl(ctxOf({ DOGE: "rpc" }), "DOGE", "tx", "0xab")).toBeNull();
    expect(explorerUrl(ctxOf({ TRON: "rpc" }), "TRON", "tx", "a/b?c")).toBe("https://tronscan.org/#/transaction/a%2Fb%3Fc");
  });

  test.each([
    ["TRON", "TRX"],
    ["BSC", "BNB"],
    ["SOL", "SOL"],
    ["ETH", "ETH"],
    ["POLYGON", "POL"],
    ["ARBITRUM", "ETH"],
    ["BASE", "ETH"],
    ["OPTIMISM", "ETH"],
    ["AVALANCHE", "AVAX"],
    ["XLAYER", "OKB"],
    ["PLASMA", "XPL"],
    ["TON", "TON"],
    ["DOGE", ""],
  ])("native coin of %s: %p", (chain, symbol) => {
    expect(nativeSymbol(chain)).toBe(symbol);
  });
});
