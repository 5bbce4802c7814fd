// BNB Smart Chain: BEP20 USDT/USDC, an EVM profile (chain id 56, BNB pays gas).
import { evmChainModule, type EvmChainProfile } from "../evm/module";

export const BSC_PROFILE: EvmChainProfile = {
  chain: "BSC",
  name: "BSC",
  chainId: 56,
  nativeSymbol: "BNB",
  // Account 0: the addresses BSC has handed out since the first release stay where they are.
  bip44Account: 0,
  uriScheme: "ethereum",
  label: { network: "BNB Smart Chain", standard: "BEP20" },
  color: "#d99c00",
  // Fast finality makes block n final at n+2: 3 confirmations are final (../shared/docs/chains.md).
  finality: "confirmations",
  defaults: { confirmations: 3, blockTime: "450ms", tokens: [
      // Mainnet BEP20 contracts (DESIGN 9); config may override contract and decimals.
      { chain: "BSC", symbol: "USDT", contract: "0x55d398326f99059fF775485246999027B3197955", decimals: 18 },
      { chain: "BSC", symbol: "USDC", contract: "0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d", decimals: 18 },
    ],
  },
  explorer: { name: "BscScan", tx: "https://bscscan.com/tx/{tx}", address: "https://bscscan.com/address/{address}" },
};

export const bscChain = evmChainModule(BSC_PROFILE);
