// Contract of the Solana store (sol_token_accounts: the token accounts the gas wallet creates for
// receiving addresses) on the test engine: SQLite, or PostgreSQL with SG_TEST_DB=pg.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeTx } from "../../db/client";
import { addresses } from "../../db/schema";
import { FIXTURE_NOW as T, payoutFixture } from "../../testing/chain-store-fixture";
import { openTestDb, type TestDb } from "../../testing/engines";
import { insertRows } from "../../testing/engine-rows";
import { createdTokenAccountCosts, insertPendingRows, patchTokenAccount, requeueForOtherMints, tokenAccountOf, unfinishedTokenAccounts } from "./store";

const LAMPORTS = "18446744073709551621"; // past 2^64: kept as text
let t: TestDb;
let merchantId: number;
let firstSol: string;
beforeAll(async () => {
  t = await openTestDb();
  ({ merchantId, solAddressId: firstSol } = await payoutFixture(t.db, 0));
  const a = (id: string, i: number, over: Partial<typeof addresses.$inferInsert> = {}) => ({ id, chain: "SOL", kind: "shared" as const, derivationIndex: i, address: `SolOwner${id}`, merchantId, createdAt: T, ...over });
  await insertRows(t.db, addresses, [
    a("sol-2", 2, { kind: "exclusive", bindKey: "user-1" }),
    a("sol-3", 3, { deletedAt: T }), // deleted: never queued
    a("sol-gas", 4, { kind: "gas", merchantId: null }), // the gas wallet itself: never queued
    a("tron-x", 5, { chain: "TRON" }), // another chain
  ]);
});
afterAll(async () => await t.close());

describe("sol token accounts", () => {
  test("insertPendingRows queues every live SOL receiving address once, oldest first", async () => {
    expect(await writeTx(t.db, async (tx) => await insertPendingRows(tx, T + 1))).toBe(2);
    expect(await writeTx(t.db, async (tx) => await insertPendingRows(tx, T + 2))).toBe(0);
    // Both queued in one moment: oldest first says nothing between them.
    const rows = (await unfinishedTokenAccounts(t.db, 10)).sort((a, b) => a.addressId.localeCompare(b.addressId));
    expect(rows.map((r) => [r.addressId, r.status, r.rentLamports, r.feeLamports, r.createdAt])).toEqual([
      [firstSol, "pending", "0", "0", T + 1],
      ["sol-2", "pending", "0", "0", T + 1],
    ]);
    expect(rows[0]!.owner).toBe("So1FixtureOwner11111111111111111111111111111");
    expect(await unfinishedTokenAccounts(t.db, 1)).toHaveLength(1);
    expect(await tokenAccountOf(t.db, "sol-3")).toBeUndefined();
  });

  test("patches move rows on; created rows' costs are read exactly; other mints queue finished rows again", async () => {
    await writeTx(t.db, async (tx) => {
      await patchTokenAccount(tx, firstSol, { status: "created", txHash: "sig-1", rentLamports: LAMPORTS, feeLamports: "5000", mints: "MintA,MintB", updatedAt: T + 3 });
      await patchTokenAccount(tx, "sol-2", { status: "existed", mints: "MintA", updatedAt: T + 3 });
    });
    expect((await tokenAccountOf(t.db, firstSol))!).toMatchObject({ status: "created", txHash: "sig-1", rentLamports: LAMPORTS, feeLamports: "5000" });
    expect(await unfinishedTokenAccounts(t.db, 10)).toEqual([]);
    expect(await createdTokenAccountCosts(t.db)).toEqual([{ rent: LAMPORTS, fee: "5000" }]);

    // The configured mints are now MintA,MintB: only the row covering another set is queued again.
    expect(await writeTx(t.db, async (tx) => await requeueForOtherMints(tx, T + 4, "MintA,MintB"))).toBe(1);
    expect((await tokenAccountOf(t.db, "sol-2"))!).toMatchObject({ status: "pending", updatedAt: T + 4 });
    expect((await tokenAccountOf(t.db, firstSol))!.status).toBe("created");
    expect(await writeTx(t.db, async (tx) => await requeueForOtherMints(tx, T + 5, "MintA,MintB"))).toBe(0);
    // A row with no recorded mints counts as another set.
    await writeTx(t.db, async (tx) => await patchTokenAccount(tx, firstSol, { mints: null }));
    expect(await writeTx(t.db, async (tx) => await requeueForOtherMints(tx, T + 6, "MintA,MintB"))).toBe(1);
  });
});
