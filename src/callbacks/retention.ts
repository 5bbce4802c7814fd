// Callback retention (DESIGN 11 "Retention"): delivered callbacks and their
// attempts older than [callbacks] keep_delivered are deleted; failed and held
// ones are kept for the operator, and order events and the ledger are never
// touched. Deletes go oldest first in small slices, each its own transaction,
// with a turn of the event loop between them, so a backlog of millions (the
// first run after an upgrade) never holds the loop or the write lock for long.
import type { Config } from "../config/schema";
import { type Db, writeTx } from "../db/client";
import type { Clock } from "../lib/clock";
import { parseDuration } from "../lib/duration";
import { inSlices } from "../lib/slices";
import { pruneDelivered } from "./store";

/** Callbacks per slice (each with its attempts and payload pages). */
export const PRUNE_SLICE = 100;

export interface RetentionDeps {
  db: Db;
  clock: Clock;
  config: { callbacks: Pick<Config["callbacks"], "keep_delivered"> };
}

async function pruneSlice(db: Db, cutoff: number, limit: number): Promise<number> {
  return await writeTx(db, async () => await pruneDelivered(db, cutoff, limit));
}

/** Deletes every delivered callback older than keep_delivered (with its attempts); returns how many. */
export async function pruneDeliveredCallbacks(deps: RetentionDeps, opts: { stopped?: () => boolean } = {}): Promise<number> {
  const cutoff = deps.clock.now() - parseDuration(deps.config.callbacks.keep_delivered);
  let total = 0;
  await inSlices(async () => {
    const n = await pruneSlice(deps.db, cutoff, PRUNE_SLICE);
    total += n;
    return n === PRUNE_SLICE;
  }, opts);
  return total;
}
