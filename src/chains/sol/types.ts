// The SOL adapter's types: its options, what a signed transaction's meta holds, and the adapter's
// interface beyond ChainAdapter.
import type { RpcEndpoint } from "../common/failover";
import type { ChainAdapter, SignedTransfer, TokenInfo, TokenSymbol, TransferRequest } from "../types";
import type { Clock } from "../../lib/clock";
import type { RpcClient, RpcLogger } from "./rpc";

export interface SolAdapterOptions {
  rpcUrls: RpcEndpoint[];
  tokens: TokenInfo[];
  confirmations: number;
  requestTimeoutMs?: number;
  backoffBaseMs?: number;
  /** Attempts per call across the URLs on transport failures. Default max(4, 2 × URLs). */
  rpcAttempts?: number;
  /** Signatures per getSignaturesForAddress page (the node's maximum is 1000). */
  pageLimit?: number;
  /**
   * How scan() reads a range: `addresses` = getSignaturesForAddress per watched ATA (cost grows
   * with the watch set), `blocks` = getBlocks + getBlock per produced slot, matched locally (cost
   * grows with the range only), `auto` (default) = whichever needs fewer calls for this range.
   */
  scanMode?: "auto" | "blocks" | "addresses";
  /** getBlock requests per JSON-RPC batch (a full block is large). Default 8. */
  blockBatch?: number;
  logger?: RpcLogger;
  /** Drives RPC backoff (tests move a TestClock). Default: real time. */
  clock?: Clock;
}

/** A transfer request with an optional fee payer: it pays the fee and any new account's rent. */
export interface SolTransferRequest extends TransferRequest {
  feePayerKey?: Uint8Array;
}

/** What `SignedTransfer.meta` holds for SOL (decimal strings, so it survives JSON). */
export interface SolTxMeta {
  feePayer: string;
  from: string;
  to: string;
  sourceAccount: string;
  destinationAccount: string;
  /** The recipient's ATA did not exist at signing: the fee payer pays its rent. */
  createsAccount: boolean;
  mint: string;
  token: TokenSymbol;
  amount: string;
  blockhash: string;
  lastValidBlockHeight: number;
  /** Lamports the fee payer spends: fee + rent of a created account. */
  feePayerLamports: string;
  [k: string]: unknown;
}

export interface SolAdapter extends ChainAdapter {
  readonly rpc: RpcClient;
  signTransfer(req: SolTransferRequest): Promise<SignedTransfer>;
  /** Lamports of `address` (confirmed). */
  nativeBalance(address: string): Promise<bigint>;
  /** The associated token account of `owner` for a configured token. */
  tokenAccountOf(owner: string, token: TokenSymbol): string;
  /**
   * A transaction, paid by `feePayerKey`, that creates `owner`'s missing token accounts (ATA of
   * every configured token; idempotent instructions), or null when they all exist. The owner
   * does not sign: anyone may create an ATA for any wallet.
   */
  signCreateTokenAccounts(owner: string, feePayerKey: Uint8Array): Promise<SignedTransfer | null>;
  /** Successful transactions `owner` signed in slots after `after` (confirmed), newest first (restore reconcile). */
  signedBy(owner: string, after: bigint): Promise<SolSentTx[]>;
}

/** A transaction an owner signed, with the token it sent (restore reconcile). */
export interface SolSentTx {
  txHash: string;
  blockNumber: bigint;
  to?: string;
  asset?: string;
  amount?: bigint;
}

/** What `SignedTransfer.meta` holds for a token-account creation (decimal strings). */
export interface SolCreateAccountsMeta {
  feePayer: string;
  owner: string;
  accounts: string[];
  blockhash: string;
  lastValidBlockHeight: number;
  rentLamports: string;
  feeLamports: string;
  [k: string]: unknown;
}

/** A transfer signTransfer can never make (e.g. the recipient is a token account of another mint). */
export class SolTransferRefused extends Error {
  readonly permanent = true;
  constructor(message: string) {
    super(message);
    this.name = "SolTransferRefused";
  }
}
