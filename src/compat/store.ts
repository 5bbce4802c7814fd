// Compatibility orders' storage module: `compat_orders`, and the pay-in row a compatibility order
// is (through payin/orders-store.ts) (docs/architecture.md "Data access"). `compat/service.ts` calls
// these. Its reads (the pay-in behind a checkout token, by orderNo / merchantOrderNo: payin/orders-store.ts;
// the shop side of a pay-in: payin/compat-side-store.ts) are pay-ins', which the service imports from
// there: the pay-in funnel and the hosted page run them too.
import { and, count, desc, eq, gte, lt } from "drizzle-orm";
import type { DbOrTx, Tx } from "../db/client";
import { compatOrders, payinOrders } from "../db/schema";
import type { PayinOrderRow } from "../payin/views";
import { insertOrder } from "../payin/orders-store";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

export type CompatOrderRow = typeof compatOrders.$inferSelect;

/** The pay-in row (payin/orders-store.ts `insertOrder`) and its shop side, written in the caller's transaction. */
export async function insertCompatOrder(tx: Tx, payin: typeof payinOrders.$inferInsert, side: Omit<typeof compatOrders.$inferInsert, "payinOrderId">): Promise<{ order: PayinOrderRow; compat: CompatOrderRow }> {
  if (isPg(tx)) return await pg.insertCompatOrder(pgOf(tx), payin, side);
  const order = await insertOrder(tx, payin);
  const compat = tx
    .insert(compatOrders)
    .values({ payinOrderId: order.id, ...side })
    .returning()
    .get();
  return { order, compat };
}

/** A merchant's compatibility orders of one protocol, newest first (EPay's api.php act=orders). */
export async function compatOrdersPage(db: DbOrTx, merchantId: number, protocol: string, limit: number, offset: number): Promise<{ order: PayinOrderRow; compat: CompatOrderRow }[]> {
  if (isPg(db)) return await pg.compatOrdersPage(pgOf(db), merchantId, protocol, limit, offset);
  return db
    .select({ order: payinOrders, compat: compatOrders })
    .from(compatOrders)
    .innerJoin(payinOrders, eq(payinOrders.id, compatOrders.payinOrderId))
    .where(and(eq(payinOrders.merchantId, merchantId), eq(compatOrders.protocol, protocol)))
    .orderBy(desc(payinOrders.id))
    .limit(limit)
    .offset(offset)
    .all();
}

/** How many compatibility orders of one protocol a merchant has, in all and created in [from, to) (EPay's act=query). */
export async function compatOrderCounts(db: DbOrTx, merchantId: number, protocol: string, windows: [number, number][]): Promise<{ total: number; within: number[] }> {
  if (isPg(db)) return await pg.compatOrderCounts(pgOf(db), merchantId, protocol, windows);
  const base = and(eq(payinOrders.merchantId, merchantId), eq(compatOrders.protocol, protocol));
  const n = (extra?: ReturnType<typeof and>) =>
    db.select({ n: count() }).from(compatOrders).innerJoin(payinOrders, eq(payinOrders.id, compatOrders.payinOrderId)).where(extra ? and(base, extra) : base).get()!.n;
  return { total: n(), within: windows.map(([from, to]) => n(and(gte(compatOrders.createdAt, from), lt(compatOrders.createdAt, to)))) };
}
