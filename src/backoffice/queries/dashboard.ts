// The dashboard's numbers: open items per kind and the completed volume per
// day for 30 days (stablecoins summed at face value, in 6-decimal micro units).
import { and, count, eq, gte, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { addresses, callbacks, chainCursors, payinOrders, payoutOrders, transfers } from "../../db/schema";
import { OPEN_STATUSES } from "../../payin/state";
import type { Scope } from "./filters";

export interface OpenCounts {
  openOrders: number;
  unmatchedDeposits: number;
  frozenOrders: number;
  failedCallbacks: number;
  failedPayouts: number;
}

const only = (scope: Scope, col: typeof payinOrders.merchantId | typeof payoutOrders.merchantId | typeof callbacks.merchantId | typeof addresses.merchantId) =>
  scope.merchantId === null ? undefined : eq(col, scope.merchantId);

export function openCounts(db: DbOrTx, scope: Scope): OpenCounts {
  const n = (q: { n: number } | undefined) => q?.n ?? 0;
  return {
    openOrders: n(db.select({ n: count() }).from(payinOrders).where(and(inArray(payinOrders.status, [...OPEN_STATUSES]), only(scope, payinOrders.merchantId))).get()),
    unmatchedDeposits: n(
      db
        .select({ n: count() })
        .from(transfers)
        .innerJoin(addresses, eq(addresses.id, transfers.addressId))
        .where(and(isNotNull(transfers.unmatchedReason), isNull(transfers.resolution), only(scope, addresses.merchantId)))
        .get(),
    ),
    frozenOrders: n(db.select({ n: count() }).from(payinOrders).where(and(eq(payinOrders.status, "frozen_abnormal"), only(scope, payinOrders.merchantId))).get()),
    failedCallbacks: n(db.select({ n: count() }).from(callbacks).where(and(eq(callbacks.state, "failed"), only(scope, callbacks.merchantId))).get()),
    failedPayouts: n(db.select({ n: count() }).from(payoutOrders).where(and(eq(payoutOrders.status, "failed"), only(scope, payoutOrders.merchantId))).get()),
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
 * The last 30 UTC days up to `now`, oldest first, every day present. Summed in
 * SQL per day: each amount is first cut to micro units as text (base units
 * carry 6 or 18 decimals; 18-decimal values overflow a 64-bit integer), so the
 * sum stays exact up to 9.2e12 units a day.
 */
export function volumePerDay(db: DbOrTx, scope: Scope, now: number, days = 30): DayVolume[] {
  const start = Math.floor(now / DAY_MS) * DAY_MS - (days - 1) * DAY_MS;
  const out: DayVolume[] = Array.from({ length: days }, (_, i) => ({ day: new Date(start + i * DAY_MS).toISOString().slice(0, 10), micro: 0n, orders: 0 }));
  const units = sql`coalesce(${payinOrders.paidAmount}, ${payinOrders.amount})`;
  const micro = sql`CASE WHEN ${payinOrders.decimals} >= 6
      THEN CAST(coalesce(nullif(substr(${units}, 1, length(${units}) - (${payinOrders.decimals} - 6)), ''), '0') AS INTEGER)
      ELSE CAST(${units} AS INTEGER) * CAST(power(10, 6 - ${payinOrders.decimals}) AS INTEGER) END`;
  const at = sql`coalesce(${payinOrders.completedAt}, ${payinOrders.updatedAt})`;
  const dayIndex = sql<number>`(${at} - ${start}) / ${DAY_MS}`;
  const rows = db
    .select({ i: dayIndex, micro: sql<string>`CAST(sum(${micro}) AS TEXT)`, orders: count() })
    .from(payinOrders)
    .where(and(inArray(payinOrders.status, ["completed", "risk_settled"]), gte(payinOrders.updatedAt, start), gte(at, start), only(scope, payinOrders.merchantId)))
    .groupBy(dayIndex)
    .all();
  for (const r of rows) {
    if (r.i < 0 || r.i >= days) continue;
    out[r.i].micro = BigInt(r.micro ?? "0");
    out[r.i].orders = r.orders;
  }
  return out;
}

export function cursorOf(db: DbOrTx, chain: string) {
  return db.select().from(chainCursors).where(eq(chainCursors.chain, chain)).get();
}
