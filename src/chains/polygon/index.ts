// Polygon PoS: USDT/USDC, an EVM profile (chain id 137, POL pays gas).
import { evmChainModule, type EvmChainProfile } from "../evm/module";

export const POLYGON_PROFILE: EvmChainProfile = {
  chain: "POLYGON",
  name: "Polygon",
  chainId: 137,
  nativeSymbol: "POL",
  bip44Account: 2,
  uriScheme: "ethereum",
  label: { network: "Polygon", standard: "ERC20" },
  color: "#8247e5",
  // Polygon has reorganised 100+ blocks; only its milestone-finalized block is safe (../shared/docs/chains.md, "finality").
  finality: "finalized",
  defaults: {
    enabled: false,
    confirmations: 5,
    blockTime: "2s",
    tokens: [
      { chain: "POLYGON", symbol: "USDT", contract: "0xc2132D05D31c914a87C6611C10748AEb04B58e8F", decimals: 6 },
      { chain: "POLYGON", symbol: "USDC", contract: "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359", decimals: 6 },
    ],
  },
  explorer: { name: "PolygonScan", tx: "https://polygonscan.com/tx/{tx}", address: "https://polygonscan.com/address/{address}" },
};

export const polygonChain = evmChainModule(POLYGON_PROFILE);
