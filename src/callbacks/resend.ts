// Operator view of the outbox: list callbacks and their attempts, resend one.
// Used by the CLI now and by the back office later (no HTTP context here).
import { afterCommit, type DbOrTx, type Tx, writeTx } from "../db/client";
import { recordAudit, type Actor } from "../audit/log";
import { callbacksDue } from "../db/callbacks-due";
import { type CallbackDeliveryState, UNDELIVERED } from "./state";
import { getCallback, listCallbackRows, requeueCallback, type CallbackRow } from "./store";

export { callbackAttemptsOf, getCallback, type CallbackAttemptRow, type CallbackRow } from "./store";
/** The outbox's states (callbacks/state.ts CALLBACK_STATES). */
export type CallbackState = CallbackDeliveryState;

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
export async function listCallbacks(db: DbOrTx, o: ListOptions = {}): Promise<CallbackRow[]> {
  return await listCallbackRows(db, { ...o, limit: o.limit ?? 100 });
}

/**
 * Queues a failed (or already delivered) callback for a fresh round of
 * deliveries with the same eventId and payload. `merchantId` scopes the lookup
 * (a merchant never resends another's callback).
 */
export async function resendCallback(db: DbOrTx, eventId: string, now: number, scope: { merchantId?: number } = {}, actor?: Actor): Promise<CallbackRow> {
  return await writeTx(db, async (tx) => {
    const updated = await resend(tx, eventId, now, scope);
    if (actor) await recordAudit(tx, { ...actor, at: now, action: "callback.resend", target: `callback:${eventId}`, before: { state: updated.before }, after: { state: "pending" } });
    return updated.row;
  });
}

async function resend(db: Tx, eventId: string, now: number, scope: { merchantId?: number }): Promise<{ row: CallbackRow; before: string }> {
  const row = await getCallback(db, eventId);
  if (!row || (scope.merchantId !== undefined && row.merchantId !== scope.merchantId)) throw new CallbackNotFound(eventId);
  if ((UNDELIVERED as readonly string[]).includes(row.state)) throw new CallbackBusy(eventId, row.state);
  const updated = await requeueCallback(db, eventId, row.state, now);
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
