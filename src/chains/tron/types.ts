// The TRON adapter's types: its options, energy and stake figures, what a signed transaction's
// meta holds, and the adapter's interface beyond ChainAdapter.
import type { RpcEndpoint } from "../common/failover";
import type { ChainAdapter, SignedTransfer, TokenInfo, TokenSymbol, TxCost } from "../types";
import type { TronRpc, TronRpcLogger } from "./rpc";
import type { Clock } from "../../lib/clock";
import type { NativeTransferRequest } from "../common/adapter-parts";
import type { StakeKind } from "./tx";

export interface TronAdapterOptions {
  rpcUrls: RpcEndpoint[];
  /** TRON-PRO-API-KEY header (TronGrid). */
  apiKey?: string;
  tokens: TokenInfo[];
  confirmations: number;
  requestTimeoutMs?: number;
  /** Backoff of a failing endpoint (first step, ms). Default 100. */
  backoffBaseMs?: number;
  /** Shortest pause of an endpoint that answered 403/429. Default 5 s. */
  rateLimitBackoffMs?: number;
  /** Attempts per call across the URLs. Default max(4, 2 × URLs). */
  rpcAttempts?: number;
  /** Blocks fetched in parallel while scanning. Default 4. */
  scanConcurrency?: number;
  /** raw_data.expiration − head block time of a signed transaction. Default 1 h (the chain allows 24 h). */
  txLifetimeMs?: number;
  logger?: TronRpcLogger;
  /** Drives RPC backoff (tests move a TestClock). Default: real time. */
  clock?: Clock;
  /** `[chains.TRON.energy]` (DESIGN 21). Default: burn. */
  energy?: TronEnergyConfig;
}

/** `[chains.TRON.energy]`: burn TRX for energy, or delegate it from the energy wallet's stake; without enough: burn or wait. */
export interface TronEnergyConfig {
  mode: "burn" | "stake";
  fallback: "burn" | "wait";
}

/** An account's energy (getaccountresource): from stakes (its own and delegated to it), and the network's totals. */
export interface TronEnergy {
  limit: bigint;
  used: bigint;
  /** limit − used (≥ 0). */
  available: bigint;
  totalLimit: bigint;
  totalWeight: bigint;
}

/** An account's Stake 2.0 ENERGY stake (getaccount), sun. */
export interface TronStake {
  balance: bigint;
  /** Staked and held (not delegated). */
  frozen: bigint;
  /** Staked and delegated to others. */
  delegated: bigint;
  /** Unstaked, waiting for the 14 days. */
  unfreezing: bigint;
}

/** What a mined transaction cost (gettransactioninfobyid's receipt). */
export interface TronReceipt {
  /** Sun burned in all (energy + bandwidth + activation). */
  fee: bigint;
  /** Energy from stakes (own or delegated). */
  energyFromStake: bigint;
  /** Sun burned for energy. */
  energyFee: bigint;
  energyTotal: bigint;
  /** Bandwidth bytes (free or burned). */
  bandwidth: bigint;
  netFee: bigint;
}

/** What `SignedTransfer.meta` holds for TRON (decimal strings, so it survives JSON). */
export interface TronTxMeta {
  kind: "TRC20" | "TRX" | "STAKE";
  /** STAKE: which Stake 2.0 contract. */
  op?: StakeKind;
  from: string;
  to: string;
  amount: string;
  token?: TokenSymbol;
  /** Sun the transaction may burn for energy (TRC20), "0" for TRX transfers. */
  feeLimit: string;
  energy?: string;
  /** Bandwidth bytes it takes (burned at getTransactionFee sun each without free bandwidth). */
  bandwidth: number;
  /** raw_data.expiration, ms: after it the transaction can never be included. */
  expiration: number;
  refBlock: number;
  [k: string]: unknown;
}

export interface TronChainParams {
  energyFee: bigint;
  transactionFee: bigint;
  createAccountFee: bigint;
  maxFeeLimit: bigint;
}

export interface TronAccount {
  activated: boolean;
  /** Sun. */
  balance: bigint;
}

export interface TronAdapter extends ChainAdapter {
  readonly rpc: TronRpc;
  readonly energy: TronEnergyConfig;
  energyOf(address: string): Promise<TronEnergy>;
  stakeOf(address: string): Promise<TronStake>;
  /** Sun of its stake `owner` may delegate now (getcandelegatedmaxsize). */
  canDelegate(owner: string): Promise<bigint>;
  /** Sun `owner` delegates to `receiver` now (getdelegatedresourcev2). */
  delegatedTo(owner: string, receiver: string): Promise<bigint>;
  /** A Stake 2.0 transaction for ENERGY signed by `from` (stake, unstake, delegate or reclaim `amount` sun). */
  signStake(req: { op: StakeKind; from: string; to?: string; amount: bigint; privateKey: Uint8Array }): Promise<SignedTransfer>;
  /** The cost of a mined transaction; null while it is not in a block. */
  receipt(txHash: string): Promise<TronReceipt | null>;
  txCost(tx: SignedTransfer): Promise<TxCost | null>;
  account(address: string): Promise<TronAccount>;
  chainParams(): Promise<TronChainParams>;
  signNativeTransfer(req: NativeTransferRequest): Promise<SignedTransfer>;
  /** Sun the sender of a stored transaction must hold to send it: fee limit + bandwidth burn. */
  trxNeeded(tx: SignedTransfer): Promise<bigint>;
  /** Transactions any of `owners` signed in blocks [from, latest], and that latest: one block read each (restore reconcile only). */
  transactionsFrom(owners: ReadonlySet<string>, from: bigint): Promise<{ txs: TronSentTx[]; to: bigint }>;
}

/**
 * What the payout steps, the energy steps and the staking control use of a TRON chain: the
 * rpc adapter, or the sandbox TRON chain's resource model (sandbox.ts), which has no node.
 */
export type TronChainApi = Omit<TronAdapter, "rpc" | "transactionsFrom">;

/** A transaction an address signed, as a block lists it (restore reconcile). */
export interface TronSentTx {
  /** The signer (base58). */
  owner: string;
  txHash: string;
  blockNumber: bigint;
  to?: string;
  /** Token symbol, "TRX", or undefined for another contract call. */
  asset?: string;
  amount?: bigint;
}
