// The cost record of every transaction the gateway sends (DESIGN 21): native coin burned,
// TRON energy delegated or burned, bandwidth. One transfer_costs row per transaction,
// written in the same database transaction as the step that saw it land (a payout
// confirming, a top-up or a delegation landing), counted in stablegate_fees_native_total
// once that commits. The back office sums the table per chain and day (Fees page).
import { afterCommit, type Tx } from "../../db/client";
import { insertCost } from "./store";
import { countFee } from "../../lib/event-metrics";
import type { ChainAdapter, SignedTransfer, TxCost } from "../types";

export type CostKind = "payout" | "gas_topup" | "delegate" | "reclaim" | "stake" | "token_account";

/** UTC day of `ms`, as the Fees page groups rows. */
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The cost of a mined transaction, or null when the adapter cannot tell (or the node fails now: the record is skipped, never the step). */
export async function costOf(adapter: ChainAdapter, tx: SignedTransfer): Promise<TxCost | null> {
  try {
    return (await adapter.txCost?.(tx)) ?? null;
  } catch {
    return null;
  }
}

/** Records `cost` once per (chain, txHash) inside `tx`; counts it after the commit. */
export async function recordCost(tx: Tx, a: { chain: string; txHash: string; kind: CostKind; payoutOrderId?: number | null; cost: TxCost; now: number }): Promise<void> {
  const inserted = await insertCost(tx, {
    chain: a.chain,
    txHash: a.txHash,
    kind: a.kind,
    payoutOrderId: a.payoutOrderId ?? null,
    nativeBurned: a.cost.nativeBurned.toString(),
    energyDelegated: (a.cost.energyDelegated ?? 0n).toString(),
    energyBurned: (a.cost.energyBurned ?? 0n).toString(),
    bandwidth: (a.cost.bandwidth ?? 0n).toString(),
    day: dayOf(a.now),
    createdAt: a.now,
  });
  if (!inserted) return;
  const burned = a.cost.nativeBurned;
  afterCommit(tx, () => countFee(a.chain, a.kind, burned));
}
