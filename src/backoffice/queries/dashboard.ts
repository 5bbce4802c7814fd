// The dashboard's numbers: open items per kind and the completed volume per
// day for 30 days (stablecoins summed at face value, in 6-decimal micro units),
// with the same window per token, which the chart names.
import { and, count, desc, eq, gte, inArray, isNotNull, isNull, lt, type SQL, sql } from "drizzle-orm";
import { COUNT_CAP } from "./keyset";
import { GAVE_UP } from "../../callbacks/state";
import type { DbOrTx } from "../../db/client";
import { isPg, pgOf, pgSide } from "../../db/engine";
import { statusTerm } from "../../db/status-sql";
import { callbacks, payinDaily, payinDailyToken, payinOrders, payoutOrders, refunds, transfers } from "../../db/schema";
import { OPEN_STATUSES, SETTLED_STATUSES, statusSql } from "../../payin/state";
import type { Scope } from "./filters";

const pg = pgSide<typeof import("./dashboard.pg")>(() => require("./dashboard.pg"));

export interface OpenCounts {
  openOrders: number;
  unmatchedDeposits: number;
  frozenOrders: number;
  failedCallbacks: number;
  failedPayouts: number;
  /** Refunds whose sending failed (nothing was sent; the amount is refundable again). */
  failedRefunds: number;
}

const only = (scope: Scope, col: typeof payinOrders.merchantId | typeof payoutOrders.merchantId | typeof refunds.merchantId | typeof callbacks.merchantId | typeof transfers.merchantId | typeof payinDaily.merchantId | typeof payinDailyToken.merchantId) =>
  scope.merchantId === null ? undefined : eq(col, scope.merchantId);

/** Rows matching `where`, counted up to COUNT_CAP + 1 (a card shows "1,000+"): never a count of everything. */
async function capped(db: DbOrTx, table: typeof payinOrders | typeof payoutOrders | typeof transfers | typeof callbacks | typeof refunds, where: SQL | undefined): Promise<number> {
  const sq = db.select({ one: sql`1` }).from(table).where(where).limit(COUNT_CAP + 1).as("m");
  return db.select({ n: count() }).from(sq).get()?.n ?? 0;
}

/** The term as a literal (callbacks/state.ts GAVE_UP), as the partial index callbacks_failed spells it (dashboard.test.ts holds the text). */
export const GAVE_UP_CALLBACK = sql`${callbacks.state} ${sql.raw(statusTerm(GAVE_UP))}`;

export async function openCounts(db: DbOrTx, scope: Scope): Promise<OpenCounts> {
  if (isPg(db)) return await pg.openCounts(pgOf(db), scope);
  return {
    openOrders: await capped(db, payinOrders, and(inArray(payinOrders.status, [...OPEN_STATUSES]), only(scope, payinOrders.merchantId))),
    // `resolution IS NULL` and `unmatched_reason IS NOT NULL` as literals: the partial index transfers_open_unmatched.
    unmatchedDeposits: await capped(db, transfers, and(isNotNull(transfers.unmatchedReason), isNull(transfers.resolution), only(scope, transfers.merchantId))),
    frozenOrders: await capped(db, payinOrders, and(eq(payinOrders.status, "frozen_abnormal"), only(scope, payinOrders.merchantId))),
    failedCallbacks: await capped(db, callbacks, and(GAVE_UP_CALLBACK, only(scope, callbacks.merchantId))),
    failedPayouts: await capped(db, payoutOrders, and(eq(payoutOrders.status, "failed"), only(scope, payoutOrders.merchantId))),
    // `status = 'failed'` as a literal: the partial index refunds_failed.
    failedRefunds: await capped(db, refunds, and(sql`${refunds.status} = 'failed'`, only(scope, refunds.merchantId))),
  };
}

export interface DayVolume {
  day: string;
  /** Sum at face value, micro units (6 decimals). */
  micro: bigint;
  orders: number;
}

const DAY_MS = 86_400_000;

/**
 * The last 30 UTC days up to `now`, oldest first, every day present, from the
 * per-day summary (payin_daily: kept by triggers in each order change's own
 * transaction, amounts cut to micro units exactly), so the chart reads at most
 * 30 rows per merchant whatever the number of orders.
 */
export async function volumePerDay(db: DbOrTx, scope: Scope, now: number, days = 30): Promise<DayVolume[]> {
  const first = Math.floor(now / DAY_MS) - (days - 1);
  const out: DayVolume[] = Array.from({ length: days }, (_, i) => ({ day: new Date((first + i) * DAY_MS).toISOString().slice(0, 10), micro: 0n, orders: 0 }));
  const rows = isPg(db) ? await pg.dailyVolume(pgOf(db), scope, first, days) : db
    .select({ day: payinDaily.day, micro: sql<string>`CAST(sum(${payinDaily.micro}) AS TEXT)`, orders: sql<number>`sum(${payinDaily.orders})` })
    .from(payinDaily)
    .where(and(gte(payinDaily.day, first), lt(payinDaily.day, first + days), only(scope, payinDaily.merchantId)))
    .groupBy(payinDaily.day)
    .all();
  for (const r of rows) {
    const i = r.day - first;
    out[i].micro = BigInt(r.micro ?? "0");
    out[i].orders = r.orders;
  }
  return out;
}

export interface TokenVolume {
  token: string;
  /** Sum at face value, micro units (6 decimals). */
  micro: bigint;
  orders: number;
}

/** The same window's completed volume per token (payin_daily_token), largest first: what the chart's total is made of. */
export async function volumePerToken(db: DbOrTx, scope: Scope, now: number, days = 30): Promise<TokenVolume[]> {
  const first = Math.floor(now / DAY_MS) - (days - 1);
  return (isPg(db) ? await pg.tokenVolume(pgOf(db), scope, first, days) : db
    .select({ token: payinDailyToken.token, micro: sql<string>`CAST(sum(${payinDailyToken.micro}) AS TEXT)`, orders: sql<number>`sum(${payinDailyToken.orders})` })
    .from(payinDailyToken)
    .where(and(gte(payinDailyToken.day, first), lt(payinDailyToken.day, first + days), only(scope, payinDailyToken.merchantId)))
    .groupBy(payinDailyToken.token)
    .all())
    .map((r) => ({ token: r.token, micro: BigInt(r.micro ?? "0"), orders: r.orders }))
    .filter((r) => r.orders > 0)
    .sort((a, b) => (a.micro === b.micro ? a.token.localeCompare(b.token) : a.micro > b.micro ? -1 : 1));
}

/**
 * Recomputes payin_daily from the orders (as migration 0160 fills it). For bulk loads
 * that insert settled orders directly (the bench's generator, tests): the gateway itself
 * never inserts a settled order, and the trigger follows every later change.
 */
export async function rebuildPayinDaily(db: DbOrTx): Promise<void> {
  if (isPg(db)) return await pg.rebuildPayinDaily(pgOf(db));
  const c = db.$client;
  const micro = (u: string) => `CASE WHEN decimals >= 6
    THEN CAST(coalesce(nullif(substr(${u}, 1, length(${u}) - (decimals - 6)), ''), '0') AS INTEGER)
    ELSE CAST(${u} AS INTEGER) * CAST(power(10, 6 - decimals) AS INTEGER) END`;
  c.transaction(() => {
    c.run("DELETE FROM payin_daily");
    c.run(`INSERT INTO payin_daily (day, merchant_id, micro, orders)
      SELECT coalesce(completed_at, updated_at) / 86400000, merchant_id, sum(${micro("coalesce(paid_amount, amount)")}), count(*)
      FROM payin_orders WHERE ${statusSql("status", SETTLED_STATUSES)} GROUP BY 1, 2`);
    c.run("DELETE FROM payin_daily_token");
    c.run(`INSERT INTO payin_daily_token (day, merchant_id, token, micro, orders)
      SELECT coalesce(completed_at, updated_at) / 86400000, merchant_id, token, sum(${micro("coalesce(paid_amount, amount)")}), count(*)
      FROM payin_orders WHERE ${statusSql("status", SETTLED_STATUSES)} GROUP BY 1, 2, 3`);
  })();
}
