// The payouts domain's storage (docs/architecture.md "Data access"): the payout orders as the
// chain layer's payout steps see them (chains/payout-steps.ts `PayoutStore`: which of a source's
// payouts are signed but unsent, which may still hold a nonce), the limit checks' hand-tuned
// reads, payouts by id, and the replacements of a payout's transaction (payout_tx_attempts).
// The status lists come from the state machine (payout/state.ts).
import { and, asc, eq, inArray, isNotNull, notInArray } from "drizzle-orm";
import type { PayoutStore } from "../chains/payout-steps";
import type { SignedTransfer } from "../chains/types";
import { type DbOrTx, prepared, type Tx } from "../db/client";
import type { PayoutOrderRow } from "./views";
import { payoutOrders, payoutTxAttempts } from "../db/schema";
import { AWAITING_BROADCAST, PAYOUT_STATUSES, UNFINISHED } from "./state";

export const payoutStore: PayoutStore = {
  signedUnsent: (db, fromAddressId) =>
    db
      .select()
      .from(payoutOrders)
      .where(and(eq(payoutOrders.fromAddressId, fromAddressId), inArray(payoutOrders.status, [...AWAITING_BROADCAST]), isNotNull(payoutOrders.signedTx)))
      .all(),
  unfinishedSignedMeta: (db, chain, fromAddress) =>
    db
      .select({ meta: payoutOrders.signedMeta })
      .from(payoutOrders)
      .where(and(eq(payoutOrders.chain, chain), eq(payoutOrders.fromAddress, fromAddress), inArray(payoutOrders.status, [...UNFINISHED]), isNotNull(payoutOrders.signedMeta)))
      .all()
      .map((r) => r.meta!),
  signedMeta: (db, chain, fromAddress) =>
    db
      .select({ meta: payoutOrders.signedMeta })
      .from(payoutOrders)
      .where(and(eq(payoutOrders.chain, chain), eq(payoutOrders.fromAddress, fromAddress), isNotNull(payoutOrders.signedMeta)))
      .all()
      .map((r) => r.meta!),
  finished: (db, ids) => {
    const out: ReturnType<PayoutStore["finished"]> = [];
    for (let i = 0; i < ids.length; i += 500) {
      out.push(...db.select().from(payoutOrders).where(and(inArray(payoutOrders.id, ids.slice(i, i + 500)), notInArray(payoutOrders.status, [...UNFINISHED]))).all());
    }
    return out;
  },
};

/** Payout orders by id, 500 ids a statement (the batch progress page's rows). */
export function payoutsByIds(db: DbOrTx, ids: number[]): Map<number, PayoutOrderRow> {
  const out = new Map<number, PayoutOrderRow>();
  for (let i = 0; i < ids.length; i += 500) {
    for (const o of db.select().from(payoutOrders).where(inArray(payoutOrders.id, ids.slice(i, i + 500))).all()) out.set(o.id, o);
  }
  return out;
}

// The daily limit and the fee reserve read through payout_list_merchant (merchant_id, status):
// today's payouts as an id range (its entries end in the rowid; src/orders/id-at.ts) and the
// unfinished ones, never the merchant's whole payout history (issue 23).
// Every status but the terminal failure, from the state machine (a new status counts unless it is "failed").
const NOT_FAILED = PAYOUT_STATUSES.filter((s) => s !== "failed");
const list = (xs: readonly string[]) => xs.map((x) => `'${x}'`).join(", ");

export const USED_TODAY = `SELECT amount, decimals FROM payout_orders INDEXED BY payout_list_merchant
  WHERE merchant_id = ?1 AND status IN (${list(NOT_FAILED)}) AND id >= ?2 AND +created_at >= ?3`;
export const RESERVED_FEES = `SELECT fee, decimals FROM payout_orders INDEXED BY payout_list_merchant
  WHERE merchant_id = ?1 AND status IN (${list([...UNFINISHED])})`;

/** Amounts of the merchant's payouts that did not fail, with id >= fromId and created at or after `since` (USED_TODAY). */
export function notFailedSince(tx: DbOrTx, merchantId: number, fromId: number, since: number): { amount: string; decimals: number }[] {
  return prepared(tx, "payoutUsedToday", (d) => d.$client.prepare<{ amount: string; decimals: number }, [number, number, number]>(USED_TODAY)).all(merchantId, fromId, since);
}

/** Fees of the merchant's unfinished payouts (RESERVED_FEES). */
export function unfinishedFees(tx: DbOrTx, merchantId: number): { fee: string; decimals: number }[] {
  return prepared(tx, "payoutReservedFees", (d) => d.$client.prepare<{ fee: string; decimals: number }, [number]>(RESERVED_FEES)).all(merchantId);
}

/** One transaction of a payout and since when it is out (the order's first: broadcast time; a replacement: stored time). */
export interface PayoutTxAttempt {
  tx: SignedTransfer;
  since: number;
}

/** The replacements of a payout's transaction (payout_tx_attempts), oldest first. */
export function replacements(db: DbOrTx, orderId: number): PayoutTxAttempt[] {
  return db
    .select()
    .from(payoutTxAttempts)
    .where(eq(payoutTxAttempts.payoutOrderId, orderId))
    .orderBy(asc(payoutTxAttempts.id))
    .all()
    .map((r) => ({ tx: { txHash: r.txHash, raw: r.signedTx, meta: JSON.parse(r.signedMeta) as Record<string, unknown> }, since: r.createdAt }));
}

/** Stores a replacement (inside the transaction that commits it before it is broadcast). */
export function addReplacement(tx: Tx, o: { id: number; chain: string }, signed: SignedTransfer, now: number): void {
  tx.insert(payoutTxAttempts).values({ payoutOrderId: o.id, chain: o.chain, txHash: signed.txHash, signedTx: signed.raw, signedMeta: JSON.stringify(signed.meta), createdAt: now }).run();
}
