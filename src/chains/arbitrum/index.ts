// Arbitrum One: USDT/USDC, an EVM profile (an L2, chain id 42161, ETH pays gas).
import { evmChainModule, type EvmChainProfile } from "../evm/module";

export const ARBITRUM_PROFILE: EvmChainProfile = {
  chain: "ARBITRUM",
  name: "Arbitrum",
  chainId: 42161,
  nativeSymbol: "ETH",
  bip44Account: 3,
  uriScheme: "ethereum",
  label: { network: "Arbitrum One", standard: "ERC20" },
  color: "#28a0f0",
  // The sequencer's order (soft finality) plus 20 blocks of 250 ms; "safe"/"finalized" wait for L1 (docs/networks.md, "Finality per network").
  finality: "confirmations",
  // Type 2 by detection; the L1 component is in eth_estimateGas's gas limit (docs/payouts.md).
  l1Fee: "arbitrum",
  defaults: {
    enabled: false,
    confirmations: 20,
    blockTime: "250ms",
    tokens: [
      { chain: "ARBITRUM", symbol: "USDT", contract: "0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9", decimals: 6 },
      { chain: "ARBITRUM", symbol: "USDC", contract: "0xaf88d065e77c8cC2239327C5EDb3A432268e5831", decimals: 6 },
    ],
  },
  explorer: { name: "Arbiscan", tx: "https://arbiscan.io/tx/{tx}", address: "https://arbiscan.io/address/{address}" },
};

export const arbitrumChain = evmChainModule(ARBITRUM_PROFILE);
