// What a chain module tells the sandbox chain (chain.ts) about its fees and resources
// (ChainModule.sandbox.rules; TRON: src/chains/tron/sandbox.ts): the ledger the rules read
// and write as a transaction is mined. Kept apart from chain.ts, which imports the registry,
// so a chain module can use these without an import cycle.
import type { ChainCode, TokenInfo, TxCost } from "../types";

/** A transaction as the sandbox signs and mines it: a transfer of a token or the native coin, or a chain operation. */
export interface SandboxTx {
  /** A token symbol or the native coin's. */
  asset: string;
  from: string;
  to: string;
  amount: bigint;
  /** A chain-specific operation (TRON: a Stake 2.0 contract); absent for a transfer. */
  op?: string;
}

/** The sandbox's ledger as rules read it (balances and per-account state). */
export interface SandboxView {
  readonly chain: ChainCode;
  readonly now: number;
  /** The native coin's symbol. */
  readonly native: string;
  readonly tokens: readonly TokenInfo[];
  /** Mined balance of a token or the native coin. */
  balance(address: string, asset: string): Promise<bigint>;
  /** The rules' own state of an account (JSON), undefined when it has none. */
  account<T>(address: string): Promise<T | undefined>;
}

/** The ledger inside the write transaction that mines a transaction. */
export interface SandboxLedger extends SandboxView {
  /** Changes a balance without a transfer (fees burned, coins staked or unstaked). */
  adjust(address: string, asset: string, delta: bigint): Promise<void>;
  setAccount(address: string, state: unknown): Promise<void>;
}

/** The chain refuses a transaction (not included); the message says why, as the node would. */
export class SandboxRefusal extends Error {
  constructor(message: string, readonly permanent = true) {
    super(message);
  }
}

/**
 * A chain's fee and resource rules for its sandbox (ChainModule.sandbox.rules): what a signed
 * transaction carries, and what mining it costs. Without rules a transaction costs nothing.
 */
export interface SandboxRules {
  /** Fields signed into a transaction and returned as its meta (TRON: fee limit, energy, bandwidth). */
  sign?(v: SandboxView, tx: SandboxTx): Promise<Record<string, unknown>>;
  /**
   * Mines `tx`: throws SandboxRefusal when the chain would refuse it, charges its fees and applies
   * its operation through `l`. success = false: included but failed (its fees burned, nothing moved);
   * success = true: the sandbox moves `amount` of a transfer.
   */
  execute(l: SandboxLedger, tx: SandboxTx, fields: Record<string, unknown>): Promise<{ success: boolean; cost: TxCost }>;
}

