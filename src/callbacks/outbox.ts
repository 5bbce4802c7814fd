// The outbox: a state change and its callback are written in one transaction
// (callers pass their transaction). The delivery worker reads from here.
import { afterCommit, type Tx } from "../db/client";
import { newEventId, orderEventId } from "../lib/ids";
import { callbacksDue } from "../db/callbacks-due";
import { callbackHandoff, insertCallback, insertClaimedCallback, merchantDefaultUrl, type NewCallbackRow } from "./store";

export interface CallbackEvent {
  merchantId: number;
  /** epusdt / epay: a shop plugin's callback (./compat.ts), sent in that protocol's own shape. */
  kind: "payin" | "payout" | "test" | "invoice" | "epusdt" | "epay" | "refund";
  orderNo: string;
  status: string;
  apiKeyId: string;
  /** Target URL; null falls back to the merchant's default callback URL at delivery time (held while it has none). */
  url: string | null;
  /** Spec 6.3 fields; eventId and eventTime are added here. */
  payload: Record<string, unknown>;
  now: number;
}

/**
 * `first`: the event is its order's first (a create's), so nothing of its order is queued before
 * it and it may go straight to this process's worker (callbacks/handoff.ts) when that one has a
 * slot free and nothing else due.
 */
export async function enqueueCallback(tx: Tx, e: CallbackEvent, opts?: { first?: boolean }): Promise<string> {
  // A callback with no target at all is held (never dropped) until the merchant gets a default URL.
  const defaultUrl = e.url === null ? await merchantDefaultUrl(tx, e.merchantId) : null;
  const target = e.url ?? defaultUrl;
  const state = target === null ? "held" : "pending";
  const first = callbackRow(e, state);
  if (opts?.first && target !== null && await handOff(tx, first, target)) return first.id;
  // An order's events have stable ids (lib/ids.ts orderEventId): the first free occurrence is
  // this one. Test events are not order changes and keep a fresh id each.
  for (let occurrence = 0; ; occurrence++) {
    const row = occurrence === 0 ? first : callbackRow(e, state, occurrence);
    if (await insertCallback(tx, row)) {
      calledBack(tx);
      return row.id;
    }
  }
}

/** Writes the row claimed by this process's worker and hands it over once committed; false: the worker has no slot for it now (or takes no handoffs). */
async function handOff(tx: Tx, row: NewCallbackRow, target: string): Promise<boolean> {
  const taker = await callbackHandoff(tx);
  if (!taker) return false;
  const lease = taker.offer(row.id, row.merchantId, target);
  if (!lease) return false;
  const rid = await insertClaimedCallback(tx, row, lease);
  if (rid === null) {
    taker.cancel(row.id);
    return false;
  }
  const due = { rid, id: row.id, kind: row.kind, merchantId: row.merchantId, orderNo: row.orderNo, apiKeyId: row.apiKeyId, payload: row.payload, attempts: 0, target };
  afterCommit(tx, () => taker.adopt(due, lease.until));
  return true;
}

/** The outbox row of `e`'s `occurrence`-th write (0 first: an order's event ids are stable, lib/ids.ts orderEventId). */
export function callbackRow(e: CallbackEvent, state: NewCallbackRow["state"], occurrence = 0): NewCallbackRow {
  const id = e.kind === "test" ? newEventId(e.now) : orderEventId({ ...e, occurrence, fallbackMs: e.now });
  // A shop protocol's fields are signed field by field: nothing is added to them.
  const payload = e.kind === "epusdt" || e.kind === "epay" ? JSON.stringify(e.payload) : JSON.stringify({ ...e.payload, eventId: id, eventTime: new Date(e.now).toISOString() });
  return { id, merchantId: e.merchantId, kind: e.kind, orderNo: e.orderNo, status: e.status, apiKeyId: e.apiKeyId, url: e.url, payload, state, now: e.now };
}

/** After a callback row was written in `tx` (by enqueueCallback or a store writing it with its order): the worker is woken once it is committed, never for a write rolled back. */
export function calledBack(tx: Tx): void {
  afterCommit(tx, callbacksDue);
}
