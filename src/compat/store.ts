// Compatibility orders' storage module: `compat_orders`, and the pay-in row a compatibility order
// is (docs/architecture.md "Data access"). `compat/service.ts` calls these.
import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "../db/client";
import { compatOrders, payinOrders } from "../db/schema";
import type { PayinOrderRow } from "../payin/views";

export type CompatOrderRow = typeof compatOrders.$inferSelect;

/** A merchant's pay-in by its merchantOrderNo (the shop's order id). */
export function payinByMerchantOrderNo(tx: DbOrTx, merchantId: number, orderId: string): PayinOrderRow | undefined {
  return tx.select().from(payinOrders).where(and(eq(payinOrders.merchantId, merchantId), eq(payinOrders.merchantOrderNo, orderId))).get();
}

/** A merchant's pay-in by its orderNo (the protocols' trade id). */
export function payinByOrderNo(db: DbOrTx, merchantId: number, orderNo: string): PayinOrderRow | undefined {
  return db.select().from(payinOrders).where(and(eq(payinOrders.orderNo, orderNo), eq(payinOrders.merchantId, merchantId))).get();
}

export function payinByCheckoutToken(db: DbOrTx, token: string): PayinOrderRow | undefined {
  return db.select().from(payinOrders).where(eq(payinOrders.checkoutToken, token)).get();
}

/** The shop side of a pay-in, if a plugin created it. */
export function compatSideOf(db: DbOrTx, payinOrderId: number): CompatOrderRow | undefined {
  return db.select().from(compatOrders).where(eq(compatOrders.payinOrderId, payinOrderId)).get();
}

/** The pay-in row and its shop side, written in the caller's transaction. */
export function insertCompatOrder(tx: DbOrTx, payin: typeof payinOrders.$inferInsert, side: Omit<typeof compatOrders.$inferInsert, "payinOrderId">): { order: PayinOrderRow; compat: CompatOrderRow } {
  const order = tx.insert(payinOrders).values(payin).returning().get();
  const compat = tx
    .insert(compatOrders)
    .values({ payinOrderId: order.id, ...side })
    .returning()
    .get();
  return { order, compat };
}
