// The one place a chain is defined: each chain folder's index.ts exports a ChainModule
// and src/chains/registry.ts maps its code to it. Code outside src/chains/ asks the
// module (address rules, keys, adapter, payout steps, payment URI, page links, labels)
// instead of switching on a chain code.
import type { TSchema } from "@sinclair/typebox";
import type { Db } from "../db/client";
import type { Clock } from "../lib/clock";
import type { Logger } from "../lib/logger";
import type { AddressBook, PayoutChainOps, PayoutStepEnv, PayoutStore } from "./payout-steps";
import type { RpcLogger } from "./json-rpc";
import type { RpcEndpoint } from "./common/failover";
import type { ChainAdapter, ChainCode, DerivedKey, TokenInfo, TokenSymbol } from "./types";
import type { SandboxChain } from "./sandbox/chain";
import type { SandboxRules } from "./sandbox/rules";

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

export interface FeeSample {
  from: string;
  to: string;
  token: TokenSymbol;
  amount: bigint;
}

export interface FeeEstimate {
  fee: bigint;
  /** Why it is rough (Solana: rent of a new token account is extra). */
  note?: string;
}

/** What an rpc-mode adapter reads of its chain's config section (`chains.<CODE>`, src/config/schema.ts). */
export interface ChainNodeConfig {
  /** The chain's own keys (`defaults.sectionKeys`) are read by its module alone. */
  [key: string]: unknown;
  /** URLs, or { url, rate_limit, api_keys } tables (DESIGN 25). */
  rpc_urls: RpcEndpoint[];
  confirmations: number;
  api_key?: string;
  gas_price_cap?: string;
}

/** A chain's config section as the registry reads it to build the adapter. */
export interface ChainSectionConfig extends ChainNodeConfig {
  enabled: boolean;
  mode: "sandbox" | "rpc";
  /** The sandbox chain's block pace (a duration). */
  block_time: string;
  tokens: object;
}

/** A chain's defaults: its `chains.<CODE>` config section is built from them (key names: DESIGN 3). */
export interface ChainDefaults {
  /** `enabled`: false for a chain operators opt into (DESIGN 17: the EVM chains after BSC); absent: true. */
  enabled?: boolean;
  /** `confirmations`: blocks, the transfer's included, before a pay-in completes. */
  confirmations: number;
  /** `block_time`: the sandbox chain's block pace. */
  blockTime: string;
  /** The chain's tokens with their mainnet contracts (DESIGN 9); `tokens.<SYMBOL>` overrides each. */
  tokens: readonly TokenInfo[];
  /**
   * Keys only this chain's section has (TRON: the `energy` table, DESIGN 21), as TypeBox schemas;
   * config/schema.ts adds them to `chains.<CODE>` and the section reaches `createAdapter` whole.
   */
  sectionKeys?: Readonly<Record<string, TSchema>>;
}

/** An outgoing transfer from a gateway address that the database does not know (restore reconcile, DESIGN 16). */
export interface UnrecordedTransfer {
  /** Null when the chain only tells that something was sent (an EVM nonce used, no token transfer found for it). */
  txHash: string | null;
  /** EVM: the nonce it used. */
  nonce?: number;
  blockNumber?: bigint;
  to?: string;
  /** Token symbol, or the native coin's. */
  asset?: string;
  /** Base units of `asset`. */
  amount?: bigint;
}

export interface OutgoingQuery {
  /** The source address (canonical form). */
  address: string;
  /** The backup's scan cursor on this chain: transfers after this block count; null when the chain had never been scanned. */
  since: bigint | null;
  /** Whether the database stored this transaction (a payout, a gas top-up, a token-account creation). */
  known(txHash: string): Promise<boolean>;
  /** The payout orders, through their port (EVM: the nonces the database stored). */
  payouts: PayoutStore;
  /**
   * The gateway's addresses on `chain` stored after change sequence `after`, with their
   * sequences (never row ids: they may commit out of order): the port to the wallet's table
   * (restore/reconcile.ts fills it from wallet/store.ts `addressRowsAfter`).
   * TRON reads every block once for all of them, then only the addresses added since.
   */
  addressesAfter(chain: string, after: number): Promise<{ address: string; seq: number }[]>;
}

/** What a chain's payout steps and jobs read from the gateway. */
export interface ChainModuleCtx {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** The HD seed (keys of the sources and the gas wallet). */
  seed: Uint8Array;
}

/** `stablegate energy stake|unstake|status` (DESIGN 21): what a chain that stakes for its transfers offers the CLI. */
export interface StakingControl {
  /** Stakes `amount` of the native coin (decimal string, e.g. "100.5") from the staking wallet; resolves with the transaction id once mined. */
  stake(amount: string): Promise<string>;
  unstake(amount: string): Promise<string>;
  /** Why a stake made now would not be used by the gateway (the config does not spend it), or null: the CLI warns. */
  stakeUnused(): string | null;
  /** The status object the CLI prints (decimal strings). */
  status(): Promise<Record<string, string>>;
}

/**
 * A chain's BIP-44 derivation space (DESIGN 16: no address is handed out twice,
 * not on two chains). Chains of one coin type (every EVM chain is coin 60) each
 * take their own account; src/chains/derivation.test.ts fails on two modules with
 * the same (coinType, account) and on any key derived twice across chains.
 */
export interface DerivationSpace {
  /** SLIP-44 coin type: TRON 195, EVM 60, SOL 501. */
  coinType: number;
  /** BIP-44 account (hardened); null when the index itself is the account (SOL: m/44'/501'/i'/0'), so the coin type is the chain's alone. */
  account: number | null;
  /** The path of `index` ("m/44'/60'/0'/0/7"). */
  path(index: number): string;
}

/**
 * What building an adapter yields: the adapter and the chain-specific parts bound to it. A
 * sandbox adapter's bundle is the adapter and what its module's `sandbox.bundle` adds (TRON:
 * payout steps, energy jobs and staking on the sandbox's resources); nothing to reconcile.
 */
export interface ChainBundle {
  adapter: ChainAdapter;
  /** Chain-specific payout steps (nonces, gas top-ups, fee payers). */
  payoutOps?(ctx: ChainModuleCtx, env: PayoutStepEnv): PayoutChainOps | undefined;
  /**
   * A rough network fee of one token transfer in native base units, for previews (batch
   * payouts, collection); undefined when this adapter cannot tell. The payout steps compute
   * the real fee limit when they sign.
   */
  estimateTransferFee?(sample: FeeSample): Promise<FeeEstimate | undefined>;
  /**
   * Restore reconcile (DESIGN 16): reads the chain for what `q.address` sent after the backup
   * and returns each transfer the database does not know (EVM: nonces past the highest stored;
   * TRON, SOL: transactions it signed after `q.since`).
   */
  unrecordedOutgoing?(ctx: ChainModuleCtx, q: OutgoingQuery): Promise<UnrecordedTransfer[]>;
  /** Background jobs (Solana: token-account provisioning; TRON stake mode: energy reclaims). */
  jobs?(ctx: ChainModuleCtx, addresses: AddressBook, payouts: PayoutStore): ChainJob[];
  /** Operator controls of resources the chain stakes for its transfers (TRON: energy, DESIGN 21); absent when it stakes nothing. */
  staking?(ctx: ChainModuleCtx): StakingControl | undefined;
}

export interface ChainModule {
  code: ChainCode;
  /** Config defaults and tokens. */
  defaults: ChainDefaults;
  /** CSS background of the chain's dot beside its name on the hosted pages. */
  color: string;
  /** Names the payer sees ("BNB Smart Chain", "BEP20"). */
  label: { network: string; standard: string };
  /** The coin that pays fees: symbol and decimals of its base unit (BNB wei, TRX sun, SOL lamports). */
  native: { symbol: string; decimals: number };
  /** Public block explorer: transaction and address pages ({tx}, {address} are replaced, URI-encoded). */
  explorer: { name: string; tx: string; address: string };
  /** Address codec: validity, the canonical stored form (throws on invalid), and a random valid one. */
  address: {
    isValid(s: string): boolean;
    normalize(s: string): string;
    random(): string;
  };
  /** How this chain writes block and transaction ids, from 32 hash bytes (the sandbox chain mints them). */
  ids: { block(h: Uint8Array): string; tx(h: Uint8Array): string };
  /** Where this chain's HD keys live; no two chains share a space (DESIGN 16). */
  derivation: DerivationSpace;
  /** HD key of `index` on this chain's path (DESIGN 9), inside `derivation`. */
  deriveKey(seed: Uint8Array, index: number): DerivedKey;
  /**
   * The rpc-mode adapter for a chain's config section, bundled with what only its concrete
   * type can do (payout steps, jobs, fee estimate, restore reconcile): callers take these from
   * the bundle (chains/factory.ts `chainBundle`), never by testing the adapter's shape.
   */
  createAdapter(a: { cfg: ChainNodeConfig; tokens: TokenInfo[]; logger: RpcLogger; clock?: Clock }): ChainBundle;
  /**
   * What the sandbox chain of this code models beyond transfers (TRON: TRX fees, Stake 2.0
   * energy, delegation and bandwidth, DESIGN 21): the rules it applies as it mines, and the
   * chain-specific parts of a sandbox bundle (payout steps, jobs, staking) built on the sandbox
   * chain. Absent: sandbox transfers cost nothing and need no steps.
   */
  sandbox?: {
    rules: SandboxRules;
    bundle(chain: SandboxChain, cfg: ChainNodeConfig): Omit<ChainBundle, "adapter">;
  };
  /**
   * Base units a collection leg leaves on a deposit address with `[collection] keep_dust = true`
   * (TRON: 1, so the payer's next transfer there costs the energy of one to an existing holder);
   * 0 or absent: the leg sweeps everything.
   */
  collectionDust?: bigint;
  /** The wallet-launch URI of DESIGN 5 (amount null: an exclusive address, any amount). */
  paymentUri(token: TokenInfo, address: string, amount: bigint | null, orderNo?: string): string;
  /** What the hosted pages show (docs/wallet-links.md). */
  walletLinks: WalletLinkRule;
}
