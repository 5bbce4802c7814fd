// The rules of migrate-to-postgres that need no server: values converted exactly per column
// type, the copy order parents-first, which columns are amounts, and the per-table check.
import { describe, expect, test } from "bun:test";
import Big from "big.js";
import { compareTable, dependencyOrder, isAmountColumn, MoveRefused, pgValue } from "./move-to-pg";

describe("pgValue: a SQLite value as the PostgreSQL column wants it", () => {
  test.each([
    [1n, "boolean", true],
    [0n, "boolean", false],
    [null, "boolean", null],
    [9007199254740993n, "bigint", 9007199254740993n],
    ["123456789012345678901234567", "text", "123456789012345678901234567"],
    ["0.000001", "numeric", "0.000001"],
    [12n, "text", "12"],
  ] as const)("%p as %s", (v, type, want) => {
    expect(pgValue(v, type, "t.c")).toEqual(want);
  });

  test("a blob becomes bytea", () => {
    expect(pgValue(new Uint8Array([1, 2]), "bytea", "t.c")).toEqual(Buffer.from([1, 2]));
  });

  test.each([
    [2n, "boolean"],
    ["12", "bigint"],
    [new Uint8Array([1]), "text"],
  ] as const)("%p in a %s column is refused, naming where", (v, type) => {
    expect(() => pgValue(v, type, "payin_orders.x (row 3)")).toThrow(/payin_orders\.x \(row 3\)/);
  });
});

describe("dependencyOrder", () => {
  test("parents before children, then by name; a self reference is not a dependency", () => {
    const parents = new Map([
      ["payin_orders", new Set(["merchants", "addresses"])],
      ["addresses", new Set(["merchants"])],
      ["callbacks", new Set(["payin_orders"])],
    ]);
    expect(dependencyOrder(["callbacks", "payin_orders", "addresses", "merchants", "settings"], parents)).toEqual(["merchants", "addresses", "payin_orders", "callbacks", "settings"]);
  });

  test("a cycle is refused", () => {
    const parents = new Map([
      ["a", new Set(["b"])],
      ["b", new Set(["a"])],
    ]);
    expect(() => dependencyOrder(["a", "b"], parents)).toThrow(MoveRefused);
  });
});

test.each([
  ["amount", "text", true],
  ["paid_amount", "text", true],
  ["fee_balance", "text", true],
  ["payout_fee_fixed", "text", true],
  ["payout_fee_rate", "text", false],
  ["rent_lamports", "text", true],
  ["cost", "text", false],
  ["gas", "text", false],
  ["hi", "bigint", true],
  ["micro", "bigint", true],
  ["created_at", "bigint", false],
  ["amount", "boolean", false],
] as const)("isAmountColumn(%s, %s) = %p", (name, type, want) => {
  expect(isAmountColumn(name, type)).toBe(want);
});

describe("compareTable", () => {
  const src = (rows: number, sum: string) => ({ rows, sums: new Map([["amount", new Big(sum)]]) });
  test.each([
    [src(2, "30000000000000000000.5"), { rows: 2, sums: new Map([["amount", "30000000000000000000.5"]]) }, true],
    [src(2, "30000000000000000000"), { rows: 2, sums: new Map([["amount", "30000000000000000001"]]) }, false],
    [src(2, "5"), { rows: 1, sums: new Map([["amount", "5"]]) }, false],
  ])("exact decimal comparison (%#)", (s, t, ok) => {
    expect(compareTable("t", s, t).ok).toBe(ok);
  });
});
