// A ChainModule from an EVM profile: another EVM chain is a profile plus labels, not a copy.
import { Type as T } from "@sinclair/typebox";
import type { ChainModule } from "../module";
import { DURATION_PATTERN, parseDuration } from "../../lib/duration";
import { deriveEvmKey, evmPath, isEvmAddress, normalizeEvmAddress, randomEvmAddress } from "./address";
import type { EvmFinality, EvmProfile } from "./adapter";
import { evmPayoutOps } from "./payout-steps";
import { evmUnrecordedOutgoing } from "./reconcile";

export interface EvmChainProfile extends EvmProfile {
  label: ChainModule["label"];
  color: ChainModule["color"];
  defaults: ChainModule["defaults"];
  explorer: ChainModule["explorer"];
  /** EIP-681 scheme of the payment URI ("ethereum": every EVM wallet registers it). */
  uriScheme: string;
  /** Default of `chains.<CODE>.finality` (docs/networks.md, "Finality per network"); absent: "confirmations". */
  finality?: EvmFinality;
}

/** The keys every EVM chain's section has beyond the common ones (DESIGN 17). */
const EVM_SECTION_KEYS = {
  replace_after: T.String({
    pattern: DURATION_PATTERN,
    default: "3m",
    description: "rpc mode: a payout transaction not confirmed this long is replaced (same nonce, fees raised at least 12.5 %, up to gas_price_cap; at the cap the payout_stuck alert fires)",
  }),
};

/** `chains.<CODE>.finality` (DESIGN 17): which block counts as final besides `confirmations`. */
const finalityKey = (d: EvmFinality) =>
  T.Union([T.Literal("confirmations"), T.Literal("safe"), T.Literal("finalized")], {
    default: d,
    description:
      'EVM chains: "confirmations" (final at `confirmations` blocks), "safe" or "finalized" (also at or below the node\'s block of that tag; docs/networks.md explains each chain\'s default)',
  });

// viem (~20 MB of RSS) loads only when an rpc-mode EVM adapter is built.
const rpcAdapter = (): typeof import("./adapter") => require("./adapter");

export function evmChainModule(p: EvmChainProfile): ChainModule {
  return {
    code: p.chain,
    label: p.label,
    color: p.color,
    defaults: { ...p.defaults, sectionKeys: { ...EVM_SECTION_KEYS, ...p.defaults.sectionKeys, finality: finalityKey(p.finality ?? "confirmations") } },
    native: { symbol: p.nativeSymbol, decimals: 18 },
    explorer: p.explorer,
    address: { isValid: (s) => isEvmAddress(s), normalize: (s) => normalizeEvmAddress(s), random: () => randomEvmAddress() },
    ids: { block: (h) => "0x" + Buffer.from(h).toString("hex"), tx: (h) => "0x" + Buffer.from(h).toString("hex") },
    derivation: { coinType: 60, account: p.bip44Account, path: (i) => evmPath(p.bip44Account, i) },
    deriveKey: (seed, index) => deriveEvmKey(seed, p.bip44Account, index),
    createAdapter: ({ cfg, tokens, logger, clock }) => {
      const adapter = rpcAdapter().createEvmAdapter(p, { rpcUrls: cfg.rpc_urls, tokens, confirmations: cfg.confirmations, finality: cfg.finality as EvmFinality | undefined, gasPriceCap: cfg.gas_price_cap ? BigInt(cfg.gas_price_cap) : undefined, logger, clock });
      return {
        adapter,
        estimateTransferFee: async (s) => ({ fee: await adapter.estimateTransferFee(s.from, s.to, s.token, s.amount) }),
        payoutOps: (ctx, env) => evmPayoutOps(ctx, adapter, env, { replaceAfterMs: parseDuration(typeof cfg.replace_after === "string" ? cfg.replace_after : "3m") }),
        unrecordedOutgoing: (ctx, q) => evmUnrecordedOutgoing(ctx, adapter, q),
      };
    },
    // EIP-681 (DESIGN 5): token contract at the chain id, recipient and base-unit amount.
    paymentUri: (token, address, amount) =>
      `${p.uriScheme}:${token.contract}@${p.chainId}/transfer?address=${address}` + (amount === null ? "" : `&uint256=${amount.toString()}`),
    // EIP-681 prefills token and amount in MetaMask, Trust, imToken, TokenPocket; a
    // deposit has no amount, and the bare address is what every wallet reads.
    walletLinks: { order: "paymentUri", deposit: "address", walletButton: true },
  };
}
