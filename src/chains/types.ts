// The one interface every chain implementation (sandbox, TRON, the EVM chains, SOL) fulfils.
// Amounts are bigint base units; addresses are in the chain's native display
// format (TRON base58check, EIP-55 hex, Solana base58).

export type ChainCode = "TRON" | "BSC" | "SOL" | "ETH" | "POLYGON" | "ARBITRUM" | "BASE" | "OPTIMISM" | "AVALANCHE" | "XLAYER" | "PLASMA" | "TON";
export type TokenSymbol = "USDT" | "USDC";
export type ChainMode = "sandbox" | "rpc";

// The list of chains and their tokens is the registry (chains/registry.ts: chainCodes(),
// tokenSymbols(), each module's defaults.tokens); these unions only name them for the types.

export interface TokenInfo {
  chain: ChainCode;
  symbol: TokenSymbol;
  /** Contract (TRON, EVM chains) or mint (SOL) address. */
  contract: string;
  decimals: number;
}

export interface ChainHead {
  /** Highest block the node knows. */
  latest: bigint;
  /** Highest block that can no longer be reorganised (solidified / finalized). */
  final: bigint;
  /** Block time of `latest`, ms since epoch. */
  time: number;
  /**
   * Optional: highest block scan() can cover now, when lower than `latest` (SOL: scans read
   * finalized data only, so this is the finalized slot). The watcher scans no further.
   */
  scanTo?: bigint;
}

export interface BlockRef {
  number: bigint;
  hash: string;
  /** Block timestamp, ms since epoch. */
  time: number;
}

/** One incoming token movement to an address we watch. */
export interface IncomingTransfer {
  chain: ChainCode;
  token: TokenSymbol;
  txHash: string;
  /** Position inside the transaction (EVM log index, TRON log index, SOL balance-entry index). */
  logIndex: number;
  blockNumber: bigint;
  blockHash: string;
  blockTime: number;
  from: string;
  to: string;
  amount: bigint;
  /** The payer's comment (TON: the forward payload's text), which may name the order it pays (DESIGN 23). */
  memo?: string;
  /**
   * A look-alike of `token` (TON: a jetton wallet the token's master does not assign to `to`): kept as an
   * unmatched deposit with reason counterfeit_token, never credited, attached or refunded.
   */
  counterfeit?: true;
}

/** The addresses a scan should report transfers to. Sized for 100k entries. */
export interface WatchSet {
  has(address: string): boolean;
  size: number;
  addresses(): Iterable<string>;
}

export interface ScanResult {
  transfers: IncomingTransfer[];
  /** The last block of the scanned range, so the caller can store it as its cursor. */
  tip: BlockRef;
}

export interface DerivedKey {
  address: string;
  privateKey: Uint8Array;
}

export interface TransferRequest {
  token: TokenSymbol;
  from: string;
  to: string;
  amount: bigint;
  /** Key of `from`, derived from the wallet seed. */
  privateKey: Uint8Array;
  /** Chain-specific state a previous attempt stored (e.g. EVM nonce). */
  hint?: Record<string, unknown>;
}

/** A transaction signed and ready to broadcast; stored before it is sent. */
export interface SignedTransfer {
  txHash: string;
  /** Serialized signed transaction (hex or base64, chain-specific). */
  raw: string;
  /** Chain-specific data needed to rebroadcast or judge expiry (nonce, lastValidBlockHeight...). */
  meta: Record<string, unknown>;
}

export type BroadcastResult =
  | { ok: true }
  /** permanent: the node rejected the transaction itself; transient: try again later. */
  | { ok: false; permanent: boolean; error: string };

export type TxState =
  /** Not known to the node (yet, or dropped). */
  | { state: "unknown" }
  | { state: "pending" }
  | { state: "included"; blockNumber: bigint; success: boolean; final: boolean; confirmations: number }
  /** The transaction can never land (e.g. Solana blockhash expired, EVM nonce used by another tx). */
  | { state: "expired" };

export interface ChainAdapter {
  readonly chain: ChainCode;
  readonly mode: ChainMode;
  /** Tokens this chain carries, as configured. */
  readonly tokens: readonly TokenInfo[];
  /** Confirmations required before an incoming transfer counts as final. */
  readonly requiredConfirmations: number;

  /** Connect and check the chain (e.g. token decimals); throws to stop start-up. */
  start(): Promise<void>;
  stop(): Promise<void>;

  /** HD derivation at the chain's path (DESIGN 9). */
  deriveKey(seed: Uint8Array, index: number): DerivedKey;
  isValidAddress(address: string): boolean;
  /** Canonical display form (checksummed), used as the stored and compared form. */
  normalizeAddress(address: string): string;

  head(): Promise<ChainHead>;
  /** Hash of block `number` on the current canonical chain, null if it does not exist. */
  blockHash(number: bigint): Promise<string | null>;
  /** Incoming transfers of configured tokens to watched addresses in blocks [from, to]. */
  scan(from: bigint, to: bigint, watch: WatchSet): Promise<ScanResult>;

  tokenBalance(address: string, token: TokenSymbol): Promise<bigint>;
  signTransfer(req: TransferRequest): Promise<SignedTransfer>;
  broadcast(tx: SignedTransfer): Promise<BroadcastResult>;
  txState(tx: SignedTransfer): Promise<TxState>;
  /** What a mined transaction cost (DESIGN 21); null while it is in no block. */
  txCost?(tx: SignedTransfer): Promise<TxCost | null>;
  /** One transaction by hash and its token transfers, whoever they pay (DESIGN 25; src/chains/<chain>/lookup.ts). */
  lookupTx?(txHash: string): Promise<TxLookup>;
  /** The sweep (DESIGN 25): incoming transfers to one address by another method than scan(); rpc adapters only. */
  sweep?(q: SweepQuery): Promise<IncomingTransfer[]>;
}

/** One address the sweep asks about (DESIGN 25, src/payin/sweep.ts). */
export interface SweepQuery {
  /** A watched address, display form. */
  address: string;
  /** Only blocks after this one (what the last sweep of this address covered); null: back to `since`. */
  after: bigint | null;
  /** ms since epoch: nothing before it can matter (the order's creation, or the sweep window's start). */
  since: number;
  /** The last block to report: the scan's cursor (what lies beyond it the scan has not read yet). */
  upTo: bigint;
  /** True when the gateway already recorded this transaction: the adapter skips the lookups it would need for it. */
  known(txHash: string): Promise<boolean>;
}

/** One token movement inside a looked-up transaction, to any address. */
export interface TxTokenTransfer {
  /** The configured token it moves; null for a contract (mint) the gateway does not carry. */
  token: TokenSymbol | null;
  contract: string;
  /** As the scan numbers it (IncomingTransfer.logIndex). */
  logIndex: number;
  from: string;
  to: string;
  amount: bigint;
}

/** What the chain says about one transaction hash (the payer's hash, the back office's look-up). */
export type TxLookup =
  /** Not a transaction hash of this chain. */
  | { state: "malformed" }
  /** No node knows it (yet). */
  | { state: "not_found" }
  /** Known, in no block yet. */
  | { state: "pending"; txHash: string }
  | {
      state: "included";
      /** The hash as the scan writes it. */
      txHash: string;
      /** false: the transaction failed on chain (it moved nothing). */
      success: boolean;
      blockNumber: bigint;
      blockHash: string;
      blockTime: number;
      final: boolean;
      confirmations: number;
      transfers: TxTokenTransfer[];
    };

/** The on-chain cost of one transaction the gateway sent (transfer_costs). */
export interface TxCost {
  /** Native base units burned or paid as fee (TRX sun, BNB wei, SOL lamports; SOL adds the rent of token accounts the transaction created). */
  nativeBurned: bigint;
  /** TRON: energy taken from stakes (delegated to the sender). */
  energyDelegated?: bigint;
  /** TRON: energy paid for by burning TRX (included in nativeBurned). */
  energyBurned?: bigint;
  /** TRON: bandwidth bytes (free or burned). */
  bandwidth?: bigint;
}
