// orders/id-at.ts on PostgreSQL (db/engine.ts: the seek dispatches here for a PostgreSQL handle):
// the same one seek on the orderNo index (payin_orders_order_no_unique / payout_orders_order_no_unique).
import { sql } from "drizzle-orm";
import type { PgQ } from "../db/engine";
import type { OrderTable } from "./id-at";

/** The id of the first order whose orderNo is >= `floor` (`from`), or of the last one below it (`before`). */
export async function seekOrderId(db: PgQ, table: OrderTable, dir: "from" | "before", floor: string): Promise<number | undefined> {
  const t = sql.identifier(table);
  const q =
    dir === "from"
      ? sql`SELECT id FROM ${t} WHERE order_no >= ${floor} ORDER BY order_no LIMIT 1`
      : sql`SELECT id FROM ${t} WHERE order_no < ${floor} ORDER BY order_no DESC LIMIT 1`;
  const rows = (await db.execute(q)) as unknown as { id: number | string | bigint }[];
  return rows[0] === undefined ? undefined : Number(rows[0].id);
}
