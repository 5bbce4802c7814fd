// The transfer queries spell the transfer status from watcher/state.ts; their text stays what it
// was when it was written by hand.
import { expect, test } from "bun:test";
import { PENDING_TRANSFER_BLOCKS, SHOW_TRANSFER_CONFS } from "./transfers-store";

test("the transfer status list generates the pending-blocks statement's text, byte for byte", () => {
  expect(PENDING_TRANSFER_BLOCKS).toBe("SELECT DISTINCT block_number AS n, block_hash AS h FROM transfers WHERE chain = +? AND status = 'pending' AND block_number >= 0");
});

test("the transfer status list generates the transfers' displayed-confirmations statement's text, byte for byte", () => {
  expect(SHOW_TRANSFER_CONFS).toBe(`UPDATE transfers SET confirmations = ?1 - block_number + 1
       WHERE chain = ?2 AND status = 'pending' AND block_number >= 0 AND block_number <= ?1 AND confirmations <> ?1 - block_number + 1`);
});
