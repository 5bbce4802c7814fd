// ops/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle): the
// liveness ping and the counts the alert conditions and metrics read, the same statements as the
// SQLite side without INDEXED BY (the planner picks the partial indexes: their predicates are
// spelled alike, db/status-sql.ts). SQLite's storage monitor (ops/storage.ts: stopWrites,
// busyTimeout, setBusyTimeout, probeWrite, inTransaction) has no PostgreSQL side: it watches the
// database file, and on PostgreSQL an outage is a connection error (10003), /readyz checks the
// server is writable (pg_is_in_recovery), and the server's own monitoring watches its disk.
import { sql } from "drizzle-orm";
import type { PgQ } from "../db/engine";
import { pgStatement } from "../db/raw";
import type { DetectionSample } from "./store";
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

/** A SQLite statement of ops/store.ts as PostgreSQL runs it: the same text without its INDEXED BY. */
export const onPg = (text: string) => text.replace(/ INDEXED BY \w+/g, "");

async function rows<T>(db: PgQ, text: string, params: unknown[] = []): Promise<T[]> {
  return (await db.execute(pgStatement(onPg(text), params))) as unknown as T[];
}

const count = async (db: PgQ, text: string, params: unknown[] = []) => Number((await rows<{ n: string | number }>(db, text, params))[0]?.n ?? 0);

/** The liveness ping: one round trip to the server. */
export async function ping(db: PgQ): Promise<void> {
  await db.execute(sql`SELECT 1`);
}

export async function sweepFoundSince(db: PgQ, since: number): Promise<{ chain: string; n: number; tx: string }[]> {
  const by = new Map<string, { chain: string; n: number; tx: string }>();
  for (const r of await rows<{ chain: string; tx: string }>(db, SWEEP_FOUND, [since])) {
    const c = by.get(r.chain) ?? { chain: r.chain, n: 0, tx: r.tx };
    c.n++;
    by.set(r.chain, c);
  }
  return [...by.values()].sort((a, b) => (a.chain < b.chain ? -1 : 1));
}

export async function failedCallbacksSince(db: PgQ, since: number): Promise<number> {
  return await count(db, FAILED_CALLBACKS, [since]);
}

export async function failedPayoutsSince(db: PgQ, since: number): Promise<string[]> {
  return (await rows<{ order_no: string }>(db, FAILED_PAYOUTS, [since])).map((r) => r.order_no);
}

export async function stuckPayouts(db: PgQ): Promise<{ chain: string; order_no: string }[]> {
  return await rows(db, STUCK_PAYOUTS);
}

export async function stuckTopups(db: PgQ): Promise<{ chain: string; order_no: string }[]> {
  return await rows(db, STUCK_TOPUPS);
}

export async function openUnmatchedCount(db: PgQ): Promise<number> {
  return await count(db, OPEN_UNMATCHED);
}

export async function queuedCallbacks(db: PgQ): Promise<number> {
  return await count(db, QUEUED_CALLBACKS);
}

export async function balanceMismatchCount(db: PgQ): Promise<number> {
  return await count(db, BALANCE_MISMATCHES);
}

export async function unrecordedByChain(db: PgQ): Promise<{ chain: string; n: number; a: number }[]> {
  return (await rows<{ chain: string; n: string | number; a: string | number }>(db, UNRECORDED_BY_CHAIN)).map((r) => ({ chain: r.chain, n: Number(r.n), a: Number(r.a) }));
}

export async function detectionSamplesSince(db: PgQ, since: number): Promise<DetectionSample[]> {
  // Quoted aliases: PostgreSQL folds unquoted names to lower case.
  const text = DETECTION_SINCE.replace(/ AS (\w+)/g, ' AS "$1"');
  const num = (v: string | number | null) => (v === null ? null : Number(v));
  return (await rows<{ chain: string; blockTime: string; seenAt: string; completedAt: string | null; callbackAt: string | null }>(db, text, [since])).map((r) => ({
    chain: r.chain,
    blockTime: Number(r.blockTime),
    seenAt: Number(r.seenAt),
    completedAt: num(r.completedAt),
    callbackAt: num(r.callbackAt),
  }));
}
