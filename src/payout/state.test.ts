import { describe, expect, test } from "bun:test";
import { InvalidPayoutTransition, PAYOUT_STATUSES, transition, type PayoutEvent, type PayoutStatus } from "./state";

const events: PayoutEvent[] = [
  { type: "broadcasted" },
  { type: "confirmed" },
  { type: "fail", stage: "submit" },
  { type: "fail", stage: "broadcast" },
  { type: "fail", stage: "confirm" },
];
const allowed: Record<string, PayoutStatus> = {
  "submitted broadcasted": "broadcasted",
  "submitted fail:submit": "failed",
  "submitted fail:broadcast": "failed",
  "broadcasted confirmed": "confirmed",
  "broadcasted fail:confirm": "failed",
};

describe("payout transitions", () => {
  for (const from of PAYOUT_STATUSES) {
    for (const e of events) {
      const key = `${from} ${e.type}${e.type === "fail" ? ":" + e.stage : ""}`;
      test(key, () => {
        if (allowed[key]) expect(transition(from, e)).toBe(allowed[key]);
        else expect(() => transition(from, e)).toThrow(InvalidPayoutTransition);
      });
    }
  }
});
