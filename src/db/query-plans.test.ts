// EXPLAIN QUERY PLAN of the engine's queries on growing tables (issue 23): each is a
// seek, never a scan of a large table or a sort in a temporary b-tree.
import { describe, expect, test } from "bun:test";
import { openDb } from "./client";
import { migrate } from "./migrate";
import { expectIndex, expectSeek } from "../testing/query-plan";
import { ENGINE_QUERIES } from "../testing/engine-queries";
import { SWEEP_TARGETS } from "../payin/orders-store";

const db = openDb(":memory:");
await migrate(db);

describe("engine queries stay seeks", () => {
  test.each(ENGINE_QUERIES.map((q) => [q.name, q] as const))("%s", (_name, q) => {
    const plan = expectSeek(db, q.query(db), q.opts);
    for (const ix of q.uses ?? []) expectIndex(plan, ix);
  });

  // The gateway's start-up statistics may be taken while callbacks holds its first rows, all in
  // one state (the bench's gateway: "32 32"), and a mature table has a few states over millions
  // of rows: either way `state = 'delivering'` looks like the whole table. The worker's reads of
  // the claims under way name their index, so they stay seeks with such statistics.
  test("the callback worker's 'delivering' reads stay seeks when the statistics say one state", async () => {
    const skewed = openDb(":memory:");
    await migrate(skewed);
    const c = skewed.$client;
    c.run("ANALYZE");
    c.run("DELETE FROM sqlite_stat1 WHERE tbl = 'callbacks'");
    for (const [idx, stat] of [["callbacks_due", "100000 100000 100000 4"], ["callbacks_list_state", "100000 100000"], ["callbacks_order", "100000 1"]]) {
      c.run("INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('callbacks', ?, ?)", [idx, stat]);
    }
    c.run("ANALYZE sqlite_schema"); // reloads the statistics
    expect(() => expectSeek(skewed, "SELECT rowid, id FROM callbacks WHERE state = 'delivering' AND lease_until <= 1")).toThrow(/full scan of callbacks/);
    for (const q of ENGINE_QUERIES.filter((e) => e.name.startsWith("callback worker"))) expectIndex(expectSeek(skewed, q.query(skewed), q.opts), "callbacks_due");
    c.close();
  });

  // A mature database: millions of orders over a few statuses, so any status looks like a third
  // of the table (the growth bench's 2M orders: payin_list_status "2000000 666667"). The sweep's
  // open-order read names its index and stays a seek there.
  test("the sweep's open orders stay a seek when the statistics say three statuses", async () => {
    const skewed = openDb(":memory:");
    await migrate(skewed);
    const c = skewed.$client;
    c.run("ANALYZE");
    c.run("DELETE FROM sqlite_stat1 WHERE tbl = 'payin_orders'");
    for (const [idx, stat] of [["payin_list_status", "2000000 666667"], ["payin_status", "2000000 666667 1"], ["payin_search_address", "2000000 6667"]]) {
      c.run("INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('payin_orders', ?, ?)", [idx, stat]);
    }
    c.run("ANALYZE sqlite_schema"); // reloads the statistics
    const sweep = ENGINE_QUERIES.find((e) => e.name.startsWith("sweep:"))!;
    expect(() => expectSeek(skewed, SWEEP_TARGETS.replace(" INDEXED BY payin_list_status", ""), sweep.opts)).toThrow(/full scan of payin_orders/);
    expectIndex(expectSeek(skewed, sweep.query(skewed), sweep.opts), "payin_list_status");
    c.close();
  });

  test("a probe of the list fails on a scan (the check has teeth)", () => {
    expect(() => expectSeek(db, "SELECT * FROM callbacks WHERE payload LIKE '%x%'")).toThrow(/full scan of callbacks/);
  });
});
