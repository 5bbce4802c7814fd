// The callbacks page's list on both engines (SQLite keys it by rowid, PostgreSQL by created_at,
// queries/callbacks.pg.ts): every filter walked page by page to the end has every matching event
// once, newest first, however many share one millisecond; counts stop at the cap.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { callbacks } from "../../db/schema";
import { createMerchant } from "../../merchants/service";
import { currentKey } from "../../merchants/store";
import { Cipher } from "../../secrets/cipher";
import { insertRows } from "../../testing/engine-rows";
import { openTestDb, type TestDb } from "../../testing/engines";
import { countCallbackEvents, listCallbackEvents, parseCallbackFilter } from "./callbacks";

const T0 = Date.parse("2026-06-01T00:00:00Z");
const DAY = 86_400_000;
let t: TestDb;
let shop: { id: number; uid: string };
let other: { id: number; uid: string };
const rows: (typeof callbacks.$inferInsert)[] = [];

beforeAll(async () => {
  t = await openTestDb();
  const deps = { db: t.db, cipher: new Cipher(randomBytes(32)), now: () => T0 };
  shop = (await createMerchant(deps, { name: "shop" })).merchant;
  other = (await createMerchant(deps, { name: "other" })).merchant;
  const keys = { [shop.id]: (await currentKey(t.db, shop.id))!.id, [other.id]: (await currentKey(t.db, other.id))!.id };
  const states = ["pending", "delivering", "delivered", "failed", "held"] as const;
  for (let i = 0; i < 240; i++) {
    const merchantId = i % 4 === 0 ? other.id : shop.id;
    // Runs of up to 9 events in one millisecond (one order's creation and a burst of others).
    const at = T0 + Math.floor(i / 9) * (DAY / 8);
    rows.push({
      id: `evt_${String(i).padStart(4, "0")}_${randomBytes(3).toString("hex")}`,
      merchantId,
      kind: i % 5 === 0 ? "payout" : "payin",
      orderNo: `PI${String(1000 + Math.floor(i / 3))}`,
      status: "completed",
      apiKeyId: keys[merchantId]!,
      url: "https://shop.example/cb",
      payload: "{}",
      state: states[i % states.length]!,
      attempts: i % 3,
      nextAttemptAt: at,
      createdAt: at,
      updatedAt: at,
    });
  }
  await insertRows(t.db, callbacks, rows);
});
afterAll(async () => await t.close());

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const FILTERS: [string, Record<string, string>][] = [
  ["nothing", {}],
  ["a state", { state: "delivered" }],
  ["queued", { state: "queued" }],
  ["retrying", { state: "retrying" }],
  ["merchant", { merchant: "OTHER" }],
  ["merchant and state", { merchant: "SHOP", state: "failed" }],
  ["a business type", { type: "payout" }],
  ["an order", { order: "PI1010" }],
  ["dates", { from: day(T0 + 5 * DAY), to: day(T0 + 9 * DAY) }],
  ["merchant and dates", { merchant: "SHOP", from: day(T0 + 2 * DAY) }],
];

describe("the callbacks list", () => {
  test.each(FILTERS)("%s: every page together is the plain filter, newest first, each event once", async (_n, q) => {
    const f = parseCallbackFilter({ ...q, merchant: q.merchant === "OTHER" ? other.uid : q.merchant === "SHOP" ? shop.uid : undefined });
    const mid = q.merchant === "OTHER" ? other.id : q.merchant === "SHOP" ? shop.id : undefined;
    const want = rows
      .filter(
        (r) =>
          (mid === undefined || r.merchantId === mid) &&
          (!f.order || r.orderNo === f.order) &&
          (!f.type || r.kind === f.type) &&
          (!f.state ||
            (f.state === "queued" ? r.state === "pending" && r.attempts === 0 : f.state === "retrying" ? r.state === "pending" && r.attempts! > 0 : r.state === ({ sending: "delivering", failed: "failed", delivered: "delivered", held: "held" } as Record<string, string>)[f.state])) &&
          (f.fromMs === undefined || r.createdAt >= f.fromMs) &&
          (f.toMs === undefined || r.createdAt < f.toMs),
      )
      .sort((a, b) => b.createdAt - a.createdAt);
    const got: { eventId: string; createdAt: number }[] = [];
    let before: number | undefined;
    do {
      const p = await listCallbackEvents(t.db, { merchantId: null }, f, { before, limit: 7 });
      expect(p.rows.length).toBeGreaterThanOrEqual(p.nextBefore === null ? 0 : 7);
      got.push(...p.rows);
      before = p.nextBefore ?? undefined;
    } while (before !== undefined);
    expect(got.map((r) => r.eventId).sort()).toEqual(want.map((r) => r.id).sort());
    expect(new Set(got.map((r) => r.eventId)).size).toBe(got.length);
    // Newest first (events of one millisecond in either engine's order).
    expect(got.map((r) => r.createdAt)).toEqual(want.map((r) => r.createdAt));
    expect(await countCallbackEvents(t.db, { merchantId: null }, f)).toBe(want.length);
  });

  test("a merchant user sees its own events only", async () => {
    const p = await listCallbackEvents(t.db, { merchantId: other.id }, parseCallbackFilter({ merchant: shop.uid }), { limit: 500 });
    expect(p.rows.length).toBe(rows.filter((r) => r.merchantId === other.id).length);
    expect(p.rows.every((r) => r.merchantUid === other.uid)).toBe(true);
  });

  test("a pending event names the earlier unfinished event of its order it waits behind", async () => {
    const base = { ...rows[0]!, orderNo: "PI9999", attempts: 0 };
    const at = T0 + 50 * DAY;
    await insertRows(t.db, callbacks, [
      { ...base, id: "evt_w1", state: "delivering", createdAt: at, updatedAt: at },
      { ...base, id: "evt_w2", state: "pending", createdAt: at, updatedAt: at },
      { ...base, id: "evt_w3", state: "pending", createdAt: at + 5, updatedAt: at + 5 },
    ]);
    const p = await listCallbackEvents(t.db, { merchantId: null }, parseCallbackFilter({ order: "PI9999" }), { limit: 50 });
    const by = new Map(p.rows.map((r) => [r.eventId, r.waitingBehind]));
    expect(Object.fromEntries(by)).toEqual({ evt_w1: null, evt_w2: "evt_w1", evt_w3: "evt_w1" });
  });
});
