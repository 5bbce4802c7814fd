// The callbacks page spells the outbox's states from callbacks/state.ts; the statement's text stays
// what it was when it was written by hand.
import { expect, test } from "bun:test";
import { WAITING_BEHIND } from "./callbacks";

test("the undelivered list generates the waiting-behind statement's text, byte for byte", () => {
  expect(WAITING_BEHIND).toBe("SELECT id FROM callbacks WHERE order_no = ? AND rowid < ? AND state IN ('pending', 'delivering') ORDER BY rowid LIMIT 1");
});
