// The payout, balances and treasury stores on the engine of the process (src/testing/engines.ts):
// run as `bun test F` (SQLite) and `SG_TEST_DB=pg bun test F` (PostgreSQL), one body for both.
// A status change is a compare-and-set that applies once when two writers race it; sums of amounts
// beyond 64 bits stay exact; the limit reads and the batch counts answer the same on both engines.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { writeTx } from "../db/client";
import { addresses, ledgerEntries } from "../db/schema";
import { openTestDb, type TestDb } from "../testing/engines";
import { insertRows } from "../testing/engine-rows";
import { createMerchant } from "../merchants/service";
import { Cipher } from "../secrets/cipher";
import { finishedPayouts, insertPayoutRow, notFailedSince, payoutByOrderNo, signedUnsent, unfinishedFees, updatePayoutIf } from "./store";
import { ledgerBalance, ledgerSum, reservedBalance, unfinishedFrom } from "./balances-store";
import { batchLineCounts, batchOrderCounts, insertBatch, insertBatchLine } from "../treasury/store";

let t: TestDb;
let merchantId: number;
const BIG = "123456789012345678901234567890";

beforeAll(async () => {
  t = await openTestDb();
  merchantId = (await createMerchant({ db: t.db, cipher: new Cipher(randomBytes(32)), now: () => 1 }, { name: "stores" })).merchant.id;
  await insertRows(t.db, addresses, [{ id: "A1", merchantId, chain: "TRON", kind: "exclusive", derivationIndex: 1, address: "T-a1", createdAt: 1 }]);
}, 120_000);
afterAll(async () => await t.close());

let n = 0;
const newPayout = async (amount: string, status: "submitted" | "broadcasted" | "confirmed" | "failed" = "submitted", extra: Record<string, unknown> = {}) =>
  await writeTx(t.db, async (tx) =>
    await insertPayoutRow(tx, {
      orderNo: `PO${String(++n).padStart(24, "0")}`, merchantId, merchantOrderNo: `m-${n}`, chain: "TRON", token: "USDT", decimals: 18,
      fromAddressId: "A1", fromAddress: "T-a1", toAddress: "T-b", amount, fee: "5", deleteSourceAfterSuccess: n === 1, apiKeyId: "k", status,
      createdAt: 1000 + n, submittedAt: 1000 + n, updatedAt: 1000 + n, ...extra,
    }),
  );

test(`a status change raced by two writers applies once; the loser is told (${process.env.SG_TEST_DB ?? "sqlite"})`, async () => {
  const o = await newPayout("1");
  const race = () => writeTx(t.db, async (tx) => await updatePayoutIf(tx, o.id, "submitted", { status: "broadcasted", updatedAt: 2 }));
  const results = await Promise.all([race(), race()]);
  expect(results.filter((r) => r !== undefined).length).toBe(1);
  expect((await payoutByOrderNo(t.db, merchantId, o.orderNo))!.status).toBe("broadcasted");
  expect(await writeTx(t.db, async (tx) => await updatePayoutIf(tx, o.id, "submitted", { status: "failed" }))).toBeUndefined();
});

test("sums beyond 64 bits are exact: what unfinished payouts reserve, the ledger kept and recomputed", async () => {
  await newPayout(BIG);
  await newPayout(BIG, "confirmed");
  await newPayout("7", "failed");
  // Two unfinished: "1" was moved to broadcasted above (still unfinished), and BIG.
  expect(await reservedBalance(t.db, "A1", "USDT")).toBe(BigInt(BIG) + 1n);
  expect(await unfinishedFrom(t.db, "A1")).toEqual({ count: 2, retiring: true });
  await insertRows(t.db, ledgerEntries, [
    { addressId: "A1", chain: "TRON", token: "USDT", kind: "adjustment", amount: BIG, refType: "test", refId: "l1", createdAt: 1 },
    { addressId: "A1", chain: "TRON", token: "USDT", kind: "adjustment", amount: BIG, refType: "test", refId: "l2", createdAt: 1 },
    { addressId: "A1", chain: "TRON", token: "USDT", kind: "adjustment", amount: "-1", refType: "test", refId: "l3", createdAt: 1 },
  ]);
  const want = 2n * BigInt(BIG) - 1n;
  expect(await ledgerBalance(t.db, "A1", "USDT")).toBe(want);
  expect(await ledgerSum(t.db, "A1", "USDT")).toBe(want);
});

test("the limit reads, the chain steps' port and finished payouts", async () => {
  const used = await notFailedSince(t.db, merchantId, 0, 0);
  expect(used.map((r) => r.amount).sort()).toEqual(["1", BIG, BIG].sort());
  expect((await unfinishedFees(t.db, merchantId)).map((r) => r.fee)).toEqual(["5", "5"]);
  const signed = await newPayout("2", "submitted", { signedTx: "raw", txHash: "h" });
  expect((await signedUnsent(t.db, "A1")).map((o) => o.id)).toEqual([signed.id]);
  const all = (await notFailedSince(t.db, merchantId, 0, 0)).length;
  expect(all).toBe(4);
  const fin = await finishedPayouts(t.db, Array.from({ length: n }, (_, i) => i + 1));
  expect(fin.map((o) => o.status).sort()).toEqual(["confirmed", "failed"]);
});

test("a batch's lines and orders counted (numbers on both engines)", async () => {
  const b = await writeTx(t.db, async (tx) =>
    await insertBatch(tx, { id: "B1", merchantId, fileName: "p.csv", fileSha256: "x", status: "running", rowCount: 2, validCount: 1, errorCount: 1, summary: "{}", createdBy: "t", createdAt: 1, updatedAt: 1 }),
  );
  expect(b.id).toBe("B1");
  const o = await newPayout("3");
  await writeTx(t.db, async (tx) => {
    await insertBatchLine(tx, { batchId: "B1", rowNo: 1, input: "{}", state: "created", payoutOrderId: o.id, updatedAt: 1 });
    await insertBatchLine(tx, { batchId: "B1", rowNo: 2, input: "{}", state: "invalid", updatedAt: 1 });
  });
  expect(await batchLineCounts(t.db, "B1")).toEqual({ created: 1, invalid: 1 });
  expect(await batchOrderCounts(t.db, "B1")).toEqual([{ status: "submitted", n: 1 }]);
});
