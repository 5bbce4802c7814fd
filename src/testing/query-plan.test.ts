import { describe, expect, test } from "bun:test";
import { openDb } from "../db/client";
import { migrate } from "../db/migrate";
import { aliases, expectIndex, expectSeek, planProblems, queryPlan } from "./query-plan";

const db = openDb(":memory:");
await migrate(db);

describe("query-plan helper", () => {
  test.each([
    ["a full scan of a large table", "SELECT * FROM payin_orders WHERE notify_url = 'x'", /full scan of payin_orders/],
    ["a scan through an alias", "SELECT * FROM payin_orders AS o WHERE o.notify_url = 'x'", /full scan of payin_orders/],
    ["a sort in a temp b-tree", "SELECT * FROM payin_orders WHERE merchant_id = 1 ORDER BY notify_url", /temp b-tree/],
  ])("fails on %s", (_name, sql, re) => {
    expect(() => expectSeek(db, sql)).toThrow(re);
  });

  test("passes a seek and names its index", () => {
    const plan = expectSeek(db, "SELECT * FROM payin_orders WHERE merchant_id = ? AND merchant_order_no = ?");
    expectIndex(plan, "payin_merchant_order");
    expect(() => expectIndex(plan, "payin_status")).toThrow(/does not use index payin_status/);
  });

  test("a small table may be scanned; a bounded scan is accepted when declared", () => {
    expectSeek(db, "SELECT * FROM merchants WHERE name = 'x'");
    const sql = "SELECT * FROM payin_orders ORDER BY id DESC LIMIT 50";
    expect(planProblems(queryPlan(db, sql), sql)).toHaveLength(1);
    expectSeek(db, sql, { boundedScans: ["payin_orders"] });
  });

  test("aliases map to their tables, keywords are not aliases", () => {
    const m = aliases("SELECT * FROM payin_orders o JOIN callbacks AS c ON c.order_id = o.id LEFT JOIN transfers WHERE 1");
    expect(m.get("o")).toBe("payin_orders");
    expect(m.get("c")).toBe("callbacks");
    expect(m.get("transfers")).toBe("transfers");
    expect(m.has("where")).toBe(false);
  });
});
