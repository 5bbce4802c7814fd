// What every rpc-mode adapter needs the same way: the refusal of a transfer that would
// revert, the native-coin transfer request (gas top-ups), the check that a key belongs to
// the address it signs for, the check of token decimals against the chain, and how a
// transaction's confirmations and finality follow from the chain head.
import type { ChainHead, TokenInfo } from "../types";

/** signTransfer refuses a transfer the node says would revert (it would only burn the fee). */
export class TransferWouldRevertError extends Error {
  readonly permanent = true;
  constructor(message: string) {
    super(message);
    this.name = "TransferWouldRevertError";
  }
}

/** A transfer of the chain's native coin (a gas top-up). */
export interface NativeTransferRequest {
  /** Optional: checked against the key's address when given. */
  from?: string;
  to: string;
  /** Base units of the native coin (wei, sun). */
  amount: bigint;
  privateKey: Uint8Array;
  hint?: Record<string, unknown>;
}

/** Throws unless the key's address is `from` (when given); both in canonical form. */
export function assertKeyFor(from: string | undefined, own: string): void {
  if (from !== undefined && from !== own) throw new Error(`key does not belong to ${from} (it is ${own})`);
}

/** Start-up refusal of a token whose configured decimals differ from the chain's. */
export function assertDecimals(chainName: string, t: TokenInfo, onChain: number): void {
  if (onChain !== t.decimals) throw new Error(`${chainName} ${t.symbol} (${t.contract}) has ${onChain} decimals on chain, config says ${t.decimals}`);
}

/** Confirmations of a block under `head` (1 = in the latest block); finality from `head.final` only. */
export function inclusion(head: ChainHead, blockNumber: bigint): { confirmations: number; final: boolean } {
  return { confirmations: head.latest >= blockNumber ? Number(head.latest - blockNumber + 1n) : 0, final: blockNumber <= head.final };
}
