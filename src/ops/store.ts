// Operations' storage module (docs/architecture.md "Data access"): the counts the alert conditions
// and the metrics read, the liveness ping and the storage probe's committed write. The SQL
// constants (ops/probe-sql.ts, re-exported here) are the ones src/db/query-plans.test.ts reads
// (src/testing/engine-queries.ts).
import { type Db, readDb, type Tx, writing } from "../db/client";
import { isPg, pgOf, pgSide } from "../db/engine";
import {
  BALANCE_MISMATCHES,
  DETECTION_SINCE,
  FAILED_CALLBACKS,
  FAILED_PAYOUTS,
  OPEN_UNMATCHED,
  QUEUED_CALLBACKS,
  STUCK_PAYOUTS,
  STUCK_TOPUPS,
  SWEEP_FOUND,
  UNRECORDED_BY_CHAIN,
} from "./probe-sql";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

export { BALANCE_MISMATCHES, DETECTION_SINCE, FAILED_CALLBACKS, FAILED_PAYOUTS, OPEN_UNMATCHED, QUEUED_CALLBACKS, STUCK_PAYOUTS, STUCK_TOPUPS, SWEEP_FOUND, UNRECORDED_BY_CHAIN };

/** Per chain: transfers the sweep recorded since `since` (the scan had missed them), and one of their hashes. */
export async function sweepFoundSince(db: Db, since: number): Promise<{ chain: string; n: number; tx: string }[]> {
  if (isPg(db)) return await pg.sweepFoundSince(pgOf(db), since);
  const by = new Map<string, { chain: string; n: number; tx: string }>();
  for (const r of readDb(db).$client.query<{ chain: string; tx: string }, [number]>(SWEEP_FOUND).all(since)) {
    const c = by.get(r.chain) ?? { chain: r.chain, n: 0, tx: r.tx };
    c.n++;
    by.set(r.chain, c);
  }
  return [...by.values()].sort((a, b) => (a.chain < b.chain ? -1 : 1));
}

/** Callbacks that gave up since `since`. */
export async function failedCallbacksSince(db: Db, since: number): Promise<number> {
  if (isPg(db)) return await pg.failedCallbacksSince(pgOf(db), since);
  return readDb(db).$client.query<{ n: number }, [number]>(FAILED_CALLBACKS).get(since)!.n;
}

/** Payouts failed since `since`, newest first. */
export async function failedPayoutsSince(db: Db, since: number): Promise<string[]> {
  if (isPg(db)) return await pg.failedPayoutsSince(pgOf(db), since);
  return readDb(db).$client.query<{ order_no: string }, [number]>(FAILED_PAYOUTS).all(since).map((r) => r.order_no);
}

/** Broadcast payouts stuck at the gas price cap, by chain. */
export async function stuckPayouts(db: Db): Promise<{ chain: string; order_no: string }[]> {
  if (isPg(db)) return await pg.stuckPayouts(pgOf(db));
  return readDb(db).$client.query<{ chain: string; order_no: string }, []>(STUCK_PAYOUTS).all();
}

/** Payouts waiting for a gas top-up stuck at the gas price cap. */
export async function stuckTopups(db: Db): Promise<{ chain: string; order_no: string }[]> {
  if (isPg(db)) return await pg.stuckTopups(pgOf(db));
  return readDb(db).$client.query<{ chain: string; order_no: string }, []>(STUCK_TOPUPS).all();
}

/** Deposits that matched no order and wait for an operator. */
export async function openUnmatchedCount(db: Db): Promise<number> {
  if (isPg(db)) return await pg.openUnmatchedCount(pgOf(db));
  return readDb(db).$client.query<{ n: number }, []>(OPEN_UNMATCHED).get()!.n;
}

/** Callbacks not delivered yet (pending or in delivery). */
export async function queuedCallbacks(db: Db): Promise<number> {
  if (isPg(db)) return await pg.queuedCallbacks(pgOf(db));
  return readDb(db).$client.query<{ n: number }, []>(QUEUED_CALLBACKS).get()!.n;
}

/** Address/token pairs whose chain balance differs from the ledger. */
export async function balanceMismatchCount(db: Db): Promise<number> {
  if (isPg(db)) return await pg.balanceMismatchCount(pgOf(db));
  return readDb(db).$client.query<{ n: number }, []>(BALANCE_MISMATCHES).get()!.n;
}

/** Unacknowledged unrecorded outgoing transfers after a restore, per chain (n transfers from a sources). */
export async function unrecordedByChain(db: Db): Promise<{ chain: string; n: number; a: number }[]> {
  if (isPg(db)) return await pg.unrecordedByChain(pgOf(db));
  return readDb(db).$client.query<{ chain: string; n: number; a: number }, []>(UNRECORDED_BY_CHAIN).all();
}

/** The database answers (liveness); throws when it does not. */
export async function ping(db: Db): Promise<void> {
  if (isPg(db)) return await pg.ping(pgOf(db));
  db.$client.query("SELECT 1").get();
}

/** Makes the connection read-only: every later write fails as a storage fault. */
export async function stopWrites(db: Db): Promise<void> {
  db.$client.run("PRAGMA query_only = ON");
}

/** The connection's busy_timeout (ms). */
export async function busyTimeout(db: Db): Promise<number> {
  const busy = (db.$client.query("PRAGMA busy_timeout").get() as Record<string, number>) ?? {};
  return Object.values(busy)[0] ?? 5000;
}

export async function setBusyTimeout(db: Db, ms: number): Promise<void> {
  db.$client.run(`PRAGMA busy_timeout = ${Number(ms)}`);
}

/** The storage probe: one committed write of the probe row (throws the SQLite error when it fails). */
export async function probeWrite(tx: Tx, now: number): Promise<void> {
  writing(tx).$client.run("INSERT INTO storage_probe (id, at, probes) VALUES (1, ?, 1) ON CONFLICT (id) DO UPDATE SET at = excluded.at, probes = probes + 1", [now]);
}

/** Whether the connection is inside a transaction (a probe then would join it). */
export async function inTransaction(db: Db): Promise<boolean> {
  return db.$client.inTransaction;
}


export interface DetectionSample {
  chain: string;
  blockTime: number;
  seenAt: number;
  completedAt: number | null;
  callbackAt: number | null;
}

export async function detectionSamplesSince(db: Db, since: number): Promise<DetectionSample[]> {
  if (isPg(db)) return await pg.detectionSamplesSince(pgOf(db), since);
  return readDb(db).$client.query<DetectionSample, [number]>(DETECTION_SINCE).all(since);
}
