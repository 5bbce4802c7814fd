// BNB Smart Chain: BEP20 USDT/USDC on the EVM adapter, nonces and BNB top-ups for payouts.
import type { ChainModule } from "../module";
import { deriveBscKey, isBscAddress, normalizeBscAddress, randomBscAddress } from "./address";
import { createBscAdapter, type BscAdapter } from "./adapter";
import { bscPayoutOps } from "./payout-steps";
import type { ChainAdapter } from "../types";

const isEvmRpc = (a: ChainAdapter): a is BscAdapter => a.mode === "rpc" && "signNativeTransfer" in a && "nativeBalance" in a && "rpc" in a;

export const bscChain: ChainModule = {
  code: "BSC",
  label: { network: "BNB Smart Chain", standard: "BEP20" },
  explorer: { name: "BscScan", tx: "https://bscscan.com/tx/{tx}" },
  address: { isValid: (s) => isBscAddress(s), normalize: (s) => normalizeBscAddress(s), random: () => randomBscAddress() },
  deriveKey: (seed, index) => deriveBscKey(seed, index),
  createAdapter: ({ cfg, tokens, logger }) =>
    createBscAdapter({ rpcUrls: cfg.rpc_urls, tokens, confirmations: cfg.confirmations, gasPriceCap: cfg.gas_price_cap ? BigInt(cfg.gas_price_cap) : undefined, logger }),
  payoutOps: (ctx, adapter, locks) => (isEvmRpc(adapter) ? bscPayoutOps(ctx, adapter, locks) : undefined),
  // EIP-681 (DESIGN 5): token contract at chain id 56, recipient and base-unit amount.
  paymentUri: (token, address, amount) => `ethereum:${token.contract}@56/transfer?address=${address}` + (amount === null ? "" : `&uint256=${amount.toString()}`),
  // EIP-681 prefills token and amount in MetaMask, Trust, imToken, TokenPocket; a
  // deposit has no amount, and the bare address is what every wallet reads.
  walletLinks: { order: "paymentUri", deposit: "address", walletButton: true },
};
