// A pay-in's shop side (compat_orders), read by the pay-in funnel's compat callback, the order page
// and compat/service.ts: compat ranks above pay-ins, so its reads of pay-ins' rows live here.
import { eq } from "drizzle-orm";
import type { DbOrTx } from "../db/client";
import { compatOrders } from "../db/schema";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./compat-side-store.pg")>(() => require("./compat-side-store.pg"));

/** The shop side of a pay-in, if a plugin created it (compat_orders; the funnel's compat callback and compat/store.ts read it here). */
export async function compatSideOf(db: DbOrTx, payinOrderId: number): Promise<typeof compatOrders.$inferSelect | undefined> {
  if (isPg(db)) return await pg.compatSideOf(pgOf(db), payinOrderId);
  return db.select().from(compatOrders).where(eq(compatOrders.payinOrderId, payinOrderId)).get();
}
