// Solana: SPL USDC and USDT, base58 addresses, Solana Pay URIs; the gas wallet pays every fee.
import { createHash } from "node:crypto";
import { base58 } from "@scure/base";
import type { ChainModule } from "../module";
import { deriveSolKey, isSolAddress, normalizeSolAddress, randomSolAddress } from "./address";
import { solPayoutOps } from "./payout-steps";
import { provisionSolTokenAccounts } from "./token-accounts";
import { fromBaseUnits } from "../../lib/money";
import { filterSeq } from "../../lib/async-seq";

// @solana/web3.js and spl-token (~30 MB of RSS) load only when an rpc-mode SOL adapter is built.
const rpcAdapter = (): typeof import("./adapter") => require("./adapter");


/** Solana Pay reference: a stable 32-byte key per order, so the wallet's transaction can be found by it. */
export function solanaReference(orderNo: string): string {
  return base58.encode(createHash("sha256").update("stablegate-reference:" + orderNo).digest());
}

const SIGNATURE_FEE = 5_000n;

export const solChain: ChainModule = {
  code: "SOL",
  defaults: { confirmations: 32, blockTime: "400ms", tokens: [
      // Mainnet USDC mint (DESIGN 9); config may override mint and decimals.
      { chain: "SOL", symbol: "USDC", contract: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", decimals: 6 },
      // Mainnet USDT mint (DESIGN 17).
      { chain: "SOL", symbol: "USDT", contract: "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB", decimals: 6 },
    ],
  },
  label: { network: "Solana", standard: "SPL" },
  color: "linear-gradient(135deg,#9945ff,#14f195)",
  native: { symbol: "SOL", decimals: 9 },
  explorer: { name: "Solscan", tx: "https://solscan.io/tx/{tx}", address: "https://solscan.io/account/{address}" },
  address: { isValid: (s) => isSolAddress(s), normalize: (s) => normalizeSolAddress(s), random: () => randomSolAddress() },
  // A transaction id is its 64-byte signature.
  ids: { block: (h) => base58.encode(h), tx: (h) => base58.encode(Buffer.concat([h, createHash("sha256").update(h).digest()])) },
  derivation: { coinType: 501, account: null, path: (i) => `m/44'/501'/${i}'/0'` },
  deriveKey: (seed, index) => deriveSolKey(seed, index),
  createAdapter: ({ cfg, tokens, logger, clock }) => {
    const adapter = rpcAdapter().createSolAdapter({ rpcUrls: cfg.rpc_urls, tokens, confirmations: cfg.confirmations, logger, clock });
    return {
      adapter,
      // One signature (the gas wallet is the fee payer); rent for a new token account is extra, paid by the gas wallet.
      estimateTransferFee: async () => ({ fee: SIGNATURE_FEE, note: "plus rent when a recipient has no token account for the mint yet" }),
      payoutOps: (ctx, env) => solPayoutOps(ctx, adapter, env),
      // Restore reconcile: every transaction the source signed after the backup's cursor that the database did not store.
      unrecordedOutgoing: async (_ctx, q) => (q.since === null ? [] : await filterSeq((await adapter.signedBy(q.address, q.since)), async (t) => !await q.known(t.txHash))),
      // New receiving addresses get their token account from the gas wallet.
      jobs: (ctx, addresses) => [{ name: "sol-token-accounts", everyMs: 2000, run: () => provisionSolTokenAccounts(ctx, adapter, addresses) }],
    };
  },
  paymentUri: (token, address, amount, orderNo) => {
    const q = new URLSearchParams();
    if (amount !== null) q.set("amount", fromBaseUnits(amount, token.decimals, 0));
    q.set("spl-token", token.contract);
    if (orderNo) q.set("reference", solanaReference(orderNo));
    return `solana:${address}?${q.toString()}`;
  },
  // Solana Pay pins the token's mint (a bare address lets the payer send SOL by mistake).
  walletLinks: { order: "paymentUri", deposit: "paymentUri", walletButton: true },
};
