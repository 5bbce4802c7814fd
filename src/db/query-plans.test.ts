// EXPLAIN QUERY PLAN of the engine's queries on growing tables (issue 23): each is a
// seek, never a scan of a large table or a sort in a temporary b-tree.
import { describe, expect, test } from "bun:test";
import { openDb } from "./client";
import { migrate } from "./migrate";
import { expectIndex, expectSeek } from "../testing/query-plan";
import { ENGINE_QUERIES } from "../testing/engine-queries";

const db = openDb(":memory:");
await migrate(db);

describe("engine queries stay seeks", () => {
  test.each(ENGINE_QUERIES.map((q) => [q.name, q] as const))("%s", (_name, q) => {
    const plan = expectSeek(db, q.query(db), q.opts);
    for (const ix of q.uses ?? []) expectIndex(plan, ix);
  });

  test("a probe of the list fails on a scan (the check has teeth)", () => {
    expect(() => expectSeek(db, "SELECT * FROM callbacks WHERE payload LIKE '%x%'")).toThrow(/full scan of callbacks/);
  });
});
