// A state machine's status list as SQL text, spelled as the partial indexes of migrations/ spell
// their predicates (`= 'x'` for one status, `IN ('x', 'y')` for more): SQLite matches a partial
// index by the text of the terms, so a statement built from a domain's state.ts lists still uses
// the index. The lists themselves live in each domain's state.ts.

const quoted = (statuses: readonly string[]) => statuses.map((s) => `'${s}'`).join(", ");

/** The term after the column: `= 'x'`, or `IN ('x', 'y')`. */
export function statusTerm(statuses: readonly string[]): string {
  return statuses.length === 1 ? `= '${statuses[0]}'` : `IN (${quoted(statuses)})`;
}

/** The condition `column = 'x'` / `column IN ('x', 'y')`. */
export function statusSql(column: string, statuses: readonly string[]): string {
  return `${column} ${statusTerm(statuses)}`;
}

/** The negated condition `column != 'x'` / `column NOT IN ('x', 'y')`. */
export function notStatusSql(column: string, statuses: readonly string[]): string {
  return statuses.length === 1 ? `${column} != '${statuses[0]}'` : `${column} NOT IN (${quoted(statuses)})`;
}
