import { expect, test } from "bun:test";
import { PAYIN_STATUSES } from "../payin/state";
import { FOLLOWS, INVOICE_STATUSES } from "./status";

test("every pay-in status maps to an invoice status", () => {
  expect(Object.keys(FOLLOWS).sort()).toEqual([...PAYIN_STATUSES].sort());
  for (const s of Object.values(FOLLOWS)) expect(INVOICE_STATUSES).toContain(s);
});
