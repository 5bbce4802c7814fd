// The epoch fence at the call sites (DESIGN 22): the leader's epoch, held per database handle while
// this process leads, and the check a transaction that stores a signed transaction runs first.
// On SQLite there is one gateway (the instance lock), so the fence is a no-op there.
import { sql } from "drizzle-orm";
import type { Db, DbOrTx } from "../db/client";
import { connectionKey, isPg, pgOf } from "../db/engine";
import { checkEpoch, EPOCH_FENCE_SQL, NotLeader } from "./leader-store";

/** What assertLeading throws (the callers load this module lazily, and test for it through it). */
export { NotLeader };

const epochs = new WeakMap<object, number>();

/** The elector's `gained` (epoch) and `lost` (null) set what this process may store under. */
export function holdEpoch(db: Db, epoch: number | null): void {
  if (epoch === null) epochs.delete(connectionKey(db));
  else epochs.set(connectionKey(db), epoch);
}

/** The epoch this process leads with on `db`, or null (a follower, or not elected yet). */
export function heldEpoch(db: Db): number | null {
  return epochs.get(connectionKey(db)) ?? null;
}

/**
 * First statement of a transaction that stores a signed transaction (or anything a deposed leader
 * must never write): on PostgreSQL, NotLeader unless this process holds the current epoch, the
 * leader row share-locked until the transaction ends (leader-store.ts `assertEpoch`).
 */
export async function assertLeading(tx: DbOrTx): Promise<void> {
  const db = tx as Db;
  if (!isPg(db)) return;
  const epoch = heldEpoch(db);
  if (epoch === null) throw new NotLeader(-1, null);
  const rows = (await pgOf(db).execute(sql.raw(EPOCH_FENCE_SQL))) as unknown as { epoch: string | number }[];
  checkEpoch(rows.length ? Number(rows[0]!.epoch) : null, epoch);
}
