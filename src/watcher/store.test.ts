// The pending-blocks query spells the transfer status from watcher/state.ts; its text stays what
// it was when it was written by hand.
import { expect, test } from "bun:test";
import { PENDING_TRANSFER_BLOCKS } from "./store";

test("the transfer status list generates the pending-blocks statement's text, byte for byte", () => {
  expect(PENDING_TRANSFER_BLOCKS).toBe("SELECT DISTINCT block_number AS n, block_hash AS h FROM transfers WHERE chain = ? AND status = 'pending' AND block_number >= 0");
});
