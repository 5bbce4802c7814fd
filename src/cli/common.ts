// Shared bits of the CLI command groups.

export type CliFlags = Record<string, string | true>;

/**
 * A refusal the user can fix (bad arguments, invalid transition): the message goes to stderr,
 * with a pointer to `stablegate COMMAND --help`, and the exit code is 2.
 */
export class CliUsageError extends Error {}

type Cell = string | number | boolean | null | undefined;

/**
 * A list for people (issue 30): a header row, then one row per item in aligned columns; an empty
 * list says so in words (`empty`). Scripts use `--json`, whose output this never changes.
 */
export function formatTable(head: readonly string[], rows: readonly (readonly Cell[])[], empty: string): string {
  if (!rows.length) return empty;
  const text = (c: Cell) => (c === null || c === undefined || c === "" ? "-" : String(c));
  const cells = [head.map((h) => h.toUpperCase()), ...rows.map((r) => r.map(text))];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ").trimEnd()).join("\n");
}

export function printTable(head: readonly string[], rows: readonly (readonly Cell[])[], empty: string): void {
  console.log(formatTable(head, rows, empty));
}

/** The pointer a runtime error ends with: where that command's usage is. */
export const helpPointer = (cmd: string) => `(stablegate ${cmd} --help shows its usage)`;
