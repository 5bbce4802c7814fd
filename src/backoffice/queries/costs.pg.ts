// queries/costs.ts on PostgreSQL: the rows of transfer_costs the cost views sum (sums are made in
// costs.ts, exact in bigints, on both engines).
import { and, asc, desc, eq, gte, inArray, isNotNull } from "drizzle-orm";
import { firstRow, type PgQ } from "../../db/engine";
import { collectionLegs, payoutOrders, refunds, transferCosts } from "../../db/schema-pg";
import type { CostRow } from "./costs";

export async function costsOfPayout(db: PgQ, payoutOrderId: number): Promise<CostRow[]> {
  return await db.select().from(transferCosts).where(eq(transferCosts.payoutOrderId, payoutOrderId)).orderBy(transferCosts.id);
}

export async function refundPayoutIds(db: PgQ, payinOrderId: number): Promise<number[]> {
  return (await db.select({ id: refunds.payoutOrderId }).from(refunds).where(and(eq(refunds.payinOrderId, payinOrderId), isNotNull(refunds.payoutOrderId)))).map((r) => r.id!);
}

export async function sweepLegPayoutId(db: PgQ, addressId: string, since: number): Promise<number | undefined> {
  const leg = await firstRow(
    db
      .select({ id: payoutOrders.id })
      .from(collectionLegs)
      .innerJoin(payoutOrders, eq(payoutOrders.id, collectionLegs.payoutOrderId))
      .where(and(eq(collectionLegs.addressId, addressId), gte(payoutOrders.createdAt, since)))
      .orderBy(asc(collectionLegs.payoutOrderId))
      .limit(1),
  );
  return leg?.id;
}

export async function costsOfPayouts(db: PgQ, payoutOrderIds: number[]): Promise<CostRow[]> {
  return await db.select().from(transferCosts).where(inArray(transferCosts.payoutOrderId, payoutOrderIds)).orderBy(transferCosts.id);
}

export async function dayCostRows(db: PgQ, o: { merchantId?: number; sinceDay: string }) {
  const cond = [gte(transferCosts.day, o.sinceDay)];
  const cols = { day: transferCosts.day, chain: transferCosts.chain, nativeBurned: transferCosts.nativeBurned, energyDelegated: transferCosts.energyDelegated, energyBurned: transferCosts.energyBurned, bandwidth: transferCosts.bandwidth };
  if (o.merchantId === undefined) return await db.select(cols).from(transferCosts).where(and(...cond)).orderBy(desc(transferCosts.day));
  return await db
    .select(cols)
    .from(transferCosts)
    .innerJoin(payoutOrders, eq(payoutOrders.id, transferCosts.payoutOrderId))
    .where(and(...cond, eq(payoutOrders.merchantId, o.merchantId)))
    .orderBy(desc(transferCosts.day));
}
