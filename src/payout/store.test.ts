// The payout store's hand-tuned statements spell their statuses from payout/state.ts; the text is
// what the partial indexes' predicates are (and what it was when it was written by hand), so the
// plans of src/db/query-plans.test.ts stay seeks.
import { expect, test } from "bun:test";
import { and, eq, sql } from "drizzle-orm";
import { openDb } from "../db/client";
import { payoutOrders } from "../db/schema";
import { BROADCASTED, RESERVED_FEES, SUBMITTED, USED_TODAY } from "./store";

test("the limit checks' statements, byte for byte", () => {
  expect(USED_TODAY).toBe(`SELECT amount, decimals FROM payout_orders INDEXED BY payout_list_merchant
  WHERE merchant_id = ?1 AND status IN ('submitted', 'broadcasted', 'confirmed') AND id >= ?2 AND +created_at >= ?3`);
  expect(RESERVED_FEES).toBe(`SELECT fee, decimals FROM payout_orders INDEXED BY payout_list_merchant
  WHERE merchant_id = ?1 AND status IN ('submitted', 'broadcasted')`);
});

test("the executor's open payouts: the same SQL as the literals the partial indexes were written against", () => {
  const db = openDb(":memory:");
  try {
    const text = (cond: ReturnType<typeof sql>) => db.select().from(payoutOrders).where(and(eq(payoutOrders.chain, "TRON"), cond)).toSQL();
    expect(text(SUBMITTED)).toEqual(text(sql`${payoutOrders.status} = 'submitted'`));
    expect(text(BROADCASTED)).toEqual(text(sql`${payoutOrders.status} = 'broadcasted'`));
    expect(text(SUBMITTED).sql).toContain(`"payout_orders"."status" = 'submitted'`);
  } finally {
    db.$client.close();
  }
});
