// Callback retention (DESIGN 11): delivered callbacks and their attempts older than
// keep_delivered go, in slices; failed and held ones stay, as do order events and the ledger.
// Both engines (SG_TEST_DB=pg: the PostgreSQL statement, store.pg.ts pruneDelivered).
import { afterEach, describe, expect, test } from "bun:test";
import type { Db } from "../db/client";
import { callbackAttempts, callbacks, orderEvents } from "../db/schema";
import { TestClock } from "../lib/clock";
import { PRUNE_SLICE, pruneDeliveredCallbacks } from "./retention";
import { parseConfig } from "../config/load";
import { openTestDb, type TestDb } from "../testing/engines";
import { allRows, insertRows } from "../testing/engine-rows";

const DAY = 86_400_000;
const NOW = 400 * DAY;

/** Callbacks in `state`, `ageDays` old, each with `attempts` attempt rows. */
async function seed(db: Db, rows: Array<{ id: string; state: string; ageDays: number; attempts: number }>) {
  await insertRows(db, callbacks, rows.map((r) => {
    const at = NOW - r.ageDays * DAY;
    return { id: r.id, merchantId: 1, kind: "payin" as const, orderNo: `PI${r.id}`, status: "completed", apiKeyId: "K", url: "https://x.example/cb", payload: "{}", state: r.state, attempts: r.attempts, nextAttemptAt: at, createdAt: at, updatedAt: at };
  }));
  await insertRows(db, callbackAttempts, rows.flatMap((r) => Array.from({ length: r.attempts }, (_, a) => ({ callbackId: r.id, attemptNo: a + 1, startedAt: NOW - r.ageDays * DAY, httpStatus: 200 }))));
}

let open: TestDb | null = null;
afterEach(async () => {
  await open?.close();
  open = null;
});

describe("callback retention", () => {
  test("prunes delivered callbacks past keep_delivered with their attempts, in slices; keeps the rest", async () => {
    open = await openTestDb();
    const db = open.db;
    const old = PRUNE_SLICE * 2 + 3;
    await seed(db, [
      ...Array.from({ length: old }, (_, i) => ({ id: `old${i}`, state: "delivered", ageDays: 31 + (i % 300), attempts: 2 })),
      { id: "recent", state: "delivered", ageDays: 29, attempts: 1 },
      { id: "failed", state: "failed", ageDays: 200, attempts: 3 },
      { id: "held", state: "held", ageDays: 200, attempts: 0 },
      { id: "pending", state: "pending", ageDays: 40, attempts: 0 },
    ]);
    await insertRows(db, orderEvents, [{ kind: "payin", orderNo: "PIold0", fromStatus: "confirming", toStatus: "completed", event: "{}", at: 1 }]);

    const turns = { n: 0, on: true };
    const spin = () => (turns.n++, turns.on && setImmediate(spin));
    setImmediate(spin);
    const pruned = await pruneDeliveredCallbacks({ db, clock: new TestClock(NOW), config: { callbacks: { keep_delivered: "30d" } } });
    turns.on = false;

    expect(pruned).toBe(old);
    expect(turns.n).toBeGreaterThanOrEqual(2); // slices with turns in between
    expect((await allRows(db, callbacks)).map((r) => r.id).sort()).toEqual(["failed", "held", "pending", "recent"]);
    expect((await allRows(db, callbackAttempts)).map((r) => r.callbackId).sort()).toEqual(["failed", "failed", "failed", "recent"]);
    expect(await allRows(db, orderEvents)).toHaveLength(1);
    // Nothing left to do: the next run deletes nothing.
    expect(await pruneDeliveredCallbacks({ db, clock: new TestClock(NOW), config: { callbacks: { keep_delivered: "30d" } } })).toBe(0);
  });

  test("[callbacks] keep_delivered is a duration, 30d by default", () => {
    expect(parseConfig({}, "t").config.callbacks.keep_delivered).toBe("30d");
    expect(parseConfig({ callbacks: { keep_delivered: "7d" } }, "t").config.callbacks.keep_delivered).toBe("7d");
    expect(() => parseConfig({ callbacks: { keep_delivered: "30 days" } }, "t")).toThrow(/keep_delivered/);
  });
});
