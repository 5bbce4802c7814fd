// EXPLAIN QUERY PLAN checks for queries that must stay a seek as the tables
// grow (DESIGN 11 "Growth"): a test names the query, this fails it when SQLite
// would scan a large table, sort or de-duplicate through a temporary b-tree,
// or build an automatic index (a scan in disguise).
import type { Database } from "bun:sqlite";

/** Tables that grow with orders, callbacks or time. A scan of any of them is a bug on a hot or paged path. */
export const LARGE_TABLES: readonly string[] = [
  "payin_orders",
  "transfers",
  "payout_orders",
  "ledger_entries",
  "address_balances",
  "fee_entries",
  "balance_checks",
  "gas_topups",
  "callbacks",
  "callback_attempts",
  "order_events",
  "audit_log",
  "nonces",
  "addresses",
  "bindings",
  "alert_notifications",
  "payout_batch_rows",
  "collection_legs",
  "sandbox_blocks",
  "sandbox_transfers",
  "sol_token_accounts",
];

export interface PlanRow {
  id: number;
  parent: number;
  detail: string;
}

/** Raw SQL, or anything with drizzle's `toSQL()` (a query builder before it runs). */
export type PlannedQuery = string | { toSQL(): { sql: string; params: unknown[] } };

type DbLike = Database | { $client: Database };

export interface SeekOptions {
  /** Tables treated as large (default LARGE_TABLES). */
  large?: readonly string[];
  /**
   * Tables whose SCAN is accepted because the caller knows it is bounded
   * (e.g. `ORDER BY id DESC LIMIT 50` walks the rowid from the end and stops).
   * Say why in the test.
   */
  boundedScans?: readonly string[];
  /** Accept `USE TEMP B-TREE` (e.g. ordering a result already capped by a seek). Say why in the test. */
  allowTempBTree?: boolean;
}

function client(db: DbLike): Database {
  return "$client" in db ? db.$client : db;
}

function sqlOf(q: PlannedQuery): { sql: string; params: unknown[] } {
  return typeof q === "string" ? { sql: q, params: [] } : q.toSQL();
}

/** The plan rows SQLite reports for `query` (parameters are not needed for a plan; they are bound when given). */
export function queryPlan(db: DbLike, query: PlannedQuery, params?: unknown[]): PlanRow[] {
  const { sql, params: own } = sqlOf(query);
  const bind = (params ?? own) as never[];
  const stmt = client(db).prepare(`EXPLAIN QUERY PLAN ${sql}`);
  try {
    return (bind.length ? stmt.all(...bind) : stmt.all()) as PlanRow[];
  } catch (e) {
    // Unbound named parameters in strict mode: plan without values.
    if (bind.length) throw e;
    return stmt.all() as PlanRow[];
  } finally {
    stmt.finalize();
  }
}

const NOT_ALIAS = new Set([
  "where", "on", "join", "left", "right", "inner", "outer", "cross", "natural", "order", "group", "limit",
  "using", "set", "values", "indexed", "not", "union", "except", "intersect", "having", "window", "returning",
]);

/** alias -> table, from the FROM/JOIN/UPDATE/INTO clauses of `sql` (plans name a table by its alias). */
export function aliases(sql: string): Map<string, string> {
  const map = new Map<string, string>();
  const re = /\b(?:from|join|update|into)\s+[`"]?(\w+)[`"]?(?:\s+(?:as\s+)?[`"]?(\w+)[`"]?)?/gi;
  for (const m of sql.matchAll(re)) {
    const table = m[1]!.toLowerCase();
    map.set(table, table);
    const alias = m[2]?.toLowerCase();
    if (alias && !NOT_ALIAS.has(alias)) map.set(alias, table);
  }
  return map;
}

/** The reasons `plan` is not a seek on large tables (empty when it is). */
export function planProblems(plan: PlanRow[], sql: string, opts: SeekOptions = {}): string[] {
  const large = new Set(opts.large ?? LARGE_TABLES);
  const bounded = new Set(opts.boundedScans ?? []);
  const names = aliases(sql);
  const problems: string[] = [];
  for (const { detail } of plan) {
    const scan = /^SCAN (\w+)/.exec(detail);
    if (scan) {
      const table = names.get(scan[1]!.toLowerCase()) ?? scan[1]!.toLowerCase();
      if (large.has(table) && !bounded.has(table)) problems.push(`full scan of ${table}: ${detail}`);
    }
    if (/AUTOMATIC/.test(detail)) problems.push(`automatic index (no usable index): ${detail}`);
    if (/USE TEMP B-TREE/.test(detail) && !opts.allowTempBTree) problems.push(`sort/dedupe in a temp b-tree: ${detail}`);
  }
  return problems;
}

/** Indented plan text, for failure messages. */
export function formatPlan(plan: PlanRow[]): string {
  const depth = new Map<number, number>([[0, 0]]);
  return plan
    .map((r) => {
      const d = (depth.get(r.parent) ?? 0) + 1;
      depth.set(r.id, d);
      return `${"  ".repeat(d)}${r.detail}`;
    })
    .join("\n");
}

/**
 * Throws (with the plan) unless `query` seeks: no SCAN of a large table, no
 * temp b-tree, no automatic index. Returns the plan for further checks
 * (e.g. that a named index is used).
 */
export function expectSeek(db: DbLike, query: PlannedQuery, opts: SeekOptions = {}): PlanRow[] {
  const { sql } = sqlOf(query);
  const plan = queryPlan(db, query);
  const problems = planProblems(plan, sql, opts);
  if (problems.length) {
    throw new Error(`query is not a seek:\n  ${problems.join("\n  ")}\nSQL: ${sql.replace(/\s+/g, " ").trim()}\nplan:\n${formatPlan(plan)}`);
  }
  return plan;
}

/** Throws unless the plan uses `index` (by name; "a|b" accepts either of two equivalent indexes) somewhere. */
export function expectIndex(plan: PlanRow[], index: string): void {
  if (!plan.some((r) => new RegExp(`\\bINDEX (?:${index})\\b`).test(r.detail))) {
    throw new Error(`plan does not use index ${index}:\n${formatPlan(plan)}`);
  }
}
