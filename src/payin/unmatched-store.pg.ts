// payin/unmatched-store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
import { and, count, desc, eq, isNotNull, isNull, ne, type SQL } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { addresses, merchants, transfers } from "../db/schema-pg";
import type { TransferRow } from "../watcher/transfers-store";
import type { UnmatchedQuery } from "./unmatched-store";

export async function unlinkCancelledPayment(tx: PgQ, transferId: number, orderId: number): Promise<void> {
  await tx
    .update(transfers)
    .set({ disposition: "unmatched", payinOrderId: null, unmatchedReason: "order_cancelled" })
    .where(and(eq(transfers.id, transferId), eq(transfers.payinOrderId, orderId)));
}

export async function updateTransfer(tx: PgQ, id: number, set: Partial<TransferRow>): Promise<TransferRow> {
  return (await firstRow(tx.update(transfers).set(set).where(eq(transfers.id, id)).returning()))!;
}

export async function refundedByPayout(tx: PgQ, payoutOrderNo: string, exceptId: number): Promise<{ id: number } | undefined> {
  return await firstRow(
    tx
      .select({ id: transfers.id })
      .from(transfers)
      .where(and(eq(transfers.resolution, "refunded"), eq(transfers.resolutionRef, payoutOrderNo), ne(transfers.id, exceptId)))
      .limit(1),
  );
}

export async function unmatchedPage(db: PgQ, q: UnmatchedQuery): Promise<{ rows: { t: TransferRow; uid: string | null }[]; total: number }> {
  const where: SQL[] = [isNotNull(transfers.unmatchedReason)];
  if (q.state === "open") where.push(isNull(transfers.resolution));
  if (q.state === "resolved") where.push(isNotNull(transfers.resolution));
  if (q.chain) where.push(eq(transfers.chain, q.chain));
  if (q.merchantId !== undefined) where.push(eq(addresses.merchantId, q.merchantId));
  const cond = and(...where);
  const rows = await db
    .select({ t: transfers, uid: merchants.uid })
    .from(transfers)
    .leftJoin(addresses, eq(addresses.id, transfers.addressId))
    .leftJoin(merchants, eq(merchants.id, addresses.merchantId))
    .where(cond)
    .orderBy(desc(transfers.seenAt), desc(transfers.id))
    .limit(q.limit)
    .offset(q.offset);
  const total = (await firstRow(db.select({ n: count() }).from(transfers).leftJoin(addresses, eq(addresses.id, transfers.addressId)).where(cond)))!.n;
  return { rows, total };
}

export async function transferWithOwner(db: PgQ, id: number): Promise<{ t: TransferRow; merchantId: number | null; uid: string | null } | undefined> {
  return await firstRow(
    db
      .select({ t: transfers, merchantId: addresses.merchantId, uid: merchants.uid })
      .from(transfers)
      .leftJoin(addresses, eq(addresses.id, transfers.addressId))
      .leftJoin(merchants, eq(merchants.id, addresses.merchantId))
      .where(eq(transfers.id, id)),
  );
}

export async function resolveDepositRefunded(tx: PgQ, transferId: number, refundRef: string, now: number): Promise<void> {
  await tx.update(transfers).set({ resolution: "refunded", resolutionRef: refundRef, resolvedAt: now }).where(eq(transfers.id, transferId));
}
