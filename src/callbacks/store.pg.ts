// callbacks/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL
// handle): the outbox's writes and the operator's reads. The delivery worker's store
// (callbackWorkerStore: FOR UPDATE SKIP LOCKED claims with a lease owner and expiry) is not
// ported yet; see docs/postgresql.md.
import { and, asc, desc, eq, type SQL, sql } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { callbackAttempts, callbacks, merchants } from "../db/schema-pg";
import type { CallbackAttemptRow, CallbackRow, NewCallbackRow } from "./store";

export async function insertCallback(tx: PgQ, r: NewCallbackRow): Promise<boolean> {
  const row = await firstRow(
    tx
      .insert(callbacks)
      .values({
        id: r.id, merchantId: r.merchantId, kind: r.kind as CallbackRow["kind"], orderNo: r.orderNo, status: r.status, apiKeyId: r.apiKeyId, url: r.url, payload: r.payload,
        state: r.state, attempts: 0, nextAttemptAt: r.now, createdAt: r.now, updatedAt: r.now,
      })
      .onConflictDoNothing({ target: callbacks.id })
      .returning({ id: callbacks.id }),
  );
  return !!row;
}

export async function merchantDefaultUrl(tx: PgQ, merchantId: number): Promise<string | null> {
  return (await firstRow(tx.select({ url: merchants.defaultCallbackUrl }).from(merchants).where(eq(merchants.id, merchantId))))?.url ?? null;
}

export async function releaseHeldCallbacks(db: PgQ, merchantId: number, now: number): Promise<number> {
  const rows = await db
    .update(callbacks)
    .set({ state: "pending", nextAttemptAt: now, updatedAt: now })
    .where(and(eq(callbacks.merchantId, merchantId), eq(callbacks.state, "held")))
    .returning({ id: callbacks.id });
  return rows.length;
}

export async function listCallbackRows(db: PgQ, o: { state?: string; merchantId?: number; orderNo?: string; limit: number }): Promise<CallbackRow[]> {
  const where: SQL[] = [];
  if (o.state) where.push(eq(callbacks.state, o.state));
  if (o.merchantId !== undefined) where.push(eq(callbacks.merchantId, o.merchantId));
  if (o.orderNo) where.push(eq(callbacks.orderNo, o.orderNo));
  return await db
    .select()
    .from(callbacks)
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(callbacks.createdAt))
    .limit(o.limit);
}

export async function getCallback(db: PgQ, eventId: string): Promise<CallbackRow | undefined> {
  return await firstRow(db.select().from(callbacks).where(eq(callbacks.id, eventId)));
}

export async function callbackAttemptsOf(db: PgQ, eventId: string): Promise<CallbackAttemptRow[]> {
  return await db.select().from(callbackAttempts).where(eq(callbackAttempts.callbackId, eventId)).orderBy(asc(callbackAttempts.attemptNo));
}

export async function requeueCallback(tx: PgQ, eventId: string, fromState: string, now: number): Promise<CallbackRow | undefined> {
  return await firstRow(
    tx
      .update(callbacks)
      .set({ state: "pending", attempts: 0, nextAttemptAt: now, leaseUntil: null, leaseOwner: null, lastError: null, updatedAt: now })
      .where(and(eq(callbacks.id, eventId), eq(callbacks.state, fromState)))
      .returning(),
  );
}

export async function recentTestCallbackRows(db: PgQ, merchantId: number, limit: number): Promise<CallbackRow[]> {
  return await db
    .select()
    .from(callbacks)
    .where(and(eq(callbacks.merchantId, merchantId), sql`${callbacks.kind} = 'test'`))
    .orderBy(desc(callbacks.createdAt))
    .limit(limit);
}
