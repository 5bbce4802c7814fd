// Contract of the chain layer's shared store (costs, gas top-ups and their replacements) on the
// test engine: SQLite, or PostgreSQL with SG_TEST_DB=pg (one body for both implementations).
// Amounts are decimal text of any size and come back exactly as written.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeTx } from "../../db/client";
import { transferCosts } from "../../db/schema";
import { FIXTURE_NOW as T, payoutFixture } from "../../testing/chain-store-fixture";
import { openTestDb, type TestDb } from "../../testing/engines";
import { tableRows } from "../../testing/engine-rows";
import {
  addTopupReplacement,
  insertCost,
  insertTopup,
  markTopup,
  moveTopup,
  openTopupFor,
  patchTopup,
  topupById,
  topupMetas,
  topupReplacements,
  type NewTopupRow,
} from "./store";

const HUGE = "340282366920938463463374607431768211457"; // 2^128 + 1: past every integer type
let t: TestDb;
let payoutIds: number[];
beforeAll(async () => {
  t = await openTestDb();
  ({ payoutIds } = await payoutFixture(t.db));
});
afterAll(async () => await t.close());

const topup = (payoutOrderId: number, over: Partial<NewTopupRow> = {}): NewTopupRow => ({
  chain: "BSC",
  payoutOrderId,
  fromAddress: "0xgas",
  toAddress: "0xsource",
  amount: HUGE,
  txHash: `0xtopup-${payoutOrderId}-${over.status ?? "signed"}`,
  signedTx: "0xraw",
  signedMeta: JSON.stringify({ nonce: 7 }),
  status: "signed",
  createdAt: T,
  updatedAt: T,
  ...over,
});

describe("transfer costs", () => {
  test("insertCost: one row per (chain, txHash); amounts kept exactly", async () => {
    const row = { chain: "TRON", txHash: "tx-cost-1", kind: "payout", payoutOrderId: payoutIds[0]!, nativeBurned: HUGE, energyBurned: "65000", bandwidth: "345", day: "2026-11-29", createdAt: T };
    expect(await writeTx(t.db, async (tx) => await insertCost(tx, row))).toBe(true);
    expect(await writeTx(t.db, async (tx) => await insertCost(tx, { ...row, nativeBurned: "1" }))).toBe(false);
    expect(await writeTx(t.db, async (tx) => await insertCost(tx, { ...row, chain: "BSC" }))).toBe(true);
    const rows = await tableRows(t.db, transferCosts, { txHash: "tx-cost-1" });
    expect(rows.map((r) => [r.chain, r.nativeBurned, r.energyBurned, r.energyDelegated, r.bandwidth])).toEqual([
      ["TRON", HUGE, "65000", "0", "345"],
      ["BSC", HUGE, "65000", "0", "345"],
    ]);
  });
});

describe("gas top-ups", () => {
  test("insert, read by id, the payout's open one (the newest under way), patch", async () => {
    const [p] = payoutIds;
    expect(await openTopupFor(t.db, p!)).toBeUndefined();
    const a = await writeTx(t.db, async (tx) => await insertTopup(tx, topup(p!)));
    const b = await writeTx(t.db, async (tx) => await insertTopup(tx, topup(p!, { status: "broadcasted", sentAt: T + 1 })));
    await writeTx(t.db, async (tx) => await insertTopup(tx, topup(p!, { status: "failed" })));
    expect(a.amount).toBe(HUGE);
    expect(await topupById(t.db, a.id)).toEqual(a);
    expect((await openTopupFor(t.db, p!))!.id).toBe(b.id);
    const patched = await writeTx(t.db, async (tx) => await patchTopup(tx, b.id, { lastError: "node busy", updatedAt: T + 5 }));
    expect([patched.id, patched.status, patched.lastError, patched.updatedAt, patched.amount]).toEqual([b.id, "broadcasted", "node busy", T + 5, HUGE]);
    await writeTx(t.db, async (tx) => await markTopup(tx, b.id, { stuckAt: T + 9 }));
    expect((await topupById(t.db, b.id)).stuckAt).toBe(T + 9);
  });

  test("moveTopup is a compare-and-set on the status it was read in: the second mover gets undefined", async () => {
    const r = await writeTx(t.db, async (tx) => await insertTopup(tx, topup(payoutIds[1]!, { txHash: "0xcas" })));
    const first = await writeTx(t.db, async (tx) => await moveTopup(tx, r.id, "signed", { status: "broadcasted", updatedAt: T + 1 }));
    expect(first!.status).toBe("broadcasted");
    expect(await writeTx(t.db, async (tx) => await moveTopup(tx, r.id, "signed", { status: "failed", updatedAt: T + 2 }))).toBeUndefined();
    expect((await topupById(t.db, r.id)).status).toBe("broadcasted");
    // Two racers from the same status: exactly one wins.
    const won = await Promise.all([
      writeTx(t.db, async (tx) => await moveTopup(tx, r.id, "broadcasted", { status: "confirmed", updatedAt: T + 3 })),
      writeTx(t.db, async (tx) => await moveTopup(tx, r.id, "broadcasted", { status: "failed", updatedAt: T + 3 })),
    ]);
    expect(won.filter(Boolean)).toHaveLength(1);
  });

  test("topupMetas: every top-up a sender signed on a chain, or only those under way", async () => {
    const own = (s: string) => ({ fromAddress: "0xmetas", txHash: `0xm-${s}`, signedMeta: JSON.stringify({ nonce: s }) });
    for (const s of ["signed", "broadcasted", "confirmed", "failed"] as const) await writeTx(t.db, async (tx) => await insertTopup(tx, topup(payoutIds[0]!, { ...own(s), status: s })));
    await writeTx(t.db, async (tx) => await insertTopup(tx, topup(payoutIds[0]!, { ...own("other-chain"), chain: "POLYGON" })));
    const nonces = (metas: string[]) => metas.map((m) => (JSON.parse(m) as { nonce: string }).nonce).sort();
    expect(nonces(await topupMetas(t.db, "BSC", "0xmetas"))).toEqual(["broadcasted", "confirmed", "failed", "signed"]);
    expect(nonces(await topupMetas(t.db, "BSC", "0xmetas", { open: true }))).toEqual(["broadcasted", "signed"]);
    expect(await topupMetas(t.db, "BSC", "0xnobody")).toEqual([]);
  });

  test("replacements: stored in the caller's transaction, read back oldest first as the transactions they hold", async () => {
    const r = await writeTx(t.db, async (tx) => await insertTopup(tx, topup(payoutIds[1]!, { txHash: "0xrepl" })));
    expect(await topupReplacements(t.db, r.id)).toEqual([]);
    await writeTx(t.db, async (tx) => {
      await addTopupReplacement(tx, r, { txHash: "0xr1", raw: "0xraw1", meta: { nonce: 7, gasPrice: HUGE } }, T + 10);
      await addTopupReplacement(tx, r, { txHash: "0xr2", raw: "0xraw2", meta: { nonce: 7, gasPrice: "2" } }, T + 20);
    });
    expect(await topupReplacements(t.db, r.id)).toEqual([
      { tx: { txHash: "0xr1", raw: "0xraw1", meta: { nonce: 7, gasPrice: HUGE } }, since: T + 10 },
      { tx: { txHash: "0xr2", raw: "0xraw2", meta: { nonce: 7, gasPrice: "2" } }, since: T + 20 },
    ]);
  });
});
