// Reconcile's in-flight sums spell the payout and transfer statuses from payout/state.ts and
// watcher/state.ts; the text is what the partial indexes' predicates are (and what it was when it
// was written by hand), so the plans of src/db/query-plans.test.ts stay seeks.
import { expect, test } from "bun:test";
import { INFLIGHT_OUT, PENDING_IN } from "./balances-store";

test("the in-flight sums' statements, byte for byte", () => {
  expect(INFLIGHT_OUT).toBe("payout_orders WHERE from_address_id = ?1 AND token = ?2 AND status = 'broadcasted'");
  expect(PENDING_IN).toBe("transfers WHERE address_id = ?1 AND token = ?2 AND status = 'pending'");
});
