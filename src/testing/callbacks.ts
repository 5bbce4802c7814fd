// Test helpers for the callback outbox: write events the way state changes do.
import { type DbOrTx, writeTx } from "../db/client";
import { enqueueCallback } from "../callbacks/outbox";
import { getCallback } from "../callbacks/store";
import { currentKey } from "../merchants/service";

// Kept for imports that predate wait.ts; the one definition lives there.

let seq = 0;

export interface TestEvent {
  merchantId: number;
  url: string | null;
  orderNo?: string;
  status?: string;
  now?: number;
  /** Defaults to the merchant's current key, as order creation does. */
  apiKeyId?: string;
}

/** A pay-in callback with spec 6.3 fields; returns its eventId. */
export async function enqueueTestCallback(db: DbOrTx, e: TestEvent): Promise<string> {
  const apiKeyId = e.apiKeyId ?? (await currentKey(db, e.merchantId))?.id;
  if (!apiKeyId) throw new Error(`merchant ${e.merchantId} has no current key`);
  const orderNo = e.orderNo ?? `PI2026112100000000${String(++seq).padStart(4, "0")}`;
  const status = e.status ?? "completed";
  return await writeTx(db, async (tx) => await enqueueCallback(tx, {
    merchantId: e.merchantId,
    kind: "payin",
    orderNo,
    status,
    apiKeyId,
    url: e.url,
    payload: {
      merchantUid: "M1000001",
      orderNo,
      merchantOrderNo: "shop-" + orderNo,
      mode: "shared",
      businessType: "payin_order",
      bindKey: null,
      expectedAmount: "100.000000",
      paidAmount: "100.000000",
      chainCode: "TRON",
      tokenSymbol: "USDT",
      txHash: "ab".repeat(32),
      fromAddress: "TXYZ",
      status,
    },
    now: e.now ?? Date.now(),
  }));
}

/** The callback's row, on either engine (callbacks/store.ts getCallback). */
export async function callbackRow(db: DbOrTx, id: string) {
  return await getCallback(db, id);
}

/** Whether every one of the callbacks is in `state` (read one after another, through the store). */
export async function allInState(db: DbOrTx, ids: readonly string[], state: string): Promise<boolean> {
  for (const id of ids) if ((await getCallback(db, id))?.state !== state) return false;
  return true;
}
