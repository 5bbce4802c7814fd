import { describe, expect, test } from "bun:test";
import { InvalidTransition, PAYIN_STATUSES, transition, type PayinEvent, type PayinStatus } from "./state";

// Every row of DESIGN 5's table, plus the "nothing changes" and refused cases.
const rows: Array<[PayinStatus, PayinEvent, PayinStatus | null]> = [
  ["waiting_payment", { type: "paid" }, "detected"],
  ["expired", { type: "paid" }, "detected"], // block time before expireAt: paid on time
  ["waiting_payment", { type: "paid", senderDenied: true }, "frozen_abnormal"],
  ["detected", { type: "confirmations", count: 1, required: 19 }, null],
  ["detected", { type: "confirmations", count: 2, required: 19 }, "confirming"],
  ["detected", { type: "confirmations", count: 19, required: 19 }, "completed"],
  ["detected", { type: "confirmations", count: 1, required: 1 }, "completed"],
  ["confirming", { type: "confirmations", count: 10, required: 19 }, null],
  ["confirming", { type: "confirmations", count: 25, required: 19 }, "completed"],
  ["waiting_payment", { type: "expire" }, "expired"],
  ["detected", { type: "reorg", pastExpiry: false }, "waiting_payment"],
  ["confirming", { type: "reorg", pastExpiry: false }, "waiting_payment"],
  ["confirming", { type: "reorg", pastExpiry: true }, "expired"],
  ["expired", { type: "late_confirmed" }, "risk_settled"],
  ["waiting_payment", { type: "freeze" }, "frozen_abnormal"],
  ["detected", { type: "freeze" }, "frozen_abnormal"],
  ["confirming", { type: "freeze" }, "frozen_abnormal"],
  ["waiting_payment", { type: "cancel" }, "cancelled"],
  ["frozen_abnormal", { type: "cancel" }, "cancelled"],
  ["waiting_payment", { type: "wrong_amount" }, "frozen_abnormal"],
  ["expired", { type: "wrong_amount" }, "frozen_abnormal"], // block time inside the window
  ["frozen_abnormal", { type: "release", paid: "in_full", pastExpiry: false }, "completed"],
  ["frozen_abnormal", { type: "release", paid: "in_full", pastExpiry: true }, "completed"], // paid on time, released later
  ["frozen_abnormal", { type: "release", paid: "short_or_late", pastExpiry: false }, "risk_settled"],
  ["frozen_abnormal", { type: "release", paid: "none", pastExpiry: false }, "waiting_payment"],
  ["frozen_abnormal", { type: "release", paid: "none", pastExpiry: true }, "expired"],
];

describe("pay-in transitions", () => {
  test.each(rows)("%s + %o -> %s", (from, event, to) => {
    expect(transition(from, event)).toBe(to);
  });

  const refused: Array<[PayinStatus, PayinEvent]> = [
    ["completed", { type: "paid" }],
    ["completed", { type: "reorg", pastExpiry: false }],
    ["completed", { type: "freeze" }],
    ["detected", { type: "expire" }],
    ["detected", { type: "cancel" }],
    ["expired", { type: "cancel" }],
    ["cancelled", { type: "paid" }],
    ["risk_settled", { type: "late_confirmed" }],
    ["waiting_payment", { type: "release", paid: "in_full", pastExpiry: false }],
    ["detected", { type: "wrong_amount" }],
    ["frozen_abnormal", { type: "wrong_amount" }],
    ["completed", { type: "cancel" }],
    ["waiting_payment", { type: "late_confirmed" }],
  ];
  test.each(refused)("%s refuses %o", (from, event) => {
    expect(() => transition(from, event)).toThrow(InvalidTransition);
  });

  test("final states accept nothing that moves money", () => {
    for (const s of ["completed", "risk_settled", "cancelled"] as PayinStatus[]) {
      for (const e of [{ type: "paid" }, { type: "expire" }, { type: "reorg", pastExpiry: true }, { type: "freeze" }, { type: "cancel" }] as PayinEvent[]) {
        expect(() => transition(s, e)).toThrow(InvalidTransition);
      }
    }
    expect(PAYIN_STATUSES.length).toBe(8);
  });
});

test("the open statuses split into awaiting payment and settling, and the free-address query spells them as the partial indexes do", async () => {
  const { AWAITING_PAYMENT, OPEN_STATUSES, SETTLING_STATUSES, statusSql } = await import("./state");
  const { FREE_SHARED_ADDRESS } = await import("./orders-store");
  expect([...AWAITING_PAYMENT, ...SETTLING_STATUSES].sort()).toEqual([...OPEN_STATUSES].sort());
  expect(statusSql("p.status", AWAITING_PAYMENT)).toBe("p.status = 'waiting_payment'");
  expect(statusSql("p.status", SETTLING_STATUSES)).toBe("p.status IN ('detected', 'confirming')");
  expect(FREE_SHARED_ADDRESS).toContain("p.status = 'waiting_payment')");
  expect(FREE_SHARED_ADDRESS).toContain("p.status IN ('detected', 'confirming'))");
});
