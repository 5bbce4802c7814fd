// Contract of the TRON store (energy delegations, staking transactions) on the test engine:
// SQLite, or PostgreSQL with SG_TEST_DB=pg. Sun amounts are exact decimal text, summed as bigint.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeTx } from "../../db/client";
import { stakingTxs } from "../../db/schema";
import { FIXTURE_NOW as T, payoutFixture } from "../../testing/chain-store-fixture";
import { openTestDb, type TestDb } from "../../testing/engines";
import { tableRows } from "../../testing/engine-rows";
import {
  delegationById,
  inFlightSun,
  insertDelegation,
  insertStakingTx,
  openDelegationFor,
  othersOutSun,
  patchDelegation,
  reclaimableDelegations,
  servedDelegations,
  setStakingTx,
  type DelegationRow,
  type NewDelegationRow,
} from "./store";

// 2^63 + 1 and 2^64 + 3 sun: past a signed 64-bit integer, so only exact text arithmetic adds them.
const BIG_A = "9223372036854775809";
const BIG_B = "18446744073709551619";
// 2^53 + 1 sun saved: past a float's exact integers (the sum is done in the database, as text).
const SAVED = "9007199254740993";
let t: TestDb;
let payoutIds: number[];
beforeAll(async () => {
  t = await openTestDb();
  ({ payoutIds } = await payoutFixture(t.db, 4));
});
afterAll(async () => await t.close());

let n = 0;
const delegation = (over: Partial<NewDelegationRow> & { status: DelegationRow["status"] }): NewDelegationRow => ({
  chain: "TRON",
  payoutOrderId: payoutIds[n % payoutIds.length]!,
  owner: "TStakeOwner",
  receiver: "TReceiverA",
  amount: "1000000",
  energy: "13000",
  delegateTxHash: `dtx-${++n}`,
  delegateSignedTx: "{}",
  delegateMeta: "{}",
  createdAt: T,
  updatedAt: T,
  ...over,
});
const add = (over: Parameters<typeof delegation>[0]) => writeTx(t.db, async (tx) => await insertDelegation(tx, delegation(over)));

describe("energy delegations", () => {
  test("insert and read back exactly; the payout's open delegation", async () => {
    const d = await add({ status: "signed", payoutOrderId: payoutIds[0]!, amount: BIG_A });
    expect(await delegationById(t.db, d.id)).toEqual(d);
    expect(d.amount).toBe(BIG_A);
    expect((await openDelegationFor(t.db, payoutIds[0]!))!.id).toBe(d.id);
    expect(await delegationById(t.db, 999_999)).toBeUndefined();
  });

  test("patchDelegation is a compare-and-set on the status it was read in", async () => {
    const d = await add({ status: "signed", payoutOrderId: payoutIds[1]! });
    const moved = await writeTx(t.db, async (tx) => await patchDelegation(tx, d.id, "signed", { status: "broadcasted", updatedAt: T + 1 }));
    expect([moved!.status, moved!.updatedAt]).toEqual(["broadcasted", T + 1]);
    expect(await writeTx(t.db, async (tx) => await patchDelegation(tx, d.id, "signed", { status: "failed" }))).toBeUndefined();
    // A patch within the same status (no transition) also names the status it expects.
    expect((await writeTx(t.db, async (tx) => await patchDelegation(tx, d.id, "broadcasted", { lastError: "timeout" })))!.lastError).toBe("timeout");
    const racers = await Promise.all(
      (["delegated", "failed"] as const).map((to) => writeTx(t.db, async (tx) => await patchDelegation(tx, d.id, "broadcasted", { status: to }))),
    );
    expect(racers.filter(Boolean)).toHaveLength(1);
    // A failed delegation is not open; the payout has none under way any more unless the racer delegated.
    const open = await openDelegationFor(t.db, payoutIds[1]!);
    expect(open === undefined || open.status === "delegated").toBe(true);
  });

  test("sun in flight, out at a receiver (except one), reclaimable, served: exact sums per chain", async () => {
    const chain = "TRON-SUMS";
    const mk = (status: DelegationRow["status"], amount: string, over: Partial<NewDelegationRow> = {}) => add({ chain, status, amount, ...over });
    await mk("signed", BIG_A);
    await mk("broadcasted", BIG_B);
    const delegated = await mk("delegated", "7");
    await mk("reclaim_signed", "11", { energyUsed: "65000", sunSaved: SAVED });
    await mk("reclaimed", "13", { energyUsed: "32000", sunSaved: "27000000" });
    await mk("reclaimed", "17", { energyUsed: "0", sunSaved: "999" }); // used no energy: not served
    await mk("failed", "19");
    await mk("delegated", "23", { receiver: "TReceiverB" });
    await add({ status: "signed", amount: "29" }); // another chain

    expect(await inFlightSun(t.db, chain)).toBe(BigInt(BIG_A) + BigInt(BIG_B));
    // OUT at receiver A: broadcasted + delegated + reclaim_signed, minus the one excepted.
    expect(await othersOutSun(t.db, chain, "TReceiverA", -1)).toBe(BigInt(BIG_B) + 7n + 11n);
    expect(await othersOutSun(t.db, chain, "TReceiverA", delegated.id)).toBe(BigInt(BIG_B) + 11n);
    expect(await othersOutSun(t.db, chain, "TReceiverC", -1)).toBe(0n);
    expect((await reclaimableDelegations(t.db, chain)).map((d) => d.amount).sort()).toEqual(["11", "23", "7"]);
    const served = await servedDelegations(t.db, chain);
    expect([Number(served!.n), served!.saved]).toEqual([2, (BigInt(SAVED) + 27_000_000n).toString()]);
    const none = await servedDelegations(t.db, "NO-CHAIN");
    expect([Number(none!.n), none!.saved]).toEqual([0, null]);
  });
});

describe("staking transactions", () => {
  test("insert and set status inside the caller's transaction; amounts exact", async () => {
    const row = await writeTx(t.db, async (tx) =>
      await insertStakingTx(tx, { chain: "TRON", op: "freeze", address: "TStakeOwner", amount: BIG_B, txHash: "stx-1", signedTx: "{}", status: "signed", createdAt: T, updatedAt: T }),
    );
    expect(row.amount).toBe(BIG_B);
    await writeTx(t.db, async (tx) => await setStakingTx(tx, row.id, { status: "failed", lastError: "expired", updatedAt: T + 1 }));
    const [back] = await tableRows(t.db, stakingTxs, { id: row.id });
    expect([back!.status, back!.lastError, back!.updatedAt, back!.amount]).toEqual(["failed", "expired", T + 1, BIG_B]);
  });
});
