// OP Mainnet: USDT0/USDC, an EVM profile (an OP-stack L2, chain id 10, ETH pays gas).
import { evmChainModule, type EvmChainProfile } from "../evm/module";

export const OPTIMISM_PROFILE: EvmChainProfile = {
  chain: "OPTIMISM",
  name: "Optimism",
  chainId: 10,
  nativeSymbol: "ETH",
  // Its own BIP-44 account (DESIGN 16): the next after BASE (4).
  bip44Account: 5,
  uriScheme: "ethereum",
  label: { network: "OP Mainnet", standard: "ERC20" },
  color: "#ff0420",
  // The sequencer's unsafe head plus 10 blocks of 2 s, as on Base; "safe"/"finalized" wait for L1 (docs/networks.md, "Finality per network").
  finality: "confirmations",
  // Type 2 by detection; the L1 data fee from the GasPriceOracle predeploy, as on Base (docs/payouts.md).
  l1Fee: "op-stack",
  defaults: {
    enabled: false,
    confirmations: 10,
    blockTime: "2s",
    tokens: [
      // USDT is USDT0 (Tether's OFT, docs.usdt0.to deployments); USDC is Circle's native one (docs/networks.md, "Token contracts").
      { chain: "OPTIMISM", symbol: "USDT", contract: "0x01bFF41798a0BcF287b996046Ca68b395DbC1071", decimals: 6 },
      { chain: "OPTIMISM", symbol: "USDC", contract: "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85", decimals: 6 },
    ],
  },
  explorer: { name: "Optimism Etherscan", tx: "https://optimistic.etherscan.io/tx/{tx}", address: "https://optimistic.etherscan.io/address/{address}" },
};

export const optimismChain = evmChainModule(OPTIMISM_PROFILE);
