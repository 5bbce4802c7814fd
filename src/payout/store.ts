// The payouts domain's storage (docs/architecture.md "Data access"): the payout orders as the
// chain layer's payout steps see them (chains/payout-steps.ts `PayoutStore`: which of a source's
// payouts are signed but unsent, which may still hold a nonce), the limit checks' hand-tuned
// reads, payouts by id, and the replacements of a payout's transaction (payout_tx_attempts);
// the executor's open payouts, the payout controls and fee journal, and refunds (sections at the end).
// The status lists come from the state machines (payout/state.ts, payout/refund-state.ts).
import { and, asc, eq, inArray, isNotNull, isNull, like, lte, notInArray, or, sql } from "drizzle-orm";
import { attemptColumns, storedAttempt, type PayoutStore, type TxAttempt } from "../chains/payout-steps";
import type { SignedTransfer } from "../chains/types";
import { type DbOrTx, prepared, type Tx, updateById, updateByIdIf } from "../db/client";
import type { PayoutOrderRow } from "./views";
import type { RefundRow } from "./refund-views";
import { HOLDING } from "./refund-state";
import { feeEntries, ledgerEntries, merchants, payinOrders, payoutOrders, payoutTxAttempts, refunds } from "../db/schema";
import type { Merchant, MerchantPatch } from "../merchants/store";
import { statusSql, statusTerm } from "../db/status-sql";
import { AWAITING_BROADCAST, AWAITING_FINALITY, FAILED, PAYOUT_STATUSES, UNFINISHED } from "./state";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

type FeeEntryRow = typeof feeEntries.$inferSelect;

/** The source's payouts signed and stored but not yet accepted by a node (PayoutStore). */
export async function signedUnsent(db: DbOrTx, fromAddressId: string): Promise<PayoutOrderRow[]> {
  if (isPg(db)) return await pg.signedUnsent(pgOf(db), fromAddressId);
  return db
    .select()
    .from(payoutOrders)
    .where(and(eq(payoutOrders.fromAddressId, fromAddressId), inArray(payoutOrders.status, [...AWAITING_BROADCAST]), isNotNull(payoutOrders.signedTx)))
    .all();
}

/** The signed metadata of the source's unfinished payouts on `chain` (PayoutStore). */
export async function unfinishedSignedMeta(db: DbOrTx, chain: string, fromAddress: string): Promise<string[]> {
  if (isPg(db)) return await pg.unfinishedSignedMeta(pgOf(db), chain, fromAddress);
  return db
    .select({ meta: payoutOrders.signedMeta })
    .from(payoutOrders)
    .where(and(eq(payoutOrders.chain, chain), eq(payoutOrders.fromAddress, fromAddress), inArray(payoutOrders.status, [...UNFINISHED]), isNotNull(payoutOrders.signedMeta)))
    .all()
    .map((r) => r.meta!);
}

/** The signed metadata of every payout the source ever signed on `chain` (PayoutStore). */
export async function signedMeta(db: DbOrTx, chain: string, fromAddress: string): Promise<string[]> {
  if (isPg(db)) return await pg.signedMeta(pgOf(db), chain, fromAddress);
  return db
    .select({ meta: payoutOrders.signedMeta })
    .from(payoutOrders)
    .where(and(eq(payoutOrders.chain, chain), eq(payoutOrders.fromAddress, fromAddress), isNotNull(payoutOrders.signedMeta)))
    .all()
    .map((r) => r.meta!);
}

/** Those of `ids` that are finished, 500 ids a statement (PayoutStore). */
export async function finishedPayouts(db: DbOrTx, ids: readonly number[]): Promise<PayoutOrderRow[]> {
  if (isPg(db)) return await pg.finishedPayouts(pgOf(db), ids);
  const out: PayoutOrderRow[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    out.push(...db.select().from(payoutOrders).where(and(inArray(payoutOrders.id, ids.slice(i, i + 500)), notInArray(payoutOrders.status, [...UNFINISHED]))).all());
  }
  return out;
}

/** The port the chain layer's payout steps read through (chains/payout-steps.ts): this store's functions, each dispatched per engine. */
export const payoutStore: PayoutStore = { signedUnsent, unfinishedSignedMeta, signedMeta, finished: finishedPayouts };

/** Payout orders by id, 500 ids a statement (the batch progress page's rows). */
export async function payoutsByIds(db: DbOrTx, ids: number[]): Promise<Map<number, PayoutOrderRow>> {
  if (isPg(db)) return await pg.payoutsByIds(pgOf(db), ids);
  const out = new Map<number, PayoutOrderRow>();
  for (let i = 0; i < ids.length; i += 500) {
    for (const o of db.select().from(payoutOrders).where(inArray(payoutOrders.id, ids.slice(i, i + 500))).all()) out.set(o.id, o);
  }
  return out;
}

// The daily limit and the fee reserve read through payout_list_merchant (merchant_id, status):
// today's payouts as an id range (its entries end in the rowid; src/orders/id-at.ts) and the
// unfinished ones, never the merchant's whole payout history (issue 23).
// Every status but the terminal failure, from the state machine (a new status counts unless it is a failure).
const NOT_FAILED = PAYOUT_STATUSES.filter((s) => !FAILED.includes(s));

export const USED_TODAY = `SELECT amount, decimals FROM payout_orders INDEXED BY payout_list_merchant
  WHERE merchant_id = ?1 AND ${statusSql("status", NOT_FAILED)} AND id >= ?2 AND +created_at >= ?3`;
export const RESERVED_FEES = `SELECT fee, decimals FROM payout_orders INDEXED BY payout_list_merchant
  WHERE merchant_id = ?1 AND ${statusSql("status", UNFINISHED)}`;

/** Amounts of the merchant's payouts that did not fail, with id >= fromId and created at or after `since` (USED_TODAY). */
export async function notFailedSince(tx: DbOrTx, merchantId: number, fromId: number, since: number): Promise<{ amount: string; decimals: number }[]> {
  if (isPg(tx)) return await pg.notFailedSince(pgOf(tx), merchantId, fromId, since);
  return prepared(tx, "payoutUsedToday", (d) => d.$client.prepare<{ amount: string; decimals: number }, [number, number, number]>(USED_TODAY)).all(merchantId, fromId, since);
}

/** Fees of the merchant's unfinished payouts (RESERVED_FEES). */
export async function unfinishedFees(tx: DbOrTx, merchantId: number): Promise<{ fee: string; decimals: number }[]> {
  if (isPg(tx)) return await pg.unfinishedFees(pgOf(tx), merchantId);
  return prepared(tx, "payoutReservedFees", (d) => d.$client.prepare<{ fee: string; decimals: number }, [number]>(RESERVED_FEES)).all(merchantId);
}

/** One transaction of a payout and since when it is out (the order's first: broadcast time; a replacement: stored time). */
export type PayoutTxAttempt = TxAttempt;

/** The replacements of a payout's transaction (payout_tx_attempts), oldest first. */
export async function replacements(db: DbOrTx, orderId: number): Promise<PayoutTxAttempt[]> {
  if (isPg(db)) return await pg.replacements(pgOf(db), orderId);
  return db.select().from(payoutTxAttempts).where(eq(payoutTxAttempts.payoutOrderId, orderId)).orderBy(asc(payoutTxAttempts.id)).all().map(storedAttempt);
}

/** Stores a replacement (inside the transaction that commits it before it is broadcast). */
export async function addReplacement(tx: Tx, o: { id: number; chain: string }, signed: SignedTransfer, now: number): Promise<void> {
  if (isPg(tx)) return await pg.addReplacement(pgOf(tx), o, signed, now);
  tx.insert(payoutTxAttempts).values({ payoutOrderId: o.id, ...attemptColumns(o.chain, signed, now) }).run();
}

// ---- Payout orders (payout/service.ts) ----

/** The merchant's payout with this merchantOrderNo (the idempotent retry of a create). */
export async function payoutByMerchantOrderNo(tx: DbOrTx, merchantId: number, merchantOrderNo: string): Promise<PayoutOrderRow | undefined> {
  if (isPg(tx)) return await pg.payoutByMerchantOrderNo(pgOf(tx), merchantId, merchantOrderNo);
  return tx.select().from(payoutOrders).where(and(eq(payoutOrders.merchantId, merchantId), eq(payoutOrders.merchantOrderNo, merchantOrderNo))).get();
}

/** The merchant's payout with this orderNo. */
export async function payoutByOrderNo(db: DbOrTx, merchantId: number, orderNo: string): Promise<PayoutOrderRow | undefined> {
  if (isPg(db)) return await pg.payoutByOrderNo(pgOf(db), merchantId, orderNo);
  return db.select().from(payoutOrders).where(and(eq(payoutOrders.orderNo, orderNo), eq(payoutOrders.merchantId, merchantId))).get();
}

/** A payout by id. */
export async function payoutRow(db: DbOrTx, id: number): Promise<PayoutOrderRow | undefined> {
  if (isPg(db)) return await pg.payoutRow(pgOf(db), id);
  return db.select().from(payoutOrders).where(eq(payoutOrders.id, id)).get();
}

/**
 * Serialises the merchant's payout creations (their balance, limit and fee checks read what the
 * others wrote): on PostgreSQL the merchant's row locked FOR UPDATE until the transaction ends (two
 * gateways, or two requests on one pool, never both spend one balance); on SQLite a write
 * transaction already runs alone on the one connection.
 */
export async function lockMerchantPayouts(tx: Tx, merchantId: number): Promise<void> {
  if (isPg(tx)) return await pg.lockMerchantPayouts(pgOf(tx), merchantId);
}

/** A new payout order. */
export async function insertPayoutRow(tx: Tx, values: typeof payoutOrders.$inferInsert): Promise<PayoutOrderRow> {
  if (isPg(tx)) return await pg.insertPayoutRow(pgOf(tx), values);
  return tx.insert(payoutOrders).values(values).returning().get();
}

/** Writes `set` on the payout and returns the new row (patches that change no status). */
export async function updatePayout(tx: Tx, id: number, set: Partial<PayoutOrderRow>): Promise<PayoutOrderRow> {
  if (isPg(tx)) return await pg.updatePayout(pgOf(tx), id, set);
  return tx.update(payoutOrders).set(set).where(eq(payoutOrders.id, id)).returning().get();
}

/** The payout funnel's status change: `set` if the payout is still in `expected`; undefined when another writer moved it first. */
export async function updatePayoutIf(tx: Tx, id: number, expected: string, set: Partial<PayoutOrderRow>): Promise<PayoutOrderRow | undefined> {
  if (isPg(tx)) return await pg.updatePayoutIf(pgOf(tx), id, expected, set);
  return await updateByIdIf<PayoutOrderRow>(tx, payoutOrders, id, expected, set);
}

/** The ledger's entry of a confirmed payout (once: ON CONFLICT DO NOTHING). */
export async function addPayoutLedger(tx: Tx, o: Pick<PayoutOrderRow, "fromAddressId" | "chain" | "token" | "amount" | "orderNo">, now: number): Promise<void> {
  if (isPg(tx)) return await pg.addPayoutLedger(pgOf(tx), o, now);
  tx.insert(ledgerEntries)
    .values({ addressId: o.fromAddressId, chain: o.chain, token: o.token, kind: "payout", amount: (-BigInt(o.amount)).toString(), refType: "payout_order", refId: o.orderNo, createdAt: now })
    .onConflictDoNothing()
    .run();
}

// ---- A batch preview's stand-in orders (treasury/batch.ts): one unfinished row per source and
// token holding the sum of the valid rows so far, inside a transaction that is rolled back ----

/** A stand-in payout order; its id. */
export async function insertStandIn(db: DbOrTx, values: typeof payoutOrders.$inferInsert): Promise<number> {
  if (isPg(db)) return await pg.insertStandIn(pgOf(db), values);
  return db.insert(payoutOrders).values(values).returning({ id: payoutOrders.id }).get().id;
}

/** A stand-in's new sum (amount, fee, retiring). */
export async function updateStandIn(db: DbOrTx, id: number, set: Partial<PayoutOrderRow>): Promise<void> {
  if (isPg(db)) return await pg.updateStandIn(pgOf(db), id, set);
  db.update(payoutOrders).set(set).where(eq(payoutOrders.id, id)).run();
}

/**
 * Releases a source's payouts held with `errorPrefix` (a restore's hold: they wait unsent in an
 * awaiting-broadcast status, and the executor picks them up once released); their order numbers.
 * `restore/reconcile.ts` `acknowledgeUnrecorded` runs it through its port.
 */
export async function releaseHeldPayouts(tx: DbOrTx, chain: string, address: string, errorPrefix: string, now: number): Promise<string[]> {
  if (isPg(tx)) return await pg.releaseHeldPayouts(pgOf(tx), chain, address, errorPrefix, now);
  return tx
    .update(payoutOrders)
    .set({ lastError: null, retryAt: null, updatedAt: now })
    .where(and(eq(payoutOrders.chain, chain), eq(payoutOrders.fromAddress, address), inArray(payoutOrders.status, [...AWAITING_BROADCAST]), like(payoutOrders.lastError, `${errorPrefix}%`)))
    .returning({ orderNo: payoutOrders.orderNo })
    .all()
    .map((r) => r.orderNo);
}

// --- a payout by orderNo, any merchant's (payin/unmatched.ts: the refund recorded for a deposit) ---

export async function payoutWithOrderNo(db: DbOrTx, orderNo: string): Promise<PayoutOrderRow | undefined> {
  if (isPg(db)) return await pg.payoutWithOrderNo(pgOf(db), orderNo);
  return db.select().from(payoutOrders).where(eq(payoutOrders.orderNo, orderNo)).get();
}

// --- the executor's open payouts, the payout controls, refunds ---

// The executor's open payouts (payout/executor.ts).
// Through the partial indexes payout_submitted / payout_broadcasted (migration 0152). The status
// is a literal, not a parameter: only a literal proves a partial index applies, and with ANALYZE
// statistics of a table that is nearly all 'confirmed', payout_status looks no better than a scan
// of every payout ever made (issue 23). The literal comes from the state machine.
export const SUBMITTED = sql`${payoutOrders.status} ${sql.raw(statusTerm(AWAITING_BROADCAST))}`;
export const BROADCASTED = sql`${payoutOrders.status} ${sql.raw(statusTerm(AWAITING_FINALITY))}`;

/**
 * The executor's scans (every tracking pass, per chain): built once per connection with the chain
 * as a placeholder (drizzle compiled each on every call: a few % of an idle gateway's CPU).
 */
const chainParam = sql.placeholder("chain");

/** A chain's submitted payouts to resume: no recorded error, or one that clears by itself (retryAt at or before `now`); their ids. */
export async function resumableSubmitted(db: DbOrTx, chain: string, now: number): Promise<number[]> {
  if (isPg(db)) return await pg.resumableSubmitted(pgOf(db), chain, now);
  return prepared(db, "payout:resumableSubmitted", (d) =>
    d
      .select({ id: payoutOrders.id })
      .from(payoutOrders)
      .where(and(eq(payoutOrders.chain, chainParam), SUBMITTED, or(isNull(payoutOrders.lastError), lte(payoutOrders.retryAt, sql.placeholder("now")))))
      .prepare(),
  )
    .all({ chain, now })
    .map((r) => r.id);
}

/** A chain's submitted payouts with a stored transaction and a recorded error (a broadcast reported as failed may have reached the network). */
export async function unsureSubmitted(db: DbOrTx, chain: string): Promise<PayoutOrderRow[]> {
  if (isPg(db)) return await pg.unsureSubmitted(pgOf(db), chain);
  return prepared(db, "payout:unsureSubmitted", (d) =>
    d
      .select()
      .from(payoutOrders)
      .where(and(eq(payoutOrders.chain, chainParam), SUBMITTED, isNotNull(payoutOrders.signedTx), isNotNull(payoutOrders.lastError)))
      .prepare(),
  ).all({ chain });
}

/** A chain's broadcast payouts (followed to a final block). */
export async function broadcastedOn(db: DbOrTx, chain: string): Promise<PayoutOrderRow[]> {
  if (isPg(db)) return await pg.broadcastedOn(pgOf(db), chain);
  return prepared(db, "payout:broadcastedOn", (d) => d.select().from(payoutOrders).where(and(eq(payoutOrders.chain, chainParam), BROADCASTED)).prepare()).all({ chain });
}

// The payout controls on the merchant row and the fee journal (payout/controls.ts); the merchant
// row itself is read through merchants/store.ts findMerchantById.

/** Writes the controls (with updatedAt) on the merchant row; the new row, undefined when there is no such merchant. */
export async function setMerchantControls(db: DbOrTx, merchantId: number, set: MerchantPatch): Promise<Merchant | undefined> {
  if (isPg(db)) return await pg.setMerchantControls(pgOf(db), merchantId, set);
  return db.update(merchants).set(set).where(eq(merchants.id, merchantId)).returning().get();
}

/** The fee journal's entry for (kind, refType, refId), if one was written (a move is made once per reference). */
export async function feeEntryFor(tx: DbOrTx, kind: FeeEntryRow["kind"], refType: string, refId: string): Promise<FeeEntryRow | undefined> {
  if (isPg(tx)) return await pg.feeEntryFor(pgOf(tx), kind, refType, refId);
  return tx.select().from(feeEntries).where(and(eq(feeEntries.kind, kind), eq(feeEntries.refType, refType), eq(feeEntries.refId, refId))).get();
}

/** The merchant's fee balance (undefined: no such merchant). */
export async function feeBalanceOf(tx: DbOrTx, merchantId: number): Promise<string | undefined> {
  if (isPg(tx)) return await pg.feeBalanceOf(pgOf(tx), merchantId);
  return tx.select({ b: merchants.feeBalance }).from(merchants).where(eq(merchants.id, merchantId)).get()?.b;
}

/** The fee balance's new value (updatedAt: the entry's createdAt) and its journal entry, in the caller's transaction. */
export async function recordFeeMove(tx: Tx, merchantId: number, balanceAfter: string, e: Omit<typeof feeEntries.$inferInsert, "merchantId" | "balanceAfter" | "id">): Promise<void> {
  if (isPg(tx)) return await pg.recordFeeMove(pgOf(tx), merchantId, balanceAfter, e);
  tx.update(merchants).set({ feeBalance: balanceAfter, updatedAt: e.createdAt }).where(eq(merchants.id, merchantId)).run();
  tx.insert(feeEntries).values({ merchantId, ...e, balanceAfter }).run();
}

// Refunds (payout/refunds.ts, payout/refund-funnel.ts). The pay-in order or deposit a refund is
// made on is pay-ins' (payin/refundable.ts `refundPayins`, through the RefundPayins port).

/** A new refund row. */
export async function insertRefundRow(tx: Tx, values: typeof refunds.$inferInsert): Promise<RefundRow> {
  if (isPg(tx)) return await pg.insertRefundRow(pgOf(tx), values);
  return tx.insert(refunds).values(values).returning().get();
}

/** The refund funnel's status change: `set` if the refund is still in `expected`; undefined when another writer moved it first. */
export async function updateRefundIf(tx: Tx, id: number, expected: string, set: Partial<RefundRow>): Promise<RefundRow | undefined> {
  if (isPg(tx)) return await pg.updateRefundIf(pgOf(tx), id, expected, set);
  return await updateByIdIf<RefundRow>(tx, refunds, id, expected, set);
}

/**
 * Where an order's refund callbacks go when the refund has no notifyUrl of its own: the order's
 * notifyUrl (a binding's deposit order: the binding's; an invoice's order: the invoice's), null for
 * the merchant's default. A shop plugin's order (compat) has none here: its notify_url speaks the
 * plugin's protocol, which has no refunds, so its refunds go to the merchant's default URL.
 */
export async function orderRefundCallbackUrl(tx: DbOrTx, payinOrderId: number): Promise<string | null> {
  if (isPg(tx)) return await pg.orderRefundCallbackUrl(pgOf(tx), payinOrderId);
  const o = tx.select({ notifyUrl: payinOrders.notifyUrl, compat: payinOrders.compat }).from(payinOrders).where(eq(payinOrders.id, payinOrderId)).get();
  return o && o.compat === null ? o.notifyUrl : null;
}

/** The refund's payout, once created. */
export async function linkRefundPayout(tx: Tx, id: number, payout: Pick<PayoutOrderRow, "id" | "orderNo">): Promise<RefundRow> {
  if (isPg(tx)) return await pg.linkRefundPayout(pgOf(tx), id, payout);
  return tx.update(refunds).set({ payoutOrderId: payout.id, payoutOrderNo: payout.orderNo }).where(eq(refunds.id, id)).returning().get();
}

/** Why the payer's address could not be used yet (the merchant cannot send it right now). */
export async function noteRefundError(tx: Tx, id: number, error: string, now: number): Promise<void> {
  if (isPg(tx)) return await pg.noteRefundError(pgOf(tx), id, error, now);
  tx.update(refunds).set({ lastError: error, updatedAt: now }).where(eq(refunds.id, id)).run();
}

export async function refundById(tx: DbOrTx, id: number): Promise<RefundRow | undefined> {
  if (isPg(tx)) return await pg.refundById(pgOf(tx), id);
  return tx.select().from(refunds).where(eq(refunds.id, id)).get();
}

/** The order's refund with this refundNo (the idempotent retry of a create). */
export async function refundOfOrderByNo(tx: DbOrTx, payinOrderId: number, refundNo: string): Promise<RefundRow | undefined> {
  if (isPg(tx)) return await pg.refundOfOrderByNo(pgOf(tx), payinOrderId, refundNo);
  return tx.select().from(refunds).where(and(eq(refunds.payinOrderId, payinOrderId), eq(refunds.refundNo, refundNo))).get();
}

/** Amounts of the refunds that still count (every one not failed: HOLDING) of an order or a deposit. */
export async function holdingRefundAmounts(tx: DbOrTx, of: { payinOrderId: number } | { transferId: number }): Promise<string[]> {
  if (isPg(tx)) return await pg.holdingRefundAmounts(pgOf(tx), of);
  const cond = "payinOrderId" in of ? eq(refunds.payinOrderId, of.payinOrderId) : eq(refunds.transferId, of.transferId);
  return tx
    .select({ amount: refunds.amount })
    .from(refunds)
    .where(and(cond, inArray(refunds.status, [...HOLDING])))
    .all()
    .map((r) => r.amount);
}

export async function refundsOfOrder(db: DbOrTx, payinOrderId: number): Promise<RefundRow[]> {
  if (isPg(db)) return await pg.refundsOfOrder(pgOf(db), payinOrderId);
  return db.select().from(refunds).where(eq(refunds.payinOrderId, payinOrderId)).orderBy(refunds.id).all();
}

export async function refundsOfDeposit(db: DbOrTx, transferId: number): Promise<RefundRow[]> {
  if (isPg(db)) return await pg.refundsOfDeposit(pgOf(db), transferId);
  return db.select().from(refunds).where(eq(refunds.transferId, transferId)).orderBy(refunds.id).all();
}

export async function refundByToken(db: DbOrTx, pageToken: string): Promise<RefundRow | undefined> {
  if (isPg(db)) return await pg.refundByToken(pgOf(db), pageToken);
  return db.select().from(refunds).where(and(eq(refunds.pageToken, pageToken), isNotNull(refunds.pageToken))).get();
}

export async function refundByRef(db: DbOrTx, refundRef: string): Promise<RefundRow | undefined> {
  if (isPg(db)) return await pg.refundByRef(pgOf(db), refundRef);
  return db.select().from(refunds).where(eq(refunds.refundRef, refundRef)).get();
}
