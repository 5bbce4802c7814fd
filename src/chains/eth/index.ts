// Ethereum mainnet: ERC20 USDT/USDC, an EVM profile (chain id 1, ETH pays gas).
import { evmChainModule, type EvmChainProfile } from "../evm/module";

export const ETH_PROFILE: EvmChainProfile = {
  chain: "ETH",
  name: "Ethereum",
  chainId: 1,
  nativeSymbol: "ETH",
  // Its own BIP-44 account (DESIGN 16): BSC has 0, the chains added with it 1..4.
  bip44Account: 1,
  uriScheme: "ethereum",
  label: { network: "Ethereum", standard: "ERC20" },
  color: "#627eea",
  // 12 blocks (≈ 2.4 min): deeper than any reorg since the Merge (../shared/docs/chains.md, "finality").
  finality: "confirmations",
  defaults: {
    enabled: false,
    confirmations: 12,
    blockTime: "12s",
    tokens: [
      // Mainnet contracts (DESIGN 17); config may override contract and decimals.
      { chain: "ETH", symbol: "USDT", contract: "0xdAC17F958D2ee523a2206206994597C13D831ec7", decimals: 6 },
      { chain: "ETH", symbol: "USDC", contract: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", decimals: 6 },
    ],
  },
  explorer: { name: "Etherscan", tx: "https://etherscan.io/tx/{tx}", address: "https://etherscan.io/address/{address}" },
};

export const ethChain = evmChainModule(ETH_PROFILE);
