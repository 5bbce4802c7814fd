// compat/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
import { and, count, desc, eq, gte, lt, type SQL } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { compatOrders, payinOrders } from "../db/schema-pg";
import { insertOrder } from "../payin/orders-store.pg";
import type { PayinOrderRow } from "../payin/views";
import type { CompatOrderRow } from "./store";

export async function insertCompatOrder(tx: PgQ, payin: typeof payinOrders.$inferInsert, side: Omit<typeof compatOrders.$inferInsert, "payinOrderId">): Promise<{ order: PayinOrderRow; compat: CompatOrderRow }> {
  const order = await insertOrder(tx, payin);
  const compat = (await firstRow(tx.insert(compatOrders).values({ payinOrderId: order.id, ...side }).returning()))!;
  return { order, compat };
}

export async function compatOrdersPage(db: PgQ, merchantId: number, protocol: string, limit: number, offset: number): Promise<{ order: PayinOrderRow; compat: CompatOrderRow }[]> {
  return await db
    .select({ order: payinOrders, compat: compatOrders })
    .from(compatOrders)
    .innerJoin(payinOrders, eq(payinOrders.id, compatOrders.payinOrderId))
    .where(and(eq(payinOrders.merchantId, merchantId), eq(compatOrders.protocol, protocol)))
    .orderBy(desc(payinOrders.id))
    .limit(limit)
    .offset(offset);
}

export async function compatOrderCounts(db: PgQ, merchantId: number, protocol: string, windows: [number, number][]): Promise<{ total: number; within: number[] }> {
  const base = and(eq(payinOrders.merchantId, merchantId), eq(compatOrders.protocol, protocol));
  const n = async (extra?: SQL) =>
    (await firstRow(db.select({ n: count() }).from(compatOrders).innerJoin(payinOrders, eq(payinOrders.id, compatOrders.payinOrderId)).where(extra ? and(base, extra) : base)))!.n;
  return { total: await n(), within: await Promise.all(windows.map(([from, to]) => n(and(gte(compatOrders.createdAt, from), lt(compatOrders.createdAt, to))!))) };
}
