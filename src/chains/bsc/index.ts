// BNB Smart Chain: BEP20 USDT/USDC, an EVM profile (chain id 56, BNB pays gas).
import { evmChainModule, type EvmChainProfile } from "../evm/module";
import { DEFAULT_TOKENS } from "../tokens";

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
  defaults: { confirmations: 3, blockTime: "450ms", tokens: DEFAULT_TOKENS.filter((t) => t.chain === "BSC") },
  explorer: { name: "BscScan", tx: "https://bscscan.com/tx/{tx}", address: "https://bscscan.com/address/{address}" },
};

export const bscChain = evmChainModule(BSC_PROFILE);
