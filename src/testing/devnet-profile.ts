// The test-only EVM chain (chain id 31337, code DEVNET): "another EVM chain is a
// profile, not a copy" (src/chains/evm/profile.e2e.test.ts runs it on anvil) and the
// derivation-space collision test (src/chains/derivation.test.ts) derives on it.
// Registered by the tests that use it, never by the product.
import type { EvmChainProfile } from "../chains/evm/module";
import type { ChainCode, TokenInfo } from "../chains/types";
import { TOKEN_ADDRESSES } from "./anvil";

export const DEVNET_CODE = "DEVNET" as ChainCode; // not a product chain: the registry knows it only where a test registers it
export const DEVNET_TOKENS: TokenInfo[] = [{ chain: DEVNET_CODE, symbol: "USDT", contract: TOKEN_ADDRESSES.USDT, decimals: 18 }];
export const DEVNET_PROFILE: EvmChainProfile = {
  chain: DEVNET_CODE,
  name: "Devnet",
  chainId: 31337,
  nativeSymbol: "ETH",
  // Test-only profiles take their chain id as BIP-44 account: never a product chain's.
  bip44Account: 31337,
  uriScheme: "ethereum",
  label: { network: "Devnet", standard: "ERC20" },
  color: "#627eea",
  defaults: { confirmations: 2, blockTime: "1s", tokens: DEVNET_TOKENS },
  explorer: { name: "Devscan", tx: "https://devscan.example/tx/{tx}", address: "https://devscan.example/address/{address}" },
};
