// The operations counts spell their callback, payout, transfer and balance-check statuses from
// callbacks/state.ts, payout/state.ts and watcher/state.ts; the text stays what the partial
// indexes' predicates are (and what it was when it was written by hand), so the plans of
// src/db/query-plans.test.ts stay seeks.
import { expect, test } from "bun:test";
import { BALANCE_MISMATCHES, FAILED_CALLBACKS, FAILED_PAYOUTS, OPEN_UNMATCHED, QUEUED_CALLBACKS, STUCK_PAYOUTS, STUCK_TOPUPS } from "./store";

test("the status lists generate the statements' text, byte for byte", () => {
  expect(FAILED_CALLBACKS).toBe("SELECT count(*) AS n FROM callbacks INDEXED BY callbacks_failed WHERE state = 'failed' AND updated_at >= ?");
  expect(FAILED_PAYOUTS).toBe("SELECT order_no FROM payout_orders INDEXED BY payout_failed WHERE status = 'failed' AND failed_at >= ? ORDER BY failed_at DESC");
  expect(STUCK_PAYOUTS).toBe("SELECT chain, order_no FROM payout_orders INDEXED BY payout_broadcasted WHERE status = 'broadcasted' AND stuck_at IS NOT NULL ORDER BY chain");
  expect(STUCK_TOPUPS).toBe(
    "SELECT p.chain, p.order_no FROM gas_topups t INDEXED BY gas_topups_stuck JOIN payout_orders p ON p.id = t.payout_order_id WHERE t.stuck_at IS NOT NULL AND t.status IN ('signed', 'broadcasted')",
  );
  expect(QUEUED_CALLBACKS).toBe("SELECT count(*) AS n FROM callbacks WHERE state IN ('pending', 'delivering')");
  expect(OPEN_UNMATCHED).toBe(
    "SELECT count(*) AS n FROM transfers INDEXED BY transfers_open_unmatched WHERE unmatched_reason IS NOT NULL AND resolution IS NULL AND status != 'reverted'",
  );
  expect(BALANCE_MISMATCHES).toBe("SELECT count(*) AS n FROM balance_checks WHERE status = 'mismatch'");
});
