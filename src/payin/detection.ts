// Measured detection (DESIGN 25): every status change of an order with a transfer keeps that
// transfer's times (detection_times: block time, first seen, completed) and, once committed,
// observes them in stablegate_detection_seconds / stablegate_completion_seconds. Called by the
// transition funnel (service.ts), so every path that credits an order (scan, sweep, the payer's
// hash, the back office's import) is measured the same way.
import { afterCommit, type Tx } from "../db/client";
import { observeCompletion, observeDetection } from "../lib/event-metrics";
import type { PayinOrderRow } from "./views";
import { completeDetection, startDetection } from "./detection-store";

/** Statuses that close a credited order: its transfer counts as completed. */
const CREDITED_FINAL = new Set(["completed", "risk_settled"]);

export async function noteDetection(tx: Tx, o: PayinOrderRow, now: number): Promise<void> {
  if (o.transferId === null) return;
  const seen = await startDetection(tx, o.transferId, o.orderNo);
  if (seen) afterCommit(tx, () => observeDetection(seen.chain, seen.blockTime, seen.seenAt));
  if (!CREDITED_FINAL.has(o.status)) return;
  const done = await completeDetection(tx, o.transferId, now);
  if (done) afterCommit(tx, () => observeCompletion(done.chain, done.blockTime, now));
}
