import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { adjustFeeBalance, checkLimits, fromMicro, getPayoutControls, payoutFee, setPayoutControls, toMicro } from "./controls";
import { refusalOf } from "../testing/refusal";
import { openDb, writeTx } from "../db/client";
import { migrate } from "../db/migrate";
import { createMerchant } from "../merchants/service";
import { Cipher } from "../secrets/cipher";
import { newOrderNo } from "../lib/ids";
import type { AppError } from "../errors";

describe("payout fee", () => {
  test.each([
    ["0", "0", 100_000_000n, 0n],
    ["0.5", "0", 1n, 500_000n],
    ["0", "0.001", 100_000_000n, 100_000n], // 0.1 % of 100
    ["0", "0.001", 1n, 1n], // rounded up to one micro-unit, never down to zero
    ["0.5", "0.01", 30_250_000n, 802_500n],
    ["0", "0.00000001", 999_999n, 1n],
  ])("fixed %s + rate %s of %d micro = %d", (fixed, rate, amount, fee) => {
    expect(payoutFee({ payoutFeeFixed: fixed, payoutFeeRate: rate }, amount)).toBe(fee);
  });

  test.each([
    [6, 1_234_567n, 1_234_567n],
    [18, 1_234_567_000_000_000_000n, 1_234_567n],
  ])("micro-units of %d-decimal tokens", (decimals, units, micro) => {
    expect(toMicro(units, decimals)).toBe(micro);
    expect(fromMicro(micro, decimals)).toBe(units);
  });
});

describe("daily limit: today's payouts as an id range (issue 23)", async () => {
  const DAY = 86_400_000;
  const midnight = Date.UTC(2026, 10, 26);
  const db = openDb(":memory:");
  await migrate(db);
  db.$client.run("PRAGMA foreign_keys = OFF"); // payout rows without their source addresses
  const { merchant } = await createMerchant({ db, cipher: new Cipher(randomBytes(32)), now: () => midnight - 2 * DAY }, { name: "limits" });
  await setPayoutControls(db, merchant.id, { payoutLimitDaily: "1000" }, midnight - 2 * DAY);
  let n = 0;
  const add = (at: number, amount: number, status = "confirmed", orderAt = at) =>
    db.$client.run(
      `INSERT INTO payout_orders (order_no, merchant_id, merchant_order_no, chain, token, decimals, from_address_id, from_address, to_address, amount,
         delete_source, api_key_id, status, created_at, updated_at) VALUES (?, ?, ?, 'TRON', 'USDT', 6, 'A', 'a', 'b', ?, 0, 'k', ?, ?, ?)`,
      [newOrderNo("PO", orderAt), merchant.id, `w${++n}`, String(BigInt(amount) * 1_000_000n), status, at, at],
    );
  const used = async (now: number) => {
    try {
      await writeTx(db, async (tx) => await checkLimits(tx, merchant.id, 1000n * 1_000_000n, now));
      return "0.000000";
    } catch (e) {
      return (e as AppError).data?.usedToday;
    }
  };

  test("payouts since midnight UTC that did not fail; none from before, whatever their ids", async () => {
    add(midnight - DAY, 500); // yesterday
    add(midnight - 20 * 60_000, 400); // 23:40 yesterday
    // Committed in the other order than they read the clock: 00:00:00.100 gets the lower id (the
    // first orderNo of the margin, 23:59:59.900, has the higher one).
    add(midnight + 100, 7);
    add(midnight - 100, 300);
    add(midnight + 60_000, 2);
    add(midnight + 120_000, 600, "failed");
    expect(await used(midnight + 3_600_000)).toBe("9.000000");
    expect(await used(midnight - 1)).toBe("1209.000000"); // yesterday's 500 + 400 + 300, and all made since
    expect(await used(midnight + DAY)).toBe("0.000000"); // a day with no payout yet
  });
});

describe("ControlsError by code and parameters (the merchant page words it in its language)", async () => {
  const now = Date.UTC(2026, 10, 29);
  const db = openDb(":memory:");
  await migrate(db);
  db.$client.run("PRAGMA foreign_keys = OFF"); // a payout row without its source address
  const { merchant } = await createMerchant({ db, cipher: new Cipher(randomBytes(32)), now: () => now }, { name: "controls" });
  await adjustFeeBalance(db, merchant.id, "5", { ref: "seed", now });
  // An unfinished payout whose 2 USDT fee is reserved.
  db.$client.run(
    `INSERT INTO payout_orders (order_no, merchant_id, merchant_order_no, chain, token, decimals, from_address_id, from_address, to_address, amount,
       fee, delete_source, api_key_id, status, created_at, updated_at) VALUES (?, ?, 'r1', 'TRON', 'USDT', 6, 'A', 'a', 'b', '1000000', '2000000', 0, 'k', 'submitted', ?, ?)`,
    [newOrderNo("PO", now), merchant.id, now, now],
  );
  const nobody = merchant.id + 1000;
  test.each([
    ["a per-payout limit that is not a decimal", () => setPayoutControls(db, merchant.id, { payoutLimitPerTx: "ten" }, now), "controls.limit_per_tx_invalid", {}],
    ["a daily limit with 7 decimals", () => setPayoutControls(db, merchant.id, { payoutLimitDaily: "1.1234567" }, now), "controls.limit_daily_invalid", {}],
    ["a negative fixed fee", () => setPayoutControls(db, merchant.id, { payoutFeeFixed: "-1" }, now), "controls.fee_fixed_invalid", {}],
    ["a fee rate of 1", () => setPayoutControls(db, merchant.id, { payoutFeeRate: "1" }, now), "controls.fee_rate_invalid", {}],
    ["controls of an unknown merchant", () => setPayoutControls(db, nobody, { payoutsEnabled: false }, now), "merchant.id_unknown", { merchantId: nobody }],
    ["the controls of an unknown merchant read", () => getPayoutControls(db, nobody), "merchant.id_unknown", { merchantId: nobody }],
    ["a delta that is not a decimal", () => adjustFeeBalance(db, merchant.id, "1e3", { ref: "x", now }), "controls.delta_invalid", {}],
    ["a fee move of an unknown merchant", () => adjustFeeBalance(db, nobody, "1", { ref: "x", now }), "merchant.id_unknown", { merchantId: nobody }],
    ["a debit into the reserved fees", () => adjustFeeBalance(db, merchant.id, "-4", { ref: "x", now }), "controls.below_reserved", {}],
  ] as const)("%s", async (_what, call, code, params) => {
    expect(await refusalOf(call)).toMatchObject({ kind: "ControlsError", code, params });
  });
  test("a debit down to the reserved fees is allowed", async () => {
    expect(await adjustFeeBalance(db, merchant.id, "-3", { ref: "y", now })).toBe("2.000000");
  });
});
