// The orders' storage module: the timeline of an order (`order_events`, docs/architecture.md
// "Data access"), one row per status change, written by the transition funnels
// (payin/service.ts, payout/service.ts, payout/refund-funnel.ts, invoices/service.ts) in their
// transaction. `orders/events.ts` re-exports these for its callers.
import { asc, eq } from "drizzle-orm";
import type { DbOrTx } from "../db/client";
import { orderEvents } from "../db/schema";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

export type OrderEventRow = typeof orderEvents.$inferSelect;

export async function recordOrderEvent(
  tx: DbOrTx,
  e: { kind: "payin" | "payout" | "invoice" | "refund"; orderNo: string; from: string | null; to: string; event: { type: string } & Record<string, unknown>; at: number },
): Promise<void> {
  if (isPg(tx)) return await pg.recordOrderEvent(pgOf(tx), e);
  tx.insert(orderEvents).values({ kind: e.kind, orderNo: e.orderNo, fromStatus: e.from, toStatus: e.to, event: JSON.stringify(e.event), at: e.at }).run();
}

export async function eventsOf(db: DbOrTx, orderNo: string): Promise<OrderEventRow[]> {
  if (isPg(db)) return await pg.eventsOf(pgOf(db), orderNo);
  return db.select().from(orderEvents).where(eq(orderEvents.orderNo, orderNo)).orderBy(asc(orderEvents.id)).all();
}
