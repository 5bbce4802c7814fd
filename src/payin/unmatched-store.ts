// Unmatched deposits (transfers with an unmatched reason): the operator's page with the merchant
// whose address they reached, their resolutions, a cancelled order's payment handed over
// (payin/unmatched.ts, payin/operator.ts, refunds through payin/refundable.ts refundPayins).
import { and, count, desc, eq, isNotNull, isNull, ne, type SQL } from "drizzle-orm";
import type { DbOrTx, Tx } from "../db/client";
import { addresses, merchants, transfers } from "../db/schema";
import type { TransferRow } from "../watcher/transfers-store";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./unmatched-store.pg")>(() => require("./unmatched-store.pg"));

/** A cancelled frozen order's payment becomes an unmatched deposit (reason order_cancelled), if it is still the order's. */
export async function unlinkCancelledPayment(tx: Tx, transferId: number, orderId: number): Promise<void> {
  if (isPg(tx)) return await pg.unlinkCancelledPayment(pgOf(tx), transferId, orderId);
  tx.update(transfers)
    .set({ disposition: "unmatched", payinOrderId: null, unmatchedReason: "order_cancelled" })
    .where(and(eq(transfers.id, transferId), eq(transfers.payinOrderId, orderId)))
    .run();
}

/** Writes `set` on the transfer and returns the new row (an unmatched deposit's resolution). */
export async function updateTransfer(tx: Tx, id: number, set: Partial<TransferRow>): Promise<TransferRow> {
  if (isPg(tx)) return await pg.updateTransfer(pgOf(tx), id, set);
  return tx.update(transfers).set(set).where(eq(transfers.id, id)).returning().get();
}

/** Another deposit already recorded as refunded by this payout, if any. */
export async function refundedByPayout(tx: DbOrTx, payoutOrderNo: string, exceptId: number): Promise<{ id: number } | undefined> {
  if (isPg(tx)) return await pg.refundedByPayout(pgOf(tx), payoutOrderNo, exceptId);
  return tx
    .select({ id: transfers.id })
    .from(transfers)
    .where(and(eq(transfers.resolution, "refunded"), eq(transfers.resolutionRef, payoutOrderNo), ne(transfers.id, exceptId)))
    .get();
}

export interface UnmatchedQuery {
  state: "open" | "resolved" | "all";
  chain?: string;
  merchantId?: number;
  limit: number;
  offset: number;
}

/** A page of unmatched deposits (newest first) with the uid of the merchant whose address they reached, and the count of all. */
export async function unmatchedPage(db: DbOrTx, q: UnmatchedQuery): Promise<{ rows: { t: TransferRow; uid: string | null }[]; total: number }> {
  if (isPg(db)) return await pg.unmatchedPage(pgOf(db), q);
  const where: SQL[] = [isNotNull(transfers.unmatchedReason)];
  if (q.state === "open") where.push(isNull(transfers.resolution));
  if (q.state === "resolved") where.push(isNotNull(transfers.resolution));
  if (q.chain) where.push(eq(transfers.chain, q.chain));
  if (q.merchantId !== undefined) where.push(eq(addresses.merchantId, q.merchantId));
  const cond = and(...where);
  const rows = db
    .select({ t: transfers, uid: merchants.uid })
    .from(transfers)
    .leftJoin(addresses, eq(addresses.id, transfers.addressId))
    .leftJoin(merchants, eq(merchants.id, addresses.merchantId))
    .where(cond)
    .orderBy(desc(transfers.seenAt), desc(transfers.id))
    .limit(q.limit)
    .offset(q.offset)
    .all();
  const total = db.select({ n: count() }).from(transfers).leftJoin(addresses, eq(addresses.id, transfers.addressId)).where(cond).get()!.n;
  return { rows, total };
}

/** A transfer with the merchant (id, uid) whose address it reached. */
export async function transferWithOwner(db: DbOrTx, id: number): Promise<{ t: TransferRow; merchantId: number | null; uid: string | null } | undefined> {
  if (isPg(db)) return await pg.transferWithOwner(pgOf(db), id);
  return db
    .select({ t: transfers, merchantId: addresses.merchantId, uid: merchants.uid })
    .from(transfers)
    .leftJoin(addresses, eq(addresses.id, transfers.addressId))
    .leftJoin(merchants, eq(merchants.id, addresses.merchantId))
    .where(eq(transfers.id, id))
    .get();
}

/** A deposit refunded by a refund (payout/refunds.ts, through payin/refundable.ts refundPayins): its resolution. */
export async function resolveDepositRefunded(tx: Tx, transferId: number, refundRef: string, now: number): Promise<void> {
  if (isPg(tx)) return await pg.resolveDepositRefunded(pgOf(tx), transferId, refundRef, now);
  tx.update(transfers).set({ resolution: "refunded", resolutionRef: refundRef, resolvedAt: now }).where(eq(transfers.id, transferId)).run();
}
