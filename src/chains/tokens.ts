import type { ChainCode, TokenInfo, TokenSymbol } from "./types";

/** Mainnet token facts (DESIGN 9); config may override contract and decimals. */
export const DEFAULT_TOKENS: readonly TokenInfo[] = [
  { chain: "TRON", symbol: "USDT", contract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", decimals: 6 },
  { chain: "BSC", symbol: "USDT", contract: "0x55d398326f99059fF775485246999027B3197955", decimals: 18 },
  { chain: "BSC", symbol: "USDC", contract: "0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d", decimals: 18 },
  { chain: "SOL", symbol: "USDC", contract: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", decimals: 6 },
];

export function defaultToken(chain: ChainCode, symbol: TokenSymbol): TokenInfo | undefined {
  return DEFAULT_TOKENS.find((t) => t.chain === chain && t.symbol === symbol);
}
