// The batch payout file: results cells a spreadsheet shows as text, a row's optional cells, and a
// file refused as a whole (a BatchFileError by code and parameters, so the batches page shows its
// words in the page's language): what each refusal gives, table-driven.
import { expect, test } from "bun:test";
import Papa from "papaparse";
import { refusalOf } from "../testing/refusal";
import { MAX_FILE_BYTES, MAX_ROWS, parseBatchCsv, rowToInput, toCsv } from "./batch-csv";

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

const HEADER = "chainCode,tokenSymbol,toAddress,amount,merchantOrderNo";
const bytes = (s: string) => new TextEncoder().encode(s);

test.each([
  ["an empty file", new Uint8Array(0), "batch.empty", {}],
  ["a file over the size limit", new Uint8Array(MAX_FILE_BYTES + 1), "batch.too_large", { mb: 2 }],
  ["bytes that are not UTF-8", new Uint8Array([0x61, 0xff, 0xfe, 0x0a]), "batch.not_utf8", {}],
  ["blank lines only", bytes("\n\n"), "batch.no_header", {}],
  ["an unknown column", bytes(`${HEADER},memo\n`), "batch.unknown_columns", { columns: "memo", expected: `${HEADER},fromAddress,deleteSourceAfterSuccess` }],
  ["missing columns", bytes("chainCode,tokenSymbol,toAddress\nTRON,USDT,x\n"), "batch.missing_columns", { columns: "amount, merchantOrderNo" }],
  ["a column twice", bytes(`${HEADER},amount\n`), "batch.duplicate_column", { column: "amount" }],
  ["a header without rows", bytes(`${HEADER}\n`), "batch.no_rows", {}],
  ["too many rows", bytes(`${HEADER}\n` + "TRON,USDT,x,1,a\n".repeat(MAX_ROWS + 1)), "batch.too_many_rows", { rows: MAX_ROWS + 1, max: MAX_ROWS }],
] as const)("%s", async (_what, file, code, params) => {
  expect(await refusalOf(() => parseBatchCsv(file))).toMatchObject({ kind: "BatchFileError", code, params });
});

test("the English words stay the page's and the log's as before", async () => {
  await expect((async () => parseBatchCsv(bytes("chainCode\n")))()).rejects.toThrow("missing column(s): tokenSymbol, toAddress, amount, merchantOrderNo");
});
