// A status list as SQL text, spelled as the partial indexes of migrations/ spell their predicates.
import { expect, test } from "bun:test";
import { notStatusSql, statusSql, statusTerm } from "./status-sql";

test("one status is an equality, more are a list", () => {
  expect(statusTerm(["a"])).toBe("= 'a'");
  expect(statusSql("t.status", ["a"])).toBe("t.status = 'a'");
  expect(statusSql("status", ["a", "b"])).toBe("status IN ('a', 'b')");
  expect(notStatusSql("status", ["a"])).toBe("status != 'a'");
  expect(notStatusSql("status", ["a", "b"])).toBe("status NOT IN ('a', 'b')");
});
