// The one place a chain is defined: each chain folder's index.ts exports a ChainModule
// and src/chains/registry.ts maps its code to it. Code outside src/chains/ asks the
// module (address rules, keys, adapter, payout steps, payment URI, page links, labels)
// instead of switching on a chain code.
import type { Db } from "../db/client";
import type { Clock } from "../lib/clock";
import type { Logger } from "../lib/logger";
import type { ChainConfig } from "../config/schema";
import type { KeyedLock, PayoutChainOps } from "../payout/executor";
import type { RpcLogger } from "./json-rpc";
import type { ChainAdapter, ChainCode, DerivedKey, TokenInfo } from "./types";

/** What the hosted pages put in a QR: the bare address, or the API's paymentUri. */
export type QrSource = "address" | "paymentUri";

export interface WalletLinkRule {
  /** QR of a pay-in order (amount known). */
  order: QrSource;
  /** QR of an exclusive deposit address (no amount). */
  deposit: QrSource;
  /** Whether the paymentUri is worth a button: some installed wallet registers its scheme. */
  walletButton: boolean;
}

export interface ChainJob {
  name: string;
  everyMs: number;
  run(): Promise<unknown>;
}

/** What a chain's payout steps and jobs read from the gateway. */
export interface ChainModuleCtx {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** The HD seed (keys of the sources and the gas wallet). */
  seed: Uint8Array;
}

export interface ChainModule {
  code: ChainCode;
  /** Names the payer sees ("BNB Smart Chain", "BEP20"). */
  label: { network: string; standard: string };
  /** The coin that pays fees: symbol and decimals of its base unit (BNB wei, TRX sun, SOL lamports). */
  native: { symbol: string; decimals: number };
  /** Public block explorer, for the payer's "View transaction" link ({tx} is replaced). */
  explorer: { name: string; tx: string };
  /** Address codec: validity, the canonical stored form (throws on invalid), and a random valid one. */
  address: {
    isValid(s: string): boolean;
    normalize(s: string): string;
    random(): string;
  };
  /** How this chain writes block and transaction ids, from 32 hash bytes (the sandbox chain mints them). */
  ids: { block(h: Uint8Array): string; tx(h: Uint8Array): string };
  /** HD key of `index` on this chain's path (DESIGN 9). */
  deriveKey(seed: Uint8Array, index: number): DerivedKey;
  /** The rpc-mode adapter for a chain's config section. */
  createAdapter(a: { cfg: ChainConfig; tokens: TokenInfo[]; logger: RpcLogger; clock?: Clock }): ChainAdapter;
  /** Chain-specific payout steps (nonces, gas top-ups, fee payers) for an rpc-mode adapter of this chain. */
  payoutOps(ctx: ChainModuleCtx, adapter: ChainAdapter, locks: KeyedLock): PayoutChainOps | undefined;
  /** Background jobs an rpc-mode adapter needs (Solana: token-account provisioning). */
  jobs?(ctx: ChainModuleCtx, adapter: ChainAdapter): ChainJob[];
  /** The wallet-launch URI of DESIGN 5 (amount null: an exclusive address, any amount). */
  paymentUri(token: TokenInfo, address: string, amount: bigint | null, orderNo?: string): string;
  /** What the hosted pages show (docs/wallet-links.md). */
  walletLinks: WalletLinkRule;
}
