import { describe, expect, test } from "bun:test";
import { InvalidRefundTransition, REFUND_STATUSES, transition, type RefundEvent, type RefundStatus } from "./refund-state";

const events: RefundEvent[] = [{ type: "address_given" }, ...["submitted", "broadcasted", "confirmed", "failed"].map((status) => ({ type: "payout" as const, status }))];
const allowed: Record<string, RefundStatus> = {
  "awaiting_address address_given": "submitted",
  "submitted payout:broadcasted": "broadcasted",
  "submitted payout:failed": "failed",
  "broadcasted payout:confirmed": "confirmed",
  "broadcasted payout:failed": "failed",
};

describe("refund transitions", () => {
  for (const from of REFUND_STATUSES) {
    for (const e of events) {
      const key = `${from} ${e.type}${e.type === "payout" ? ":" + e.status : ""}`;
      test(key, () => {
        if (allowed[key]) expect(transition(from, e)).toBe(allowed[key]);
        else expect(() => transition(from, e)).toThrow(InvalidRefundTransition);
      });
    }
  }
});
