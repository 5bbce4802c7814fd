// payin/compat-side-store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
import { eq } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { compatOrders } from "../db/schema-pg";

export async function compatSideOf(db: PgQ, payinOrderId: number): Promise<typeof compatOrders.$inferSelect | undefined> {
  return await firstRow(db.select().from(compatOrders).where(eq(compatOrders.payinOrderId, payinOrderId)));
}
