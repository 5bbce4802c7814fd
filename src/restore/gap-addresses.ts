// The HD indexes a restore skips (DESIGN 16: restore.index_gap) may have been handed out after
// the backup, to orders and bindings the restored database does not know. They are never handed
// out again, and they stay watched: each becomes an address of kind restore_gap (no merchant),
// so a payment to one is recorded as an unmatched deposit (reason restore_gap) for the operator
// instead of going unseen. Deriving a thousand keys takes seconds, so a job adds them a slice
// at a time; once all are in, the chain is rescanned from the backup's cursor for them.
import { writeTx, type Db } from "../db/client";
import { indexesIn, insertAddressesIfAbsent, type NewAddressRow } from "../wallet/store";
import { gapPending, markGapWatched } from "./store";
import type { ChainAdapter } from "../chains/types";
import { newId } from "../lib/ids";

export interface GapCtx {
  db: Db;
  seed: Uint8Array;
  clock: { now(): number };
}

/** Derivation time per step (a key costs ~1-5 ms; one past the budget may be started). */
export const GAP_STEP_BUDGET_MS = 20;

export type GapStep =
  | { state: "none" }
  | { state: "adding"; added: number; left: number }
  /** Every skipped index is watched: rescan from `since`, then call gapWatched(). */
  | { state: "rescan"; since: bigint | null; from: number; to: number };

/**
 * Adds restore_gap addresses for up to `budgetMs` of derivation; says what is left to do. The
 * job runs every 250 ms on the event loop: a step stays well under DESIGN 11's 50 ms hold.
 */
export async function gapStep(ctx: GapCtx, adapter: ChainAdapter, budgetMs = GAP_STEP_BUDGET_MS): Promise<GapStep> {
  const rc = await gapPending(ctx.db, adapter.chain);
  if (!rc) return { state: "none" };
  const have = new Set((await indexesIn(ctx.db, adapter.chain, rc.gapFrom, rc.gapTo)));
  const missing: number[] = [];
  for (let i = rc.gapFrom; i < rc.gapTo; i++) if (!have.has(i)) missing.push(i);
  if (!missing.length) return { state: "rescan", since: rc.sinceBlock === null ? null : BigInt(rc.sinceBlock), from: rc.gapFrom, to: rc.gapTo - 1 };
  const started = performance.now();
  const now = ctx.clock.now();
  const rows: NewAddressRow[] = [];
  for (const i of missing) {
    rows.push({ id: newId("AD"), merchantId: null, chain: adapter.chain, kind: "restore_gap", derivationIndex: i, address: adapter.deriveKey(ctx.seed, i).address, bindKey: null, createdAt: now });
    if (performance.now() - started > budgetMs) break;
  }
  await writeTx(ctx.db, async (tx) => await insertAddressesIfAbsent(tx, rows));
  return { state: "adding", added: rows.length, left: missing.length - rows.length };
}

/** The rescan for the skipped indexes is under way: the job is done for this restore. */
export async function gapWatched(db: Db, chain: string, now: number): Promise<void> {
  await writeTx(db, async (tx) => await markGapWatched(tx, chain, now));
}
