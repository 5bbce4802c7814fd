import { expect, test } from "bun:test";
import Papa from "papaparse";
import { rowToInput, toCsv } from "./batch-csv";

test.each([
  ["=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"],
  ["+1", "'+1"],
  ["-1", "'-1"],
  ["@SUM(A1)", "'@SUM(A1)"],
  ["plain, with comma", "plain, with comma"],
])("results cell %p is written so a spreadsheet shows it as text", (cell, shown) => {
  const csv = toCsv(["a"], [[cell]]);
  expect(Papa.parse<string[]>(csv.trim()).data[1]).toEqual([shown]);
});

test.each([
  [{ deleteSourceAfterSuccess: "" }, {}],
  [{ deleteSourceAfterSuccess: "TRUE" }, { deleteSourceAfterSuccess: true }],
  [{ deleteSourceAfterSuccess: "false" }, { deleteSourceAfterSuccess: false }],
  [{ deleteSourceAfterSuccess: "1" }, { deleteSourceAfterSuccess: "1" }],
  [{ fromAddress: "" }, {}],
  [{ fromAddress: "TX" }, { fromAddress: "TX" }],
])("optional cells of a row, case %#", (extra, want) => {
  const base = { chainCode: "TRON", tokenSymbol: "USDT", toAddress: "T1", amount: "1", merchantOrderNo: "A" };
  expect(rowToInput({ ...base, ...extra })).toEqual({ ...base, ...want });
});
