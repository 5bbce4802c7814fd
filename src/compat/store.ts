// Compatibility orders' storage module: `compat_orders`, and the pay-in row a compatibility order
// is (through payin/store.ts) (docs/architecture.md "Data access"). `compat/service.ts` calls these.
import { eq } from "drizzle-orm";
import type { DbOrTx, Tx } from "../db/client";
import { compatOrders, payinOrders } from "../db/schema";
import type { PayinOrderRow } from "../payin/views";
import { insertOrder } from "../payin/store";

export type CompatOrderRow = typeof compatOrders.$inferSelect;

/** The pay-in behind a checkout link (its other reads are payin/store.ts `orderByOrderNo`, `orderByMerchantOrderNo`). */
export function payinByCheckoutToken(db: DbOrTx, token: string): PayinOrderRow | undefined {
  return db.select().from(payinOrders).where(eq(payinOrders.checkoutToken, token)).get();
}

/** The shop side of a pay-in, if a plugin created it. */
export function compatSideOf(db: DbOrTx, payinOrderId: number): CompatOrderRow | undefined {
  return db.select().from(compatOrders).where(eq(compatOrders.payinOrderId, payinOrderId)).get();
}

/** The pay-in row (payin/store.ts `insertOrder`) and its shop side, written in the caller's transaction. */
export function insertCompatOrder(tx: Tx, payin: typeof payinOrders.$inferInsert, side: Omit<typeof compatOrders.$inferInsert, "payinOrderId">): { order: PayinOrderRow; compat: CompatOrderRow } {
  const order = insertOrder(tx, payin);
  const compat = tx
    .insert(compatOrders)
    .values({ payinOrderId: order.id, ...side })
    .returning()
    .get();
  return { order, compat };
}
