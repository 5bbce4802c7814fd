// TRON: TRC20 USDT, base58check addresses, TRX top-ups before payouts.
import type { ChainModule } from "../module";
import { deriveTronKey, isTronAddress, normalizeTronAddress, randomTronAddress } from "./address";
import { createTronAdapter, type TronAdapter } from "./adapter";
import { tronPayoutOps } from "./payout-steps";
import { fromBaseUnits } from "../../lib/money";
import type { ChainAdapter } from "../types";
import { DEFAULT_TOKENS } from "../tokens";

const isTronRpc = (a: ChainAdapter): a is TronAdapter => a.mode === "rpc" && "signNativeTransfer" in a && "trxNeeded" in a;

/** TRC20 transfer energy to an existing holder, with the 20 % margin the signer adds (docs/chains.md). */
const TRANSFER_ENERGY = (65_000n * 12n) / 10n;
const TRANSFER_BANDWIDTH = 345n;

export const tronChain: ChainModule = {
  code: "TRON",
  defaults: { confirmations: 19, blockTime: "3s", tokens: DEFAULT_TOKENS.filter((t) => t.chain === "TRON") },
  label: { network: "TRON", standard: "TRC20" },
  color: "#eb0029",
  native: { symbol: "TRX", decimals: 6 },
  explorer: { name: "Tronscan", tx: "https://tronscan.org/#/transaction/{tx}", address: "https://tronscan.org/#/address/{address}" },
  address: { isValid: (s) => isTronAddress(s), normalize: (s) => normalizeTronAddress(s), random: () => randomTronAddress() },
  ids: { block: (h) => Buffer.from(h).toString("hex"), tx: (h) => Buffer.from(h).toString("hex") },
  derivation: { coinType: 195, account: 0, path: (i) => `m/44'/195'/0'/0/${i}` },
  deriveKey: (seed, index) => deriveTronKey(seed, index),
  createAdapter: ({ cfg, tokens, logger, clock }) => createTronAdapter({ rpcUrls: cfg.rpc_urls, apiKey: cfg.api_key, tokens, confirmations: cfg.confirmations, logger, clock }),
  // Energy of a TRC20 transfer to an existing holder, with the signer's 20 % margin, plus its bandwidth, at the node's prices.
  estimateTransferFee: async (adapter) => {
    if (!isTronRpc(adapter)) return undefined;
    const p = await adapter.chainParams();
    return { fee: TRANSFER_ENERGY * p.energyFee + TRANSFER_BANDWIDTH * p.transactionFee };
  },
  payoutOps: (ctx, adapter, env) => (isTronRpc(adapter) ? tronPayoutOps(ctx, adapter, env) : undefined),
  paymentUri: (token, address, amount) => {
    const ui = amount === null ? null : fromBaseUnits(amount, token.decimals, 0);
    return `tron:${address}?` + (ui === null ? "" : `amount=${ui}&`) + `token=${token.contract}`;
  },
  // No TRON wallet documents a payment URI; all of them read a bare address.
  walletLinks: { order: "address", deposit: "address", walletButton: false },
};
