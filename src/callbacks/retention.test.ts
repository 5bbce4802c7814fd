// Callback retention (DESIGN 11): delivered callbacks and their attempts older than
// keep_delivered go, in slices; failed and held ones stay, as do order events and the ledger.
import { describe, expect, test } from "bun:test";
import { openDb, type Db } from "../db/client";
import { migrate } from "../db/migrate";
import { TestClock } from "../lib/clock";
import { PRUNE_SLICE, pruneDeliveredCallbacks } from "./retention";
import { parseConfig } from "../config/load";

const DAY = 86_400_000;
const NOW = 400 * DAY;

function callback(db: Db, id: string, state: string, ageDays: number, attempts = 1) {
  const at = NOW - ageDays * DAY;
  db.$client.run(
    `INSERT INTO callbacks (id, merchant_id, kind, order_no, order_status, api_key_id, url, payload, state, attempts, next_attempt_at, created_at, updated_at)
     VALUES (?, 1, 'payin', ?, 'completed', 'K', 'https://x.example/cb', '{}', ?, ?, ?, ?, ?)`,
    [id, `PI${id}`, state, attempts, at, at, at],
  );
  for (let a = 1; a <= attempts; a++) db.$client.run("INSERT INTO callback_attempts (callback_id, attempt_no, started_at, http_status) VALUES (?, ?, ?, 200)", [id, a, at]);
}

const count = (db: Db, sql: string) => db.$client.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${sql}`).get()!.n;

describe("callback retention", () => {
  test("prunes delivered callbacks past keep_delivered with their attempts, in slices; keeps the rest", async () => {
    const db = openDb(":memory:");
    await migrate(db);
    const old = PRUNE_SLICE * 2 + 3;
    for (let i = 0; i < old; i++) callback(db, `old${i}`, "delivered", 31 + (i % 300), 2);
    callback(db, "recent", "delivered", 29);
    callback(db, "failed", "failed", 200, 3);
    callback(db, "held", "held", 200, 0);
    callback(db, "pending", "pending", 40, 0);
    db.$client.run("INSERT INTO order_events (kind, order_no, from_status, to_status, event, at) VALUES ('payin', 'PIold0', 'confirming', 'completed', '{}', 1)");

    const turns = { n: 0, on: true };
    const spin = () => (turns.n++, turns.on && setImmediate(spin));
    setImmediate(spin);
    const pruned = await pruneDeliveredCallbacks({ db, clock: new TestClock(NOW), config: { callbacks: { keep_delivered: "30d" } } });
    turns.on = false;

    expect(pruned).toBe(old);
    expect(turns.n).toBeGreaterThanOrEqual(2); // slices with turns in between
    expect(db.$client.query<{ id: string }, []>("SELECT id FROM callbacks ORDER BY id").all().map((r) => r.id)).toEqual(["failed", "held", "pending", "recent"]);
    expect(count(db, "callback_attempts")).toBe(1 + 3);
    expect(count(db, "order_events")).toBe(1);
    // Nothing left to do: the next run deletes nothing.
    expect(await pruneDeliveredCallbacks({ db, clock: new TestClock(NOW), config: { callbacks: { keep_delivered: "30d" } } })).toBe(0);
  });

  test("[callbacks] keep_delivered is a duration, 30d by default", () => {
    expect(parseConfig({}, "t").config.callbacks.keep_delivered).toBe("30d");
    expect(parseConfig({ callbacks: { keep_delivered: "7d" } }, "t").config.callbacks.keep_delivered).toBe("7d");
    expect(() => parseConfig({ callbacks: { keep_delivered: "30 days" } }, "t")).toThrow(/keep_delivered/);
  });
});
