// Operator view of the outbox: list callbacks and their attempts, resend one.
// Used by the CLI now and by the back office later (no HTTP context here).
import { and, asc, desc, eq, type SQL } from "drizzle-orm";
import { afterCommit, type DbOrTx, type Tx, writeTx } from "../db/client";
import { recordAudit, type Actor } from "../audit/log";
import { callbackAttempts, callbacks } from "../db/schema";
import { callbacksDue } from "../db/callbacks-due";

export type CallbackRow = typeof callbacks.$inferSelect;
export type CallbackAttemptRow = typeof callbackAttempts.$inferSelect;
export type CallbackState = "pending" | "delivering" | "delivered" | "failed" | "held";

export class CallbackNotFound extends Error {
  constructor(id: string) {
    super(`no callback with event id ${id}`);
  }
}

export class CallbackBusy extends Error {
  constructor(id: string, state: string) {
    super(`callback ${id} is ${state}; it is already queued for delivery`);
  }
}

export interface ListOptions {
  state?: CallbackState;
  merchantId?: number;
  orderNo?: string;
  limit?: number;
}

/** Newest first. */
export function listCallbacks(db: DbOrTx, o: ListOptions = {}): CallbackRow[] {
  const where: SQL[] = [];
  if (o.state) where.push(eq(callbacks.state, o.state));
  if (o.merchantId !== undefined) where.push(eq(callbacks.merchantId, o.merchantId));
  if (o.orderNo) where.push(eq(callbacks.orderNo, o.orderNo));
  return db
    .select()
    .from(callbacks)
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(callbacks.createdAt))
    .limit(o.limit ?? 100)
    .all();
}

export function getCallback(db: DbOrTx, eventId: string): CallbackRow | undefined {
  return db.select().from(callbacks).where(eq(callbacks.id, eventId)).get();
}

export function callbackAttemptsOf(db: DbOrTx, eventId: string): CallbackAttemptRow[] {
  return db.select().from(callbackAttempts).where(eq(callbackAttempts.callbackId, eventId)).orderBy(asc(callbackAttempts.attemptNo)).all();
}

/**
 * Queues a failed (or already delivered) callback for a fresh round of
 * deliveries with the same eventId and payload. `merchantId` scopes the lookup
 * (a merchant never resends another's callback).
 */
export function resendCallback(db: DbOrTx, eventId: string, now: number, scope: { merchantId?: number } = {}, actor?: Actor): CallbackRow {
  return writeTx(db, (tx) => {
    const updated = resend(tx, eventId, now, scope);
    if (actor) recordAudit(tx, { ...actor, at: now, action: "callback.resend", target: `callback:${eventId}`, before: { state: updated.before }, after: { state: "pending" } });
    return updated.row;
  });
}

function resend(db: Tx, eventId: string, now: number, scope: { merchantId?: number }): { row: CallbackRow; before: string } {
  const row = getCallback(db, eventId);
  if (!row || (scope.merchantId !== undefined && row.merchantId !== scope.merchantId)) throw new CallbackNotFound(eventId);
  if (row.state === "pending" || row.state === "delivering") throw new CallbackBusy(eventId, row.state);
  const updated = db
    .update(callbacks)
    .set({ state: "pending", attempts: 0, nextAttemptAt: now, leaseUntil: null, lastError: null, updatedAt: now })
    .where(and(eq(callbacks.id, eventId), eq(callbacks.state, row.state)))
    .returning()
    .get();
  if (!updated) throw new CallbackBusy(eventId, "changing");
  afterCommit(db, callbacksDue);
  return { row: updated, before: row.state };
}

/** The shape the CLI and back office show. */
export function describeCallback(r: CallbackRow) {
  return {
    eventId: r.id,
    kind: r.kind,
    orderNo: r.orderNo,
    orderStatus: r.status,
    state: r.state,
    attempts: r.attempts,
    url: r.url,
    lastError: r.lastError,
    createdAt: new Date(r.createdAt).toISOString(),
    updatedAt: new Date(r.updatedAt).toISOString(),
  };
}
