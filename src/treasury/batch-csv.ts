// The batch payout file (DESIGN 13): UTF-8 CSV, header
// chainCode,tokenSymbol,toAddress,amount,merchantOrderNo [,fromAddress][,deleteSourceAfterSuccess],
// at most 5,000 rows. Parsing (papaparse) and turning a row into the payout
// API's input; the API's own rules then judge it (src/treasury/batch.ts).
import Papa from "papaparse";
import { DomainError } from "../errors";

export const REQUIRED_COLUMNS = ["chainCode", "tokenSymbol", "toAddress", "amount", "merchantOrderNo"] as const;
export const OPTIONAL_COLUMNS = ["fromAddress", "deleteSourceAfterSuccess"] as const;
export const MAX_ROWS = 5000;
export const MAX_FILE_BYTES = 2 << 20;

/** The whole file is unusable (no row is judged): a code of src/errors.ts DOMAIN_ERRORS with its parameters. */
export class BatchFileError extends DomainError {}

export interface CsvRow {
  rowNo: number;
  /** Columns as uploaded (trimmed). */
  fields: Record<string, string>;
  /** A row whose shape is wrong (field count), judged 10001 without further checks. */
  shapeError?: string;
}

export function parseBatchCsv(bytes: Uint8Array): CsvRow[] {
  if (bytes.byteLength === 0) throw new BatchFileError("batch.empty");
  if (bytes.byteLength > MAX_FILE_BYTES) throw new BatchFileError("batch.too_large", { mb: MAX_FILE_BYTES >> 20 });
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new BatchFileError("batch.not_utf8");
  }
  const parsed = Papa.parse<string[]>(text, { skipEmptyLines: "greedy" });
  const [header, ...data] = parsed.data;
  if (!header) throw new BatchFileError("batch.no_header");
  const cols = header.map((h) => h.trim());
  const known = new Set<string>([...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS]);
  const unknown = cols.filter((c) => !known.has(c));
  if (unknown.length) throw new BatchFileError("batch.unknown_columns", { columns: unknown.join(", "), expected: [...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS].join(",") });
  const missing = REQUIRED_COLUMNS.filter((c) => !cols.includes(c));
  if (missing.length) throw new BatchFileError("batch.missing_columns", { columns: missing.join(", ") });
  const dup = cols.find((c, i) => cols.indexOf(c) !== i);
  if (dup) throw new BatchFileError("batch.duplicate_column", { column: dup });
  if (data.length === 0) throw new BatchFileError("batch.no_rows");
  if (data.length > MAX_ROWS) throw new BatchFileError("batch.too_many_rows", { rows: data.length, max: MAX_ROWS });
  return data.map((cells, i) => {
    const fields: Record<string, string> = {};
    cols.forEach((c, j) => (fields[c] = (cells[j] ?? "").trim()));
    const row: CsvRow = { rowNo: i + 1, fields };
    if (cells.length !== cols.length) row.shapeError = `row has ${cells.length} fields, the header has ${cols.length}`;
    return row;
  });
}

/**
 * The payout API's body for a row: empty optional cells are omitted;
 * deleteSourceAfterSuccess accepts true/false (any case). Anything else is
 * passed through as is so the API's schema names the problem.
 */
export function rowToInput(fields: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of REQUIRED_COLUMNS) out[c] = fields[c] ?? "";
  if (fields.fromAddress) out.fromAddress = fields.fromAddress;
  const d = fields.deleteSourceAfterSuccess?.toLowerCase();
  if (d === "true" || d === "false") out.deleteSourceAfterSuccess = d === "true";
  else if (d) out.deleteSourceAfterSuccess = fields.deleteSourceAfterSuccess;
  return out;
}

export function toCsv(header: string[], rows: Array<Array<string | number | null>>): string {
  return Papa.unparse({ fields: header, data: rows.map((r) => r.map((v) => (v === null ? "" : String(v)))) }, { newline: "\n", escapeFormulae: true }) + "\n";
}
