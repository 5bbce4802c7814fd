// The outbox: a state change and its callback are written in one transaction
// (callers pass their transaction). The delivery worker reads from here.
import { afterCommit, type Tx } from "../db/client";
import { newEventId, orderEventId } from "../lib/ids";
import { callbacksDue } from "../db/callbacks-due";
import { insertCallback, merchantDefaultUrl, type NewCallbackRow } from "./store";

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

export async function enqueueCallback(tx: Tx, e: CallbackEvent): Promise<string> {
  // A callback with no target at all is held (never dropped) until the merchant gets a default URL.
  const state = e.url === null && !await merchantDefaultUrl(tx, e.merchantId) ? "held" : "pending";
  // An order's events have stable ids (lib/ids.ts orderEventId): the first free occurrence is
  // this one. Test events are not order changes and keep a fresh id each.
  for (let occurrence = 0; ; occurrence++) {
    const row = callbackRow(e, state, occurrence);
    if (await insertCallback(tx, row)) {
      calledBack(tx);
      return row.id;
    }
  }
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
