// The payouts domain's storage (docs/architecture.md "Data access"): the payout orders as the
// chain layer's payout steps see them (chains/payout-steps.ts `PayoutStore`: which of a source's
// payouts are signed but unsent, which may still hold a nonce), the limit checks' hand-tuned
// reads, payouts by id, and the replacements of a payout's transaction (payout_tx_attempts).
// The status lists come from the state machine (payout/state.ts).
import { and, asc, eq, inArray, isNotNull, isNull, like, notInArray } from "drizzle-orm";
import type { PayoutStore } from "../chains/payout-steps";
import type { SignedTransfer } from "../chains/types";
import { type DbOrTx, prepared, type Tx } from "../db/client";
import type { PayoutOrderRow } from "./views";
import { addresses, ledgerEntries, payoutOrders, payoutTxAttempts } from "../db/schema";
import type { AddressRow } from "../wallet/addresses";
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

// ---- Payout orders (payout/service.ts) ----

/** The merchant's payout with this merchantOrderNo (the idempotent retry of a create). */
export function payoutByMerchantOrderNo(tx: DbOrTx, merchantId: number, merchantOrderNo: string): PayoutOrderRow | undefined {
  return tx.select().from(payoutOrders).where(and(eq(payoutOrders.merchantId, merchantId), eq(payoutOrders.merchantOrderNo, merchantOrderNo))).get();
}

/** The merchant's payout with this orderNo. */
export function payoutByOrderNo(db: DbOrTx, merchantId: number, orderNo: string): PayoutOrderRow | undefined {
  return db.select().from(payoutOrders).where(and(eq(payoutOrders.orderNo, orderNo), eq(payoutOrders.merchantId, merchantId))).get();
}

/** A payout by id. */
export function payoutRow(db: DbOrTx, id: number): PayoutOrderRow | undefined {
  return db.select().from(payoutOrders).where(eq(payoutOrders.id, id)).get();
}

/** A new payout order. */
export function insertPayoutRow(tx: Tx, values: typeof payoutOrders.$inferInsert): PayoutOrderRow {
  return tx.insert(payoutOrders).values(values).returning().get();
}

/** Writes `set` on the payout and returns the new row (status changes and patches alike). */
export function updatePayout(tx: Tx, id: number, set: Partial<PayoutOrderRow>): PayoutOrderRow {
  return tx.update(payoutOrders).set(set).where(eq(payoutOrders.id, id)).returning().get();
}

/** The ledger's entry of a confirmed payout (once: ON CONFLICT DO NOTHING). */
export function addPayoutLedger(tx: Tx, o: Pick<PayoutOrderRow, "fromAddressId" | "chain" | "token" | "amount" | "orderNo">, now: number): void {
  tx.insert(ledgerEntries)
    .values({ addressId: o.fromAddressId, chain: o.chain, token: o.token, kind: "payout", amount: (-BigInt(o.amount)).toString(), refType: "payout_order", refId: o.orderNo, createdAt: now })
    .onConflictDoNothing()
    .run();
}

// ---- A batch preview's stand-in orders (treasury/batch.ts): one unfinished row per source and
// token holding the sum of the valid rows so far, inside a transaction that is rolled back ----

/** A stand-in payout order; its id. */
export function insertStandIn(db: DbOrTx, values: typeof payoutOrders.$inferInsert): number {
  return db.insert(payoutOrders).values(values).returning({ id: payoutOrders.id }).get().id;
}

/** A stand-in's new sum (amount, fee, retiring). */
export function updateStandIn(db: DbOrTx, id: number, set: Partial<PayoutOrderRow>): void {
  db.update(payoutOrders).set(set).where(eq(payoutOrders.id, id)).run();
}

// ---- Source addresses as a payout reads and retires them (the addresses table is wallet/'s;
// these three statements are the payout rules' own questions) ----

/** One of the merchant's addresses on the chain (payouts to it are 54003). */
export function merchantHasAddress(db: DbOrTx, merchantId: number, chain: string, address: string): boolean {
  return !!db.select({ id: addresses.id }).from(addresses).where(and(eq(addresses.merchantId, merchantId), eq(addresses.chain, chain), eq(addresses.address, address))).get();
}

/** Every address row with this text, any chain, any merchant (the caller filters). */
export function addressesNamed(tx: DbOrTx, address: string): AddressRow[] {
  return tx.select().from(addresses).where(eq(addresses.address, address)).all();
}

/** Soft-deletes a payout's source (deleteSourceAfterSuccess), unless already deleted. */
export function retireSource(tx: Tx, addressId: string, now: number): void {
  tx.update(addresses).set({ deletedAt: now }).where(and(eq(addresses.id, addressId), isNull(addresses.deletedAt))).run();
}

/**
 * Releases a source's payouts held with `errorPrefix` (a restore's hold: they wait unsent in an
 * awaiting-broadcast status, and the executor picks them up once released); their order numbers.
 * `restore/reconcile.ts` `acknowledgeUnrecorded` runs it through its port.
 */
export function releaseHeldPayouts(tx: DbOrTx, chain: string, address: string, errorPrefix: string, now: number): string[] {
  return tx
    .update(payoutOrders)
    .set({ lastError: null, retryAt: null, updatedAt: now })
    .where(and(eq(payoutOrders.chain, chain), eq(payoutOrders.fromAddress, address), inArray(payoutOrders.status, [...AWAITING_BROADCAST]), like(payoutOrders.lastError, `${errorPrefix}%`)))
    .returning({ orderNo: payoutOrders.orderNo })
    .all()
    .map((r) => r.orderNo);
}

// --- h24e: a payout by orderNo, any merchant's (payin/unmatched.ts: the refund recorded for a deposit) ---

export function payoutWithOrderNo(db: DbOrTx, orderNo: string): PayoutOrderRow | undefined {
  return db.select().from(payoutOrders).where(eq(payoutOrders.orderNo, orderNo)).get();
}
