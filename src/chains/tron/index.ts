// TRON: TRC20 USDT, base58check addresses, TRX top-ups before payouts.
import type { ChainModule } from "../module";
import { deriveTronKey, isTronAddress, normalizeTronAddress, randomTronAddress } from "./address";
import { createTronAdapter, type TronAdapter } from "./adapter";
import { tronPayoutOps } from "./payout-steps";
import { fromBaseUnits } from "../../lib/money";
import type { ChainAdapter } from "../types";

const isTronRpc = (a: ChainAdapter): a is TronAdapter => a.mode === "rpc" && "signNativeTransfer" in a && "trxNeeded" in a;

export const tronChain: ChainModule = {
  code: "TRON",
  label: { network: "TRON", standard: "TRC20" },
  native: { symbol: "TRX", decimals: 6 },
  explorer: { name: "Tronscan", tx: "https://tronscan.org/#/transaction/{tx}" },
  address: { isValid: (s) => isTronAddress(s), normalize: (s) => normalizeTronAddress(s), random: () => randomTronAddress() },
  ids: { block: (h) => Buffer.from(h).toString("hex"), tx: (h) => Buffer.from(h).toString("hex") },
  deriveKey: (seed, index) => deriveTronKey(seed, index),
  createAdapter: ({ cfg, tokens, logger, clock }) => createTronAdapter({ rpcUrls: cfg.rpc_urls, apiKey: cfg.api_key, tokens, confirmations: cfg.confirmations, logger, clock }),
  payoutOps: (ctx, adapter, locks) => (isTronRpc(adapter) ? tronPayoutOps(ctx, adapter, locks) : undefined),
  paymentUri: (token, address, amount) => {
    const ui = amount === null ? null : fromBaseUnits(amount, token.decimals, 0);
    return `tron:${address}?` + (ui === null ? "" : `amount=${ui}&`) + `token=${token.contract}`;
  },
  // No TRON wallet documents a payment URI; all of them read a bare address.
  walletLinks: { order: "address", deposit: "address", walletButton: false },
};
