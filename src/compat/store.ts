// Compatibility orders' storage module: `compat_orders`, and the pay-in row a compatibility order
// is (through payin/store.ts) (docs/architecture.md "Data access"). `compat/service.ts` calls these.
// Its reads (the pay-in behind a checkout token, the shop side of a pay-in, by orderNo /
// merchantOrderNo) are payin/store.ts's, which the service imports from there: the pay-in funnel
// and the hosted page run them too.
import type { Tx } from "../db/client";
import { compatOrders, type payinOrders } from "../db/schema";
import type { PayinOrderRow } from "../payin/views";
import { insertOrder } from "../payin/store";

export type CompatOrderRow = typeof compatOrders.$inferSelect;

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
