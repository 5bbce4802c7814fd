// Solana JSON-RPC over the shared failover client (src/chains/json-rpc.ts: per-URL health,
// backoff on 429/5xx/timeouts, batches), plus what the answers mean for the gateway:
// which sendTransaction refusals are final, and the shapes of the answers it reads.
import { RpcError } from "../json-rpc";

export { RpcClient, RpcError, redactUrl, type RpcLogger } from "../json-rpc";

export type Commitment = "processed" | "confirmed" | "finalized";

export interface SignatureInfo {
  signature: string;
  slot: number;
  err: unknown;
  blockTime?: number | null;
  confirmationStatus?: Commitment | null;
}

export interface UiTokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  programId?: string;
  uiTokenAmount: { amount: string; decimals: number };
}

export interface ParsedTransaction {
  slot: number;
  blockTime: number | null;
  transaction: {
    signatures: string[];
    message: { accountKeys: Array<string | { pubkey: string; source?: string; signer?: boolean }> };
  };
  meta: {
    err: unknown;
    preTokenBalances?: UiTokenBalance[] | null;
    postTokenBalances?: UiTokenBalance[] | null;
    /** Present with json/base64 encodings; jsonParsed lists loaded addresses in accountKeys instead. */
    loadedAddresses?: { writable: string[]; readonly: string[] } | null;
  } | null;
}

/** getBlock with transactionDetails "full", encoding jsonParsed, rewards false. */
export interface ParsedBlock {
  blockTime: number | null;
  blockHeight: number | null;
  transactions?: Array<{ transaction: ParsedTransaction["transaction"]; meta: ParsedTransaction["meta"]; version?: "legacy" | 0 }>;
}

export interface SignatureStatus {
  slot: number;
  confirmations: number | null;
  err: unknown;
  confirmationStatus?: Commitment | null;
}

/**
 * What a sendTransaction refusal means:
 * - `already`: this very transaction was processed before (a rebroadcast) — success;
 * - `blockhash`: its blockhash is unknown to this node (expired, or the node lags) — decide by block height;
 * - `permanent`: the transaction itself is refused (bad signature, malformed, a failing instruction);
 * - `transient`: the node or the fee payer may be fine on another try (node behind, no SOL for fees yet).
 */
export type SendErrorKind = "already" | "blockhash" | "permanent" | "transient";

/** Preflight errors a fee payer top-up or a later retry can clear. */
const RETRYABLE_TX_ERRORS = new Set([
  "InsufficientFundsForFee",
  "AccountNotFound", // the fee payer has never held SOL
  "AccountInUse",
  "WouldExceedMaxBlockCostLimit",
  "WouldExceedMaxAccountCostLimit",
  "WouldExceedAccountDataBlockLimit",
  "WouldExceedAccountDataTotalLimit",
  "ClusterMaintenance",
  "TooManyAccountLocks",
]);

export function sendErrorKind(e: RpcError): SendErrorKind {
  if (e.kind !== "rpc") return "transient";
  const err = (e.data as { err?: unknown } | undefined)?.err;
  if (err === "AlreadyProcessed" || /already been processed|AlreadyProcessed/i.test(e.message)) return "already";
  if (err === "BlockhashNotFound" || /blockhash not found/i.test(e.message)) return "blockhash";
  if (e.code === -32003) return "permanent"; // signature verification failure
  if (e.code === -32602) return "permanent"; // cannot be decoded
  if (e.code === -32002) {
    if (typeof err === "string") return RETRYABLE_TX_ERRORS.has(err) ? "transient" : "permanent";
    if (err && typeof err === "object") {
      // {InsufficientFundsForRent: …}: the fee payer cannot pay the new account's rent yet.
      if ("InsufficientFundsForRent" in err) return "transient";
      // {InstructionError: [i, …]}: the transfer itself fails (no tokens, wrong mint or decimals).
      return "permanent";
    }
    return "transient";
  }
  // -32005 node unhealthy/behind, -32016 min context slot, rate limits and anything unknown.
  return "transient";
}

/** A JSON-RPC error meaning this endpoint is behind the slot we asked for (another URL or a later try may answer). */
export function isBehind(e: unknown): boolean {
  return e instanceof RpcError && e.kind === "rpc" && (e.code === -32016 || e.code === -32005);
}
