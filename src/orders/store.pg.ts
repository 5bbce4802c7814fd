// orders/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
import { asc, eq } from "drizzle-orm";
import type { PgQ } from "../db/engine";
import { orderEvents } from "../db/schema-pg";
import type { OrderEventRow } from "./store";

export async function recordOrderEvent(
  tx: PgQ,
  e: { kind: "payin" | "payout" | "invoice" | "refund"; orderNo: string; from: string | null; to: string; event: { type: string } & Record<string, unknown>; at: number },
): Promise<void> {
  await tx.insert(orderEvents).values({ kind: e.kind, orderNo: e.orderNo, fromStatus: e.from, toStatus: e.to, event: JSON.stringify(e.event), at: e.at });
}

export async function eventsOf(db: PgQ, orderNo: string): Promise<OrderEventRow[]> {
  return await db.select().from(orderEvents).where(eq(orderEvents.orderNo, orderNo)).orderBy(asc(orderEvents.id));
}
