// What the watcher reports to. It knows transfers (seen in a block, confirmed,
// reverted by a reorg), not what they pay: the pay-in module implements this
// port (src/payin/deposits.ts, payinTransferPort) and matches transfers to
// orders and exclusive addresses. Every call runs inside the watcher's write
// transaction, so a transfer's state and its effects commit together.
import type { Tx } from "../db/client";
import type { transfers } from "../db/schema";
import type { IncomingTransfer } from "../chains/types";

export type TransferRow = typeof transfers.$inferSelect;

export interface TransferPort {
  /** A transfer to a watched address seen in a scanned block (idempotent: a rescan repeats it). */
  record(tx: Tx, t: IncomingTransfer, now: number): Promise<void>;
  /** Pending transfers of the given blocks (their hashes are checked for reorgs). */
  pendingInBlocks(tx: Tx, chain: string, blocks: number[]): Promise<TransferRow[]>;
  /** Pending transfers reaching 2 confirmations (block ≤ twoAt) or final (block ≤ finalAt) this tick. */
  crossingThreshold(tx: Tx, chain: string, twoAt: number, finalAt: number): Promise<TransferRow[]>;
  /** A transfer crossed a threshold: its count, and whether it is now final. */
  confirm(tx: Tx, t: TransferRow, c: { count: number; required: number; final: boolean }, now: number): Promise<void>;
  /** A reorg removed the transfer's block. */
  revert(tx: Tx, t: TransferRow, now: number): Promise<void>;
  /** The displayed confirmation counts of every pending transfer, at head `latest`. */
  showConfirmations(tx: Tx, chain: string, latest: number, now: number): Promise<void>;
}
