// queries/dashboard.ts on PostgreSQL: the open items counted up to COUNT_CAP + 1 (each a LIMITed
// read of its partial or list index), the volume from the trigger-kept per-day summaries.
import { and, count, eq, gte, inArray, isNotNull, isNull, lt, type SQL, sql } from "drizzle-orm";
import { GAVE_UP } from "../../callbacks/state";
import { firstRow, type PgQ } from "../../db/engine";
import { callbacks, payinDaily, payinDailyToken, payinOrders, payoutOrders, refunds, transfers } from "../../db/schema-pg";
import { statusTerm } from "../../db/status-sql";
import { OPEN_STATUSES, SETTLED_STATUSES, statusSql } from "../../payin/state";
import type { OpenCounts } from "./dashboard";
import type { Scope } from "./filters";
import { COUNT_CAP } from "./keyset";

type MerchantCol = typeof payinOrders.merchantId | typeof payoutOrders.merchantId | typeof refunds.merchantId | typeof callbacks.merchantId | typeof transfers.merchantId | typeof payinDaily.merchantId | typeof payinDailyToken.merchantId;
const only = (scope: Scope, col: MerchantCol) => (scope.merchantId === null ? undefined : eq(col, scope.merchantId));

async function capped(db: PgQ, table: typeof payinOrders | typeof payoutOrders | typeof transfers | typeof callbacks | typeof refunds, where: SQL | undefined): Promise<number> {
  const sq = db.select({ one: sql`1`.as("one") }).from(table).where(where).limit(COUNT_CAP + 1).as("m");
  return Number((await firstRow(db.select({ n: count() }).from(sq)))?.n ?? 0);
}

export async function openCounts(db: PgQ, scope: Scope): Promise<OpenCounts> {
  return {
    openOrders: await capped(db, payinOrders, and(inArray(payinOrders.status, [...OPEN_STATUSES]), only(scope, payinOrders.merchantId))),
    unmatchedDeposits: await capped(db, transfers, and(isNotNull(transfers.unmatchedReason), isNull(transfers.resolution), only(scope, transfers.merchantId))),
    frozenOrders: await capped(db, payinOrders, and(eq(payinOrders.status, "frozen_abnormal"), only(scope, payinOrders.merchantId))),
    failedCallbacks: await capped(db, callbacks, and(sql`${callbacks.state} ${sql.raw(statusTerm(GAVE_UP))}`, only(scope, callbacks.merchantId))),
    failedPayouts: await capped(db, payoutOrders, and(eq(payoutOrders.status, "failed"), only(scope, payoutOrders.merchantId))),
    failedRefunds: await capped(db, refunds, and(sql`${refunds.status} = 'failed'`, only(scope, refunds.merchantId))),
  };
}

/** Per day in [first, first + days): the sum as exact text and the order count. */
export async function dailyVolume(db: PgQ, scope: Scope, first: number, days: number): Promise<{ day: number; micro: string | null; orders: number }[]> {
  const rows = await db
    .select({ day: payinDaily.day, micro: sql<string>`CAST(sum(${payinDaily.micro}) AS TEXT)`, orders: sql<string>`sum(${payinDaily.orders})` })
    .from(payinDaily)
    .where(and(gte(payinDaily.day, first), lt(payinDaily.day, first + days), only(scope, payinDaily.merchantId)))
    .groupBy(payinDaily.day);
  return rows.map((r) => ({ day: Number(r.day), micro: r.micro, orders: Number(r.orders) }));
}

export async function tokenVolume(db: PgQ, scope: Scope, first: number, days: number): Promise<{ token: string; micro: string | null; orders: number }[]> {
  const rows = await db
    .select({ token: payinDailyToken.token, micro: sql<string>`CAST(sum(${payinDailyToken.micro}) AS TEXT)`, orders: sql<string>`sum(${payinDailyToken.orders})` })
    .from(payinDailyToken)
    .where(and(gte(payinDailyToken.day, first), lt(payinDailyToken.day, first + days), only(scope, payinDailyToken.merchantId)))
    .groupBy(payinDailyToken.token);
  return rows.map((r) => ({ token: r.token, micro: r.micro, orders: Number(r.orders) }));
}

/** rebuildPayinDaily in PostgreSQL's SQL (numeric arithmetic: exact at any size). */
export async function rebuildPayinDaily(db: PgQ): Promise<void> {
  const micro = (u: string) => `CASE WHEN decimals >= 6
    THEN coalesce(nullif(substr(${u}, 1, length(${u}) - (decimals - 6)::int), ''), '0')::numeric
    ELSE ${u}::numeric * power(10::numeric, (6 - decimals)::int) END`;
  const settled = statusSql("status", SETTLED_STATUSES);
  await db.transaction(async (tx) => {
    await tx.execute(sql.raw("DELETE FROM payin_daily"));
    await tx.execute(
      sql.raw(`INSERT INTO payin_daily (day, merchant_id, micro, orders)
      SELECT coalesce(completed_at, updated_at) / 86400000, merchant_id, sum(${micro("coalesce(paid_amount, amount)")}), count(*)
      FROM payin_orders WHERE ${settled} GROUP BY 1, 2`),
    );
    await tx.execute(sql.raw("DELETE FROM payin_daily_token"));
    await tx.execute(
      sql.raw(`INSERT INTO payin_daily_token (day, merchant_id, token, micro, orders)
      SELECT coalesce(completed_at, updated_at) / 86400000, merchant_id, token, sum(${micro("coalesce(paid_amount, amount)")}), count(*)
      FROM payin_orders WHERE ${settled} GROUP BY 1, 2, 3`),
    );
  });
}
