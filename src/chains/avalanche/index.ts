// Avalanche C-Chain: USDT/USDC, an EVM profile (chain id 43114, AVAX pays gas).
import { evmChainModule, type EvmChainProfile } from "../evm/module";

export const AVALANCHE_PROFILE: EvmChainProfile = {
  chain: "AVALANCHE",
  name: "Avalanche",
  chainId: 43114,
  nativeSymbol: "AVAX",
  bip44Account: 6,
  uriScheme: "ethereum",
  label: { network: "Avalanche C-Chain", standard: "ERC20" },
  color: "#e84142",
  // Snowman: a block is final once accepted, and a node answers only accepted blocks; 2 blocks
  // (≈ 4 s) cover a node that lags its peers by one (docs/networks.md, "Finality per network").
  finality: "confirmations",
  // Type 2 by detection (the C-Chain has a base fee); no L1 data fee: an L1.
  defaults: {
    enabled: false,
    confirmations: 2,
    blockTime: "2s",
    tokens: [
      // Tether's and Circle's native C-Chain contracts, not the bridged USDT.e/USDC.e (docs/networks.md, "Token contracts").
      { chain: "AVALANCHE", symbol: "USDT", contract: "0x9702230A8Ea53601f5cD2dc00fDBc13d4dF4A8c7", decimals: 6 },
      { chain: "AVALANCHE", symbol: "USDC", contract: "0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E", decimals: 6 },
    ],
  },
  explorer: { name: "Snowtrace", tx: "https://snowtrace.io/tx/{tx}", address: "https://snowtrace.io/address/{address}" },
};

export const avalancheChain = evmChainModule(AVALANCHE_PROFILE);
