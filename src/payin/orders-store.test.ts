// The orders' displayed-confirmations statement spells the transfer status from watcher/state.ts;
// its text stays what it was when it was written by hand.
import { expect, test } from "bun:test";
import { SHOW_ORDER_CONFS } from "./orders-store";

test("the transfer status list generates the orders' displayed-confirmations statement's text, byte for byte", () => {
  expect(SHOW_ORDER_CONFS).toBe(`UPDATE payin_orders SET confirmations = (SELECT t.confirmations FROM transfers t WHERE t.id = payin_orders.transfer_id), updated_at = ?2
       WHERE id IN (SELECT payin_order_id FROM transfers WHERE chain = ?1 AND status = 'pending' AND block_number >= 0 AND payin_order_id IS NOT NULL)
         AND confirmations <> (SELECT t.confirmations FROM transfers t WHERE t.id = payin_orders.transfer_id AND t.status = 'pending')`);
});
