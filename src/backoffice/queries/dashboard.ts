// The dashboard's numbers: open items per kind and the completed volume per
// day for 30 days (stablecoins summed at face value, in 6-decimal micro units).
import { and, count, eq, gte, inArray, isNotNull, isNull } from "drizzle-orm";
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

/** The last 30 UTC days up to `now`, oldest first, every day present. */
export function volumePerDay(db: DbOrTx, scope: Scope, now: number, days = 30): DayVolume[] {
  const start = Math.floor(now / DAY_MS) * DAY_MS - (days - 1) * DAY_MS;
  const out: DayVolume[] = Array.from({ length: days }, (_, i) => ({ day: new Date(start + i * DAY_MS).toISOString().slice(0, 10), micro: 0n, orders: 0 }));
  const rows = db
    .select({ at: payinOrders.completedAt, updatedAt: payinOrders.updatedAt, amount: payinOrders.amount, paid: payinOrders.paidAmount, decimals: payinOrders.decimals })
    .from(payinOrders)
    .where(and(inArray(payinOrders.status, ["completed", "risk_settled"]), gte(payinOrders.updatedAt, start), only(scope, payinOrders.merchantId)))
    .all();
  for (const r of rows) {
    const at = r.at ?? r.updatedAt;
    const i = Math.floor((at - start) / DAY_MS);
    if (i < 0 || i >= days) continue;
    const units = BigInt(r.paid ?? r.amount);
    const micro = r.decimals >= 6 ? units / 10n ** BigInt(r.decimals - 6) : units * 10n ** BigInt(6 - r.decimals);
    out[i].micro += micro;
    out[i].orders++;
  }
  return out;
}

export function cursorOf(db: DbOrTx, chain: string) {
  return db.select().from(chainCursors).where(eq(chainCursors.chain, chain)).get();
}
