// The payout orders as the chain layer's payout steps see them (chains/payout-steps.ts
// `PayoutStore`): which of a source's payouts are signed but unsent, which may still hold a
// nonce. The status lists come from the state machine (payout/state.ts), not copies.
import { and, eq, inArray, isNotNull, notInArray } from "drizzle-orm";
import type { PayoutStore } from "../chains/payout-steps";
import type { DbOrTx } from "../db/client";
import type { PayoutOrderRow } from "./views";
import { payoutOrders } from "../db/schema";
import { AWAITING_BROADCAST, UNFINISHED } from "./state";

export const payoutStore: PayoutStore = {
  signedUnsent: (db, fromAddressId) =>
    db
      .select()
      .from(payoutOrders)
      .where(and(eq(payoutOrders.fromAddressId, fromAddressId), inArray(payoutOrders.status, [...AWAITING_BROADCAST]), isNotNull(payoutOrders.signedTx)))
      .all(),
  unfinishedSignedMeta: (db, chain, fromAddress) =>
    db
      .select({ meta: payoutOrders.signedMeta })
      .from(payoutOrders)
      .where(and(eq(payoutOrders.chain, chain), eq(payoutOrders.fromAddress, fromAddress), inArray(payoutOrders.status, [...UNFINISHED]), isNotNull(payoutOrders.signedMeta)))
      .all()
      .map((r) => r.meta!),
  signedMeta: (db, chain, fromAddress) =>
    db
      .select({ meta: payoutOrders.signedMeta })
      .from(payoutOrders)
      .where(and(eq(payoutOrders.chain, chain), eq(payoutOrders.fromAddress, fromAddress), isNotNull(payoutOrders.signedMeta)))
      .all()
      .map((r) => r.meta!),
  finished: (db, ids) => {
    const out: ReturnType<PayoutStore["finished"]> = [];
    for (let i = 0; i < ids.length; i += 500) {
      out.push(...db.select().from(payoutOrders).where(and(inArray(payoutOrders.id, ids.slice(i, i + 500)), notInArray(payoutOrders.status, [...UNFINISHED]))).all());
    }
    return out;
  },
};

/** Payout orders by id, 500 ids a statement (the batch progress page's rows). */
export function payoutsByIds(db: DbOrTx, ids: number[]): Map<number, PayoutOrderRow> {
  const out = new Map<number, PayoutOrderRow>();
  for (let i = 0; i < ids.length; i += 500) {
    for (const o of db.select().from(payoutOrders).where(inArray(payoutOrders.id, ids.slice(i, i + 500))).all()) out.set(o.id, o);
  }
  return out;
}
