// Orders' ids and orderNos both follow creation time (orderNos start with it), so a moment
// becomes an id by one seek on the orderNo index: date filters and "today's payouts" read
// an id range of an index whose entries end in the rowid, never a created_at range that
// would need an index of its own (issue 23). ID_MARGIN_MS covers orders whose id and orderNo
// disagree by a few moments (requests committed in another order than they read the clock);
// a created_at condition on the rows keeps the result exact.
import type { DbOrTx } from "../db/client";
import { prepared } from "../db/client";
import { orderNoFloor } from "../lib/ids";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./id-at.pg")>(() => require("./id-at.pg"));

export const ID_MARGIN_MS = 10 * 60_000;

const PREFIX = { payin_orders: "PI", payout_orders: "PO" } as const;
export type OrderTable = keyof typeof PREFIX;

export const FIRST_ORDER_FROM = (table: OrderTable) => `SELECT id FROM ${table} WHERE order_no >= ? ORDER BY order_no LIMIT 1`;
export const LAST_ORDER_BEFORE = (table: OrderTable) => `SELECT id FROM ${table} WHERE order_no < ? ORDER BY order_no DESC LIMIT 1`;

async function seek(db: DbOrTx, table: OrderTable, sql: (t: OrderTable) => string, ms: number): Promise<number | undefined> {
  if (isPg(db)) return await pg.seekOrderId(pgOf(db), table, sql === FIRST_ORDER_FROM ? "from" : "before", orderNoFloor(PREFIX[table], ms));
  return prepared(db, `orderIdAt:${sql === FIRST_ORDER_FROM ? "from" : "before"}:${table}`, (d) => d.$client.prepare<{ id: number }, [string]>(sql(table))).get(
    orderNoFloor(PREFIX[table], ms),
  )?.id;
}

/**
 * The lowest id an order made at `ms` or later can have: one past the last order made more than
 * the margin before (0 when there is none). Every order made at `ms` or later has an id >= it.
 */
export async function orderIdFloor(db: DbOrTx, table: OrderTable, ms: number): Promise<number> {
  const before = await seek(db, table, LAST_ORDER_BEFORE, ms - ID_MARGIN_MS);
  return before === undefined ? 0 : before + 1;
}

/** An id above every order made before `ms`: the first order made the margin after (undefined: none yet, no bound). */
export async function orderIdCeiling(db: DbOrTx, table: OrderTable, ms: number): Promise<number | undefined> {
  return await seek(db, table, FIRST_ORDER_FROM, ms + ID_MARGIN_MS);
}
