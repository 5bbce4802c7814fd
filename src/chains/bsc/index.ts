// BNB Smart Chain: BEP20 USDT/USDC, an EVM profile (chain id 56, BNB pays gas).
import { evmChainModule, type EvmChainProfile } from "../evm/module";

export const BSC_PROFILE: EvmChainProfile = {
  chain: "BSC",
  name: "BSC",
  chainId: 56,
  nativeSymbol: "BNB",
  uriScheme: "ethereum",
  label: { network: "BNB Smart Chain", standard: "BEP20" },
  explorer: { name: "BscScan", tx: "https://bscscan.com/tx/{tx}", address: "https://bscscan.com/address/{address}" },
};

export const bscChain = evmChainModule(BSC_PROFILE);
