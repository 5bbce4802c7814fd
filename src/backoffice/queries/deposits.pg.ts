// queries/deposits.ts on PostgreSQL: one deposit with its merchant and order, the orders it could
// be attached to, the deny list (same shapes as the SQLite side).
import { and, desc, eq, inArray, or } from "drizzle-orm";
import { firstRow, type PgQ } from "../../db/engine";
import { addresses, denyList, merchants, payinOrders, transfers } from "../../db/schema-pg";
import type { TransferRow } from "./deposits";

export async function depositDetailRow(db: PgQ, id: number) {
  return await firstRow(
    db
      .select({ t: transfers, merchantId: addresses.merchantId, merchantUid: merchants.uid, orderNo: payinOrders.orderNo })
      .from(transfers)
      .innerJoin(addresses, eq(addresses.id, transfers.addressId))
      .leftJoin(merchants, eq(merchants.id, addresses.merchantId))
      .leftJoin(payinOrders, eq(payinOrders.id, transfers.payinOrderId))
      .where(eq(transfers.id, id)),
  );
}

export async function attachCandidates(db: PgQ, t: TransferRow, q: string) {
  if (!t.addressId) return [];
  const term = q.trim();
  return await db
    .select()
    .from(payinOrders)
    .where(
      and(
        eq(payinOrders.addressId, t.addressId),
        eq(payinOrders.token, t.token),
        inArray(payinOrders.status, ["waiting_payment", "expired"]),
        term ? or(eq(payinOrders.orderNo, term), eq(payinOrders.merchantOrderNo, term)) : undefined,
      ),
    )
    .orderBy(desc(payinOrders.id))
    .limit(20);
}

export async function deniedSenders(db: PgQ) {
  return await db.select().from(denyList).orderBy(desc(denyList.createdAt));
}
