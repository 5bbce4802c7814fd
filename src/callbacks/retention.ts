// Callback retention (DESIGN 11 "Retention"): delivered callbacks and their
// attempts older than [callbacks] keep_delivered are deleted; failed and held
// ones are kept for the operator, and order events and the ledger are never
// touched. Deletes go oldest first in small slices, each its own transaction,
// with a turn of the event loop between them, so a backlog of millions (the
// first run after an upgrade) never holds the loop or the write lock for long.
import type { Config } from "../config/schema";
import { type Db, prepared, writeTx } from "../db/client";
import type { Clock } from "../lib/clock";
import { parseDuration } from "../lib/duration";
import { inSlices } from "../lib/slices";

/** Callbacks per slice (each with its attempts and payload pages). */
export const PRUNE_SLICE = 250;

export interface RetentionDeps {
  db: Db;
  clock: Clock;
  config: { callbacks: Pick<Config["callbacks"], "keep_delivered"> };
}

/** The oldest delivered callbacks past the cutoff, through the partial index callbacks_delivered. */
export const DELIVERED_BEFORE = `SELECT id FROM callbacks INDEXED BY callbacks_delivered
  WHERE state = 'delivered' AND updated_at < ?1 ORDER BY updated_at LIMIT ?2`;

function pruneSlice(db: Db, cutoff: number, limit: number): number {
  const attempts = prepared(db, "pruneAttempts", (d) => d.$client.prepare<never, [number, number]>(`DELETE FROM callback_attempts WHERE callback_id IN (${DELIVERED_BEFORE})`));
  const rows = prepared(db, "pruneCallbacks", (d) => d.$client.prepare<never, [number, number]>(`DELETE FROM callbacks WHERE id IN (${DELIVERED_BEFORE})`));
  return writeTx(db, () => {
    attempts.run(cutoff, limit);
    return rows.run(cutoff, limit).changes;
  });
}

/** Deletes every delivered callback older than keep_delivered (with its attempts); returns how many. */
export async function pruneDeliveredCallbacks(deps: RetentionDeps, opts: { stopped?: () => boolean } = {}): Promise<number> {
  const cutoff = deps.clock.now() - parseDuration(deps.config.callbacks.keep_delivered);
  let total = 0;
  await inSlices(() => {
    const n = pruneSlice(deps.db, cutoff, PRUNE_SLICE);
    total += n;
    return n === PRUNE_SLICE;
  }, opts);
  return total;
}
