import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { adjustFeeBalance, checkLimits, fromMicro, getPayoutControls, payoutFee, setPayoutControls, toMicro } from "./controls";
import { refusalOf } from "../testing/refusal";
import { writeTx, type Db } from "../db/client";
import { openTestDb } from "../testing/engines";
import { insertRows } from "../testing/engine-rows";
import { addresses, payoutOrders } from "../db/schema";
import { createMerchant } from "../merchants/service";
import { Cipher } from "../secrets/cipher";
import { newOrderNo } from "../lib/ids";
import type { AppError } from "../errors";

/** The source address payout rows below name (from_address_id 'A'). */
const addSource = (db: Db, merchantId: number) =>
  insertRows(db, addresses, [{ id: "A", merchantId, chain: "TRON", kind: "exclusive", derivationIndex: 900_001, address: "a", createdAt: 0 }]);
/** A payout row as the store would have written it, with the fields these tests vary. */
type Status = (typeof payoutOrders.$inferSelect)["status"];
const payoutRow = (merchantId: number, o: { orderNo: string; merchantOrderNo: string; amount: string; fee?: string; status: Status; at: number }): typeof payoutOrders.$inferInsert => ({
  orderNo: o.orderNo, merchantId, merchantOrderNo: o.merchantOrderNo, chain: "TRON", token: "USDT", decimals: 6, fromAddressId: "A", fromAddress: "a", toAddress: "b",
  amount: o.amount, fee: o.fee, deleteSourceAfterSuccess: false, apiKeyId: "k", status: o.status, createdAt: o.at, updatedAt: o.at,
});

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
  const { db } = await openTestDb();
  const { merchant } = await createMerchant({ db, cipher: new Cipher(randomBytes(32)), now: () => midnight - 2 * DAY }, { name: "limits" });
  await addSource(db, merchant.id);
  await setPayoutControls(db, merchant.id, { payoutLimitDaily: "1000" }, midnight - 2 * DAY);
  let n = 0;
  const add = (at: number, amount: number, status: Status = "confirmed", orderAt = at) =>
    insertRows(db, payoutOrders, [payoutRow(merchant.id, { orderNo: newOrderNo("PO", orderAt), merchantOrderNo: `w${++n}`, amount: String(BigInt(amount) * 1_000_000n), status, at })]);
  const used = async (now: number) => {
    try {
      await writeTx(db, async (tx) => await checkLimits(tx, merchant.id, 1000n * 1_000_000n, now));
      return "0.000000";
    } catch (e) {
      return (e as AppError).data?.usedToday;
    }
  };

  test("payouts since midnight UTC that did not fail; none from before, whatever their ids", async () => {
    await add(midnight - DAY, 500); // yesterday
    await add(midnight - 20 * 60_000, 400); // 23:40 yesterday
    // Committed in the other order than they read the clock: 00:00:00.100 gets the lower id (the
    // first orderNo of the margin, 23:59:59.900, has the higher one).
    await add(midnight + 100, 7);
    await add(midnight - 100, 300);
    await add(midnight + 60_000, 2);
    await add(midnight + 120_000, 600, "failed");
    expect(await used(midnight + 3_600_000)).toBe("9.000000");
    expect(await used(midnight - 1)).toBe("1209.000000"); // yesterday's 500 + 400 + 300, and all made since
    expect(await used(midnight + DAY)).toBe("0.000000"); // a day with no payout yet
  });
});

describe("ControlsError by code and parameters (the merchant page words it in its language)", async () => {
  const now = Date.UTC(2026, 10, 29);
  const { db } = await openTestDb();
  const { merchant } = await createMerchant({ db, cipher: new Cipher(randomBytes(32)), now: () => now }, { name: "controls" });
  await adjustFeeBalance(db, merchant.id, "5", { ref: "seed", now });
  await addSource(db, merchant.id);
  // An unfinished payout whose 2 USDT fee is reserved.
  await insertRows(db, payoutOrders, [payoutRow(merchant.id, { orderNo: newOrderNo("PO", now), merchantOrderNo: "r1", amount: "1000000", fee: "2000000", status: "submitted", at: now })]);
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
