// Plasma: USDT0 only (DESIGN 23), an EVM profile (an L1 built for USDT, chain id 9745, XPL pays gas).
import { evmChainModule, type EvmChainProfile } from "../evm/module";

export const PLASMA_PROFILE: EvmChainProfile = {
  chain: "PLASMA",
  name: "Plasma",
  chainId: 9745,
  nativeSymbol: "XPL",
  bip44Account: 8,
  uriScheme: "ethereum",
  label: { network: "Plasma", standard: "ERC20" },
  color: "#162f29",
  // PlasmaBFT (Fast HotStuff) commits a block with a quorum certificate: final within about a
  // second; 3 blocks of 1 s cover a node behind the committed head (docs/networks.md, "Finality per network").
  finality: "confirmations",
  // Type 2 by detection; an L1: no L1 data fee. The gateway pays its own gas in XPL (it does not use the zero-fee USDT0 paymaster).
  defaults: {
    enabled: false,
    confirmations: 3,
    blockTime: "1s",
    tokens: [{ chain: "PLASMA", symbol: "USDT", contract: "0xB8CE59FC3717ada4C02eaDF9682A9e934F625ebb", decimals: 6 }],
  },
  explorer: { name: "Plasmascan", tx: "https://plasmascan.to/tx/{tx}", address: "https://plasmascan.to/address/{address}" },
};

export const plasmaChain = evmChainModule(PLASMA_PROFILE);
