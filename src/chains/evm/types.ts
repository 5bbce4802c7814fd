// The EVM adapter's types: its options, the profile that makes one EVM chain differ from another,
// what a signed transaction's meta holds, and the adapter's interface beyond ChainAdapter.
import type { RpcEndpoint } from "../common/failover";
import type { ChainAdapter, ChainCode, SignedTransfer, TokenInfo, TokenSymbol } from "../types";
import type { RpcClient, RpcLogger } from "../json-rpc";
import type { Clock } from "../../lib/clock";
import type { NativeTransferRequest } from "../common/adapter-parts";

/** Which block counts as final (DESIGN 17): `confirmations` only, or also the node's `safe` / `finalized` block tag. */
export type EvmFinality = "confirmations" | "safe" | "finalized";

export interface EvmAdapterOptions {
  rpcUrls: RpcEndpoint[];
  tokens: TokenInfo[];
  confirmations: number;
  /** Default "confirmations". With a tag, the final block is the lower of the tag's block and `latest - (confirmations - 1)`. */
  finality?: EvmFinality;
  /** Highest gas price (wei) a signed transaction may carry. */
  gasPriceCap?: bigint;
  requestTimeoutMs?: number;
  /** Widest eth_getLogs range tried (blocks). Default 1000; shrinks on refusals, grows back. */
  maxLogRange?: number;
  /**
   * Watch sets up to this size go into the topic-2 filter; bigger ones are filtered locally,
   * so the number of calls never depends on how many addresses are watched. Default 500.
   */
  topicFilterLimit?: number;
  /** Expected chain id, checked at start and used for signing. Default: the profile's (BSC testnet: 97). */
  chainId?: number;
  /** Backoff of a failing endpoint (first step, ms). Default 100. */
  backoffBaseMs?: number;
  /** Attempts per call across the URLs on transport failures. Default max(4, 2 × URLs). */
  rpcAttempts?: number;
  logger?: RpcLogger;
  /** Drives RPC backoff and waits (tests move a TestClock). Default: real time. */
  clock?: Clock;
}

/** What `SignedTransfer.meta` holds for an EVM chain (decimal strings, so it survives JSON). */
export interface EvmTxMeta {
  chainId: number;
  from: string;
  to: string;
  nonce: number;
  /** "legacy" (type 0) or "eip1559" (type 2); absent on transactions signed before type 2 existed here (legacy). */
  type?: "legacy" | "eip1559";
  /** Highest price per gas the transaction may pay: the legacy gas price, or maxFeePerGas of a type-2 transaction. */
  gasPrice: string;
  /** Type 2: the priority fee (tip) per gas. */
  maxPriorityFeePerGas?: string;
  gasLimit: string;
  /** OP-stack chains: the L1 data fee allowance (wei, GasPriceOracle.getL1Fee with a 30 % margin), paid on top of gas. */
  l1Fee?: string;
  [k: string]: unknown;
}

/** The fee fields of one transaction. */
export type EvmFees = { type: "legacy"; gasPrice: bigint } | { type: "eip1559"; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };

export interface EvmAdapter extends ChainAdapter {
  readonly rpc: RpcClient;
  /** The node's next nonce of `address`, pending transactions included. */
  pendingNonce(address: string): Promise<number>;
  /** Transfers of the configured tokens sent by `address` in blocks [from, latest] (restore reconcile). */
  outgoingTokenTransfers(address: string, from: bigint): Promise<Array<{ txHash: string; blockNumber: bigint; to: string; token: TokenSymbol; amount: bigint }>>;
  /** The nonce a transaction used, null when the node does not know it. */
  transactionNonce(txHash: string): Promise<number | null>;
  nativeBalance(address: string): Promise<bigint>;
  signNativeTransfer(req: NativeTransferRequest): Promise<SignedTransfer>;
  /** Wei `from` needs to pay for this token transfer (gas limit with margin × capped highest price per gas, + the L1 data fee on OP-stack chains). */
  estimateTransferFee(from: string, to: string, token: TokenSymbol, amount: bigint): Promise<bigint>;
  /** The fees a transaction signed now carries (type 2 where the chain has a base fee), capped by gasPriceCap. */
  marketFees(): Promise<EvmFees>;
  /**
   * `prev` again with the same nonce, gas, recipient and data and fees raised (at least
   * bumpFee of each, or the market's when higher), capped by gasPriceCap; null when the cap
   * leaves no raise a node would take (the transaction is stuck at the cap).
   */
  signReplacement(prev: SignedTransfer, privateKey: Uint8Array): Promise<SignedTransfer | null>;
  /**
   * What the chain says of a transaction's nonce, asked of every endpoint: "ours" (some
   * endpoint knows this transaction), "taken" (the nonce is used in a final block and no
   * endpoint knows this transaction: it can never land), "open" (not used in a final block),
   * "unsure" (an endpoint or the final block's nonce could not be read).
   */
  nonceVerdict(tx: SignedTransfer): Promise<"ours" | "taken" | "open" | "unsure">;
}

/**
 * What makes one EVM chain differ from another: the code the gateway stores, the name in
 * messages, the chain id signed into transactions, and the native coin that pays gas.
 * Token contracts and confirmations come from config; BSC is src/chains/bsc's profile.
 */
export interface EvmProfile {
  chain: ChainCode;
  /** Short name in errors and logs ("BSC"). */
  name: string;
  chainId: number;
  /** Native coin symbol, in gas top-up metadata ("BNB"). */
  nativeSymbol: string;
  /**
   * The chain's BIP-44 account under coin type 60 (DESIGN 16): its addresses are
   * m/44'/60'/account'/0/i. Unique among EVM chains (src/chains/derivation.test.ts):
   * BSC 0; a new product chain takes the next unused number; test-only profiles use their chain id.
   */
  bip44Account: number;
  /**
   * Type-2 (EIP-1559) transactions: true always, false never (legacy type 0). Unset: type 2
   * when the latest block has a non-zero baseFeePerGas (BSC's base fee is 0: legacy).
   */
  eip1559?: boolean;
  /**
   * A rollup's L1 data fee: "op-stack" (Base): read from the GasPriceOracle predeploy and
   * added to fee estimates and gas top-ups; "arbitrum": eth_estimateGas already counts the L1
   * component in the gas limit (ArbOS adds it as gas), so nothing is added. Unset: an L1 chain.
   */
  l1Fee?: "op-stack" | "arbitrum";
}
