// payout/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle):
// payout orders, their replacements, the limit checks' reads, the payout controls and fee journal,
// and refunds. Every status change is a compare-and-set whose RETURNING tells the loser (READ
// COMMITTED: two gateways racing one change apply it once). Amounts stay text (exact).
import { and, asc, eq, gte, inArray, isNotNull, isNull, like, lte, notInArray, or } from "drizzle-orm";
import { attemptColumns, storedAttempt, type TxAttempt } from "../chains/payout-steps";
import type { SignedTransfer } from "../chains/types";
import { firstRow, type PgQ } from "../db/engine";
import { feeEntries, ledgerEntries, merchants, payinOrders, payoutOrders, payoutTxAttempts, refunds } from "../db/schema-pg";
import type { Merchant, MerchantPatch } from "../merchants/store";
import type { RefundRow } from "./refund-views";
import { HOLDING } from "./refund-state";
import { AWAITING_BROADCAST, AWAITING_FINALITY, FAILED, PAYOUT_STATUSES, UNFINISHED } from "./state";
import type { PayoutOrderRow } from "./views";

type FeeEntryRow = typeof feeEntries.$inferSelect;

// ---- the chain steps' port (PayoutStore) ----

export async function signedUnsent(db: PgQ, fromAddressId: string): Promise<PayoutOrderRow[]> {
  return await db
    .select()
    .from(payoutOrders)
    .where(and(eq(payoutOrders.fromAddressId, fromAddressId), inArray(payoutOrders.status, [...AWAITING_BROADCAST]), isNotNull(payoutOrders.signedTx)));
}

export async function unfinishedSignedMeta(db: PgQ, chain: string, fromAddress: string): Promise<string[]> {
  const rows = await db
    .select({ meta: payoutOrders.signedMeta })
    .from(payoutOrders)
    .where(and(eq(payoutOrders.chain, chain), eq(payoutOrders.fromAddress, fromAddress), inArray(payoutOrders.status, [...UNFINISHED]), isNotNull(payoutOrders.signedMeta)));
  return rows.map((r) => r.meta!);
}

export async function signedMeta(db: PgQ, chain: string, fromAddress: string): Promise<string[]> {
  const rows = await db
    .select({ meta: payoutOrders.signedMeta })
    .from(payoutOrders)
    .where(and(eq(payoutOrders.chain, chain), eq(payoutOrders.fromAddress, fromAddress), isNotNull(payoutOrders.signedMeta)));
  return rows.map((r) => r.meta!);
}

export async function finishedPayouts(db: PgQ, ids: readonly number[]): Promise<PayoutOrderRow[]> {
  const out: PayoutOrderRow[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    out.push(...(await db.select().from(payoutOrders).where(and(inArray(payoutOrders.id, ids.slice(i, i + 500)), notInArray(payoutOrders.status, [...UNFINISHED])))));
  }
  return out;
}

export async function payoutsByIds(db: PgQ, ids: number[]): Promise<Map<number, PayoutOrderRow>> {
  const out = new Map<number, PayoutOrderRow>();
  for (let i = 0; i < ids.length; i += 500) {
    for (const o of await db.select().from(payoutOrders).where(inArray(payoutOrders.id, ids.slice(i, i + 500)))) out.set(o.id, o);
  }
  return out;
}

// ---- the limit checks (payout_list_merchant serves both; PostgreSQL's planner picks it) ----

const NOT_FAILED = PAYOUT_STATUSES.filter((s) => !FAILED.includes(s));

export async function notFailedSince(tx: PgQ, merchantId: number, fromId: number, since: number): Promise<{ amount: string; decimals: number }[]> {
  return await tx
    .select({ amount: payoutOrders.amount, decimals: payoutOrders.decimals })
    .from(payoutOrders)
    .where(and(eq(payoutOrders.merchantId, merchantId), inArray(payoutOrders.status, NOT_FAILED), gte(payoutOrders.id, fromId), gte(payoutOrders.createdAt, since)));
}

export async function unfinishedFees(tx: PgQ, merchantId: number): Promise<{ fee: string; decimals: number }[]> {
  return await tx
    .select({ fee: payoutOrders.fee, decimals: payoutOrders.decimals })
    .from(payoutOrders)
    .where(and(eq(payoutOrders.merchantId, merchantId), inArray(payoutOrders.status, [...UNFINISHED])));
}

// ---- replacements ----

export async function replacements(db: PgQ, orderId: number): Promise<TxAttempt[]> {
  const rows = await db.select().from(payoutTxAttempts).where(eq(payoutTxAttempts.payoutOrderId, orderId)).orderBy(asc(payoutTxAttempts.id));
  return rows.map(storedAttempt);
}

export async function addReplacement(tx: PgQ, o: { id: number; chain: string }, signed: SignedTransfer, now: number): Promise<void> {
  await tx.insert(payoutTxAttempts).values({ payoutOrderId: o.id, ...attemptColumns(o.chain, signed, now) });
}

// ---- payout orders ----

export async function payoutByMerchantOrderNo(tx: PgQ, merchantId: number, merchantOrderNo: string): Promise<PayoutOrderRow | undefined> {
  return await firstRow(tx.select().from(payoutOrders).where(and(eq(payoutOrders.merchantId, merchantId), eq(payoutOrders.merchantOrderNo, merchantOrderNo))));
}

export async function payoutByOrderNo(db: PgQ, merchantId: number, orderNo: string): Promise<PayoutOrderRow | undefined> {
  return await firstRow(db.select().from(payoutOrders).where(and(eq(payoutOrders.orderNo, orderNo), eq(payoutOrders.merchantId, merchantId))));
}

export async function payoutRow(db: PgQ, id: number): Promise<PayoutOrderRow | undefined> {
  return await firstRow(db.select().from(payoutOrders).where(eq(payoutOrders.id, id)));
}

export async function lockMerchantPayouts(tx: PgQ, merchantId: number): Promise<void> {
  await tx.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, merchantId)).for("update");
}

export async function insertPayoutRow(tx: PgQ, values: typeof payoutOrders.$inferInsert): Promise<PayoutOrderRow> {
  return (await firstRow(tx.insert(payoutOrders).values(values).returning()))!;
}

export async function updatePayout(tx: PgQ, id: number, set: Partial<PayoutOrderRow>): Promise<PayoutOrderRow> {
  return (await firstRow(tx.update(payoutOrders).set(set).where(eq(payoutOrders.id, id)).returning()))!;
}

export async function updatePayoutIf(tx: PgQ, id: number, expected: string, set: Partial<PayoutOrderRow>): Promise<PayoutOrderRow | undefined> {
  return await firstRow(tx.update(payoutOrders).set(set).where(and(eq(payoutOrders.id, id), eq(payoutOrders.status, expected as PayoutOrderRow["status"]))).returning());
}

export async function addPayoutLedger(tx: PgQ, o: Pick<PayoutOrderRow, "fromAddressId" | "chain" | "token" | "amount" | "orderNo">, now: number): Promise<void> {
  await tx
    .insert(ledgerEntries)
    .values({ addressId: o.fromAddressId, chain: o.chain, token: o.token, kind: "payout", amount: (-BigInt(o.amount)).toString(), refType: "payout_order", refId: o.orderNo, createdAt: now })
    .onConflictDoNothing();
}

export async function insertStandIn(db: PgQ, values: typeof payoutOrders.$inferInsert): Promise<number> {
  return (await firstRow(db.insert(payoutOrders).values(values).returning({ id: payoutOrders.id })))!.id;
}

export async function updateStandIn(db: PgQ, id: number, set: Partial<PayoutOrderRow>): Promise<void> {
  await db.update(payoutOrders).set(set).where(eq(payoutOrders.id, id));
}

export async function releaseHeldPayouts(tx: PgQ, chain: string, address: string, errorPrefix: string, now: number): Promise<string[]> {
  const rows = await tx
    .update(payoutOrders)
    .set({ lastError: null, retryAt: null, updatedAt: now })
    .where(and(eq(payoutOrders.chain, chain), eq(payoutOrders.fromAddress, address), inArray(payoutOrders.status, [...AWAITING_BROADCAST]), like(payoutOrders.lastError, `${errorPrefix}%`)))
    .returning({ orderNo: payoutOrders.orderNo });
  return rows.map((r) => r.orderNo);
}

export async function payoutWithOrderNo(db: PgQ, orderNo: string): Promise<PayoutOrderRow | undefined> {
  return await firstRow(db.select().from(payoutOrders).where(eq(payoutOrders.orderNo, orderNo)));
}

// ---- the executor's open payouts (the partial indexes payout_submitted / payout_broadcasted) ----

export async function resumableSubmitted(db: PgQ, chain: string, now: number): Promise<number[]> {
  const rows = await db
    .select({ id: payoutOrders.id })
    .from(payoutOrders)
    .where(and(eq(payoutOrders.chain, chain), inArray(payoutOrders.status, [...AWAITING_BROADCAST]), or(isNull(payoutOrders.lastError), lte(payoutOrders.retryAt, now))));
  return rows.map((r) => r.id);
}

export async function unsureSubmitted(db: PgQ, chain: string): Promise<PayoutOrderRow[]> {
  return await db
    .select()
    .from(payoutOrders)
    .where(and(eq(payoutOrders.chain, chain), inArray(payoutOrders.status, [...AWAITING_BROADCAST]), isNotNull(payoutOrders.signedTx), isNotNull(payoutOrders.lastError)));
}

export async function broadcastedOn(db: PgQ, chain: string): Promise<PayoutOrderRow[]> {
  return await db.select().from(payoutOrders).where(and(eq(payoutOrders.chain, chain), inArray(payoutOrders.status, [...AWAITING_FINALITY])));
}

// ---- the payout controls and the fee journal ----

export async function setMerchantControls(db: PgQ, merchantId: number, set: MerchantPatch): Promise<Merchant | undefined> {
  return await firstRow(db.update(merchants).set(set).where(eq(merchants.id, merchantId)).returning());
}

export async function feeEntryFor(tx: PgQ, kind: FeeEntryRow["kind"], refType: string, refId: string): Promise<FeeEntryRow | undefined> {
  return await firstRow(tx.select().from(feeEntries).where(and(eq(feeEntries.kind, kind), eq(feeEntries.refType, refType), eq(feeEntries.refId, refId))));
}

export async function feeBalanceOf(tx: PgQ, merchantId: number): Promise<string | undefined> {
  return (await firstRow(tx.select({ b: merchants.feeBalance }).from(merchants).where(eq(merchants.id, merchantId))))?.b;
}

export async function recordFeeMove(tx: PgQ, merchantId: number, balanceAfter: string, e: Omit<typeof feeEntries.$inferInsert, "merchantId" | "balanceAfter" | "id">): Promise<void> {
  await tx.update(merchants).set({ feeBalance: balanceAfter, updatedAt: e.createdAt }).where(eq(merchants.id, merchantId));
  await tx.insert(feeEntries).values({ merchantId, ...e, balanceAfter });
}

// ---- refunds ----

export async function insertRefundRow(tx: PgQ, values: typeof refunds.$inferInsert): Promise<RefundRow> {
  return (await firstRow(tx.insert(refunds).values(values).returning()))!;
}

export async function updateRefundIf(tx: PgQ, id: number, expected: string, set: Partial<RefundRow>): Promise<RefundRow | undefined> {
  return await firstRow(tx.update(refunds).set(set).where(and(eq(refunds.id, id), eq(refunds.status, expected as RefundRow["status"]))).returning());
}

export async function orderRefundCallbackUrl(tx: PgQ, payinOrderId: number): Promise<string | null> {
  const o = await firstRow(tx.select({ notifyUrl: payinOrders.notifyUrl, compat: payinOrders.compat }).from(payinOrders).where(eq(payinOrders.id, payinOrderId)));
  return o && o.compat === null ? o.notifyUrl : null;
}

export async function linkRefundPayout(tx: PgQ, id: number, payout: Pick<PayoutOrderRow, "id" | "orderNo">): Promise<RefundRow> {
  return (await firstRow(tx.update(refunds).set({ payoutOrderId: payout.id, payoutOrderNo: payout.orderNo }).where(eq(refunds.id, id)).returning()))!;
}

export async function noteRefundError(tx: PgQ, id: number, error: string, now: number): Promise<void> {
  await tx.update(refunds).set({ lastError: error, updatedAt: now }).where(eq(refunds.id, id));
}

export async function refundById(tx: PgQ, id: number): Promise<RefundRow | undefined> {
  return await firstRow(tx.select().from(refunds).where(eq(refunds.id, id)));
}

export async function refundOfOrderByNo(tx: PgQ, payinOrderId: number, refundNo: string): Promise<RefundRow | undefined> {
  return await firstRow(tx.select().from(refunds).where(and(eq(refunds.payinOrderId, payinOrderId), eq(refunds.refundNo, refundNo))));
}

export async function holdingRefundAmounts(tx: PgQ, of: { payinOrderId: number } | { transferId: number }): Promise<string[]> {
  const cond = "payinOrderId" in of ? eq(refunds.payinOrderId, of.payinOrderId) : eq(refunds.transferId, of.transferId);
  const rows = await tx
    .select({ amount: refunds.amount })
    .from(refunds)
    .where(and(cond, inArray(refunds.status, [...HOLDING])));
  return rows.map((r) => r.amount);
}

export async function refundsOfOrder(db: PgQ, payinOrderId: number): Promise<RefundRow[]> {
  return await db.select().from(refunds).where(eq(refunds.payinOrderId, payinOrderId)).orderBy(refunds.id);
}

export async function refundsOfDeposit(db: PgQ, transferId: number): Promise<RefundRow[]> {
  return await db.select().from(refunds).where(eq(refunds.transferId, transferId)).orderBy(refunds.id);
}

export async function refundByToken(db: PgQ, pageToken: string): Promise<RefundRow | undefined> {
  return await firstRow(db.select().from(refunds).where(and(eq(refunds.pageToken, pageToken), isNotNull(refunds.pageToken))));
}

export async function refundByRef(db: PgQ, refundRef: string): Promise<RefundRow | undefined> {
  return await firstRow(db.select().from(refunds).where(eq(refunds.refundRef, refundRef)));
}
