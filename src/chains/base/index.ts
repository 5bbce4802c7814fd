// Base: USDC only (DESIGN 17), an EVM profile (an OP-stack L2, chain id 8453, ETH pays gas).
import { evmChainModule, type EvmChainProfile } from "../evm/module";

export const BASE_PROFILE: EvmChainProfile = {
  chain: "BASE",
  name: "Base",
  chainId: 8453,
  nativeSymbol: "ETH",
  bip44Account: 4,
  uriScheme: "ethereum",
  label: { network: "Base", standard: "ERC20" },
  color: "#0052ff",
  // The sequencer's unsafe head plus 10 blocks of 2 s; "safe"/"finalized" wait for L1 (docs/networks.md, "Finality per network").
  finality: "confirmations",
  // Type 2 by detection (Base has a base fee); the L1 data fee from the GasPriceOracle predeploy (docs/payouts.md).
  l1Fee: "op-stack",
  defaults: {
    enabled: false,
    confirmations: 10,
    blockTime: "2s",
    tokens: [{ chain: "BASE", symbol: "USDC", contract: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", decimals: 6 }],
  },
  explorer: { name: "BaseScan", tx: "https://basescan.org/tx/{tx}", address: "https://basescan.org/address/{address}" },
};

export const baseChain = evmChainModule(BASE_PROFILE);
