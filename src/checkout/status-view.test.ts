import { describe, expect, test } from "bun:test";
import { checkoutStatusJson, depositStatusJson, displayAmount } from "./status-view";
import { sampleDeposit, sampleOrder } from "../testing/checkout-memory";

describe("checkout status JSON", () => {
  test("carries exactly the public fields, even when the view holds more", () => {
    const order = {
      ...sampleOrder({ status: "confirming", confirmations: 2, paidAmount: "12.345600", txHash: "ab12" }),
      // What a careless caller might leave on the object: must never reach the payer.
      apiKey: "mch_secret",
      merchantUid: "M100",
      notifyUrl: "https://merchant.example/cb",
    };
    const json = checkoutStatusJson(order, 1_700_000_000_000);
    expect(Object.keys(json).sort()).toEqual(
      [
        "amount",
        "chainCode",
        "completedAt",
        "confirmations",
        "expireAt",
        "paidAmount",
        "requiredConfirmations",
        "serverTime",
        "status",
        "tokenSymbol",
        "txHash",
      ].sort(),
    );
    expect(json).toMatchObject({ status: "confirming", confirmations: 2, requiredConfirmations: 3, serverTime: 1_700_000_000_000 });
    const text = JSON.stringify(json);
    for (const secret of ["mch_secret", "M100", "merchant.example", "ACME-10042", "Acme Coffee"]) expect(text).not.toContain(secret);
  });

  test("deposit status lists the recent deposits only", () => {
    const dep = {
      ...sampleDeposit({
        label: "player 42",
        recentDeposits: [{ amount: "5.000000", status: "completed", txHash: "0x1", createdAt: "2025-01-01T00:00:00.000Z" }],
      }),
      bindKey: "user-42",
    };
    const json = depositStatusJson(dep, 5);
    expect(json).toEqual({
      chainCode: "BSC",
      tokenSymbol: "USDC",
      recentDeposits: [{ amount: "5.000000", status: "completed", txHash: "0x1", createdAt: "2025-01-01T00:00:00.000Z" }],
      serverTime: 5,
    });
  });
});

describe("displayAmount", () => {
  test.each([
    ["10.000000", "10.00"],
    ["12.345600", "12.3456"],
    ["0.000001", "0.000001"],
    ["1.100000000000000001", "1.100000000000000001"],
    ["7", "7.00"],
  ])("%s -> %s", (input, expected) => {
    expect(displayAmount(input)).toBe(expected);
  });
});
