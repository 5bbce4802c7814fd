// Solana: SPL USDC, base58 addresses, Solana Pay URIs; the gas wallet pays every fee.
import { createHash } from "node:crypto";
import { base58 } from "@scure/base";
import type { ChainModule } from "../module";
import { deriveSolKey, isSolAddress, normalizeSolAddress, randomSolAddress } from "./address";
import type { SolAdapter } from "./adapter";
import { solPayoutOps } from "./payout-steps";
import { provisionSolTokenAccounts } from "./token-accounts";
import { fromBaseUnits } from "../../lib/money";
import type { ChainAdapter } from "../types";

// @solana/web3.js and spl-token (~30 MB of RSS) load only when an rpc-mode SOL adapter is built.
const rpcAdapter = (): typeof import("./adapter") => require("./adapter");

const isSolRpc = (a: ChainAdapter): a is SolAdapter => a.mode === "rpc" && "tokenAccountOf" in a && "nativeBalance" in a;

/** Solana Pay reference: a stable 32-byte key per order, so the wallet's transaction can be found by it. */
export function solanaReference(orderNo: string): string {
  return base58.encode(createHash("sha256").update("stablegate-reference:" + orderNo).digest());
}

export const solChain: ChainModule = {
  code: "SOL",
  label: { network: "Solana", standard: "SPL" },
  native: { symbol: "SOL", decimals: 9 },
  explorer: { name: "Solscan", tx: "https://solscan.io/tx/{tx}" },
  address: { isValid: (s) => isSolAddress(s), normalize: (s) => normalizeSolAddress(s), random: () => randomSolAddress() },
  // A transaction id is its 64-byte signature.
  ids: { block: (h) => base58.encode(h), tx: (h) => base58.encode(Buffer.concat([h, createHash("sha256").update(h).digest()])) },
  deriveKey: (seed, index) => deriveSolKey(seed, index),
  createAdapter: ({ cfg, tokens, logger, clock }) => rpcAdapter().createSolAdapter({ rpcUrls: cfg.rpc_urls, tokens, confirmations: cfg.confirmations, logger, clock }),
  payoutOps: (ctx, adapter) => (isSolRpc(adapter) ? solPayoutOps(ctx, adapter) : undefined),
  // New receiving addresses get their token account from the gas wallet.
  jobs: (ctx, adapter) => (isSolRpc(adapter) ? [{ name: "sol-token-accounts", everyMs: 2000, run: () => provisionSolTokenAccounts(ctx, adapter) }] : []),
  paymentUri: (token, address, amount, orderNo) => {
    const q = new URLSearchParams();
    if (amount !== null) q.set("amount", fromBaseUnits(amount, token.decimals, 0));
    q.set("spl-token", token.contract);
    if (orderNo) q.set("reference", solanaReference(orderNo));
    return `solana:${address}?${q.toString()}`;
  },
  // Solana Pay pins the USDC mint (a bare address lets the payer send SOL by mistake).
  walletLinks: { order: "paymentUri", deposit: "paymentUri", walletButton: true },
};
