// The displayed-confirmations statements spell the transfer status from watcher/state.ts; their
// text stays what it was when it was written by hand.
import { expect, test } from "bun:test";
import { SHOW_ORDER_CONFS, SHOW_TRANSFER_CONFS } from "./store";

test("the transfer status list generates the displayed-confirmations statements' text, byte for byte", () => {
  expect(SHOW_TRANSFER_CONFS).toBe(`UPDATE transfers SET confirmations = ?1 - block_number + 1
       WHERE chain = ?2 AND status = 'pending' AND block_number >= 0 AND block_number <= ?1 AND confirmations <> ?1 - block_number + 1`);
  expect(SHOW_ORDER_CONFS).toBe(`UPDATE payin_orders SET confirmations = (SELECT t.confirmations FROM transfers t WHERE t.id = payin_orders.transfer_id), updated_at = ?2
       WHERE id IN (SELECT payin_order_id FROM transfers WHERE chain = ?1 AND status = 'pending' AND block_number >= 0 AND payin_order_id IS NOT NULL)
         AND confirmations <> (SELECT t.confirmations FROM transfers t WHERE t.id = payin_orders.transfer_id AND t.status = 'pending')`);
});
