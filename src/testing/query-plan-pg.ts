// EXPLAIN (FORMAT JSON) checks on PostgreSQL, the counterpart of query-plan.ts (SQLite's EXPLAIN
// QUERY PLAN): a statement a store runs is planned with its own parameters, and the plan tree is
// walked for a sequential scan of a large table (LARGE_TABLES, shared with SQLite). The statements
// are the ones the stores really send: `recordingPool` wraps the Bun SQL pool drizzle and the
// lease claimer query through, and keeps each `unsafe(sql, params)` call.
import type { SQL } from "bun";
import { LARGE_TABLES } from "./query-plan";

/** One node of PostgreSQL's JSON plan (the fields the checks read; the rest is kept for messages). */
export interface PgPlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Plan Rows"?: number;
  Plans?: PgPlanNode[];
  [key: string]: unknown;
}

export interface RecordedStatement {
  sql: string;
  params: unknown[];
}

export interface PgSeekOptions {
  /** Tables treated as large (default LARGE_TABLES). */
  large?: readonly string[];
  /** Tables whose Seq Scan is accepted because the caller knows it is bounded. Say why in the test. */
  boundedScans?: readonly string[];
}

/** A pool whose every `unsafe` call (drizzle's bun-sql driver, cluster/leases.ts) is recorded before it runs. */
export function recordingPool(pool: SQL): { pool: SQL; statements: RecordedStatement[] } {
  const statements: RecordedStatement[] = [];
  // `unsafe` on the pool, and on a connection reserved from it (db/tx-pg-pipe.ts pipedStatement:
  // the callback claim's one round trip); tagged queries (BEGIN, SET LOCAL …) are not recorded.
  const recording = <T extends object>(target: T & Pick<SQL, "unsafe">): T =>
    new Proxy(target, {
      get(t, p, receiver) {
        if (p === "unsafe") {
          return (sql: string, params: unknown[] = []) => {
            statements.push({ sql, params });
            return t.unsafe(sql, params);
          };
        }
        if (p === "reserve" && t === (pool as object)) return async () => recording(await pool.reserve());
        const v = Reflect.get(t, p, receiver) as unknown;
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(t) : v;
      },
    });
  return { pool: recording(pool), statements };
}

/** The plan PostgreSQL would run for `sql` with `params` (EXPLAIN without ANALYZE: nothing is executed). */
export async function explainPg(pool: Pick<SQL, "unsafe">, sql: string, params: unknown[] = []): Promise<PgPlanNode> {
  const rows = (await pool.unsafe(`EXPLAIN (FORMAT JSON) ${sql}`, params)) as Array<Record<string, unknown>>;
  const raw = rows[0]!["QUERY PLAN"];
  const doc = (typeof raw === "string" ? JSON.parse(raw) : raw) as Array<{ Plan: PgPlanNode }>;
  return doc[0]!.Plan;
}

/** Every node of the plan, depth first (InitPlans and SubPlans are children too). */
export function planNodes(plan: PgPlanNode): PgPlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(planNodes)];
}

/** The reasons `plan` is not a seek on large tables (empty when it is). */
export function pgPlanProblems(plan: PgPlanNode, opts: PgSeekOptions = {}): string[] {
  const large = new Set(opts.large ?? LARGE_TABLES);
  const bounded = new Set(opts.boundedScans ?? []);
  return planNodes(plan)
    .filter((n) => n["Node Type"] === "Seq Scan" && large.has(n["Relation Name"] ?? "") && !bounded.has(n["Relation Name"]!))
    .map((n) => `sequential scan of ${n["Relation Name"]} (${n["Plan Rows"]} rows estimated)`);
}

/** Indented plan text, for failure messages. */
export function formatPgPlan(plan: PgPlanNode, depth = 1): string {
  const on = plan["Relation Name"] ? ` on ${plan["Relation Name"]}` : "";
  const idx = plan["Index Name"] ? ` using ${plan["Index Name"]}` : "";
  const self = `${"  ".repeat(depth)}${plan["Node Type"]}${idx}${on}`;
  return [self, ...(plan.Plans ?? []).map((p) => formatPgPlan(p, depth + 1))].join("\n");
}

/** Throws (with the plan) when the statement would scan a large table; returns the plan for more checks. */
export async function expectPgSeek(pool: Pick<SQL, "unsafe">, s: RecordedStatement, opts: PgSeekOptions = {}): Promise<PgPlanNode> {
  const plan = await explainPg(pool, s.sql, s.params);
  const problems = pgPlanProblems(plan, opts);
  if (problems.length) {
    throw new Error(`statement is not a seek:\n  ${problems.join("\n  ")}\nSQL: ${s.sql.replace(/\s+/g, " ").trim()}\nplan:\n${formatPgPlan(plan)}`);
  }
  return plan;
}

/** The indexes a plan uses (Index Scan, Index Only Scan, Bitmap Index Scan). */
export function indexesOf(plan: PgPlanNode): string[] {
  return planNodes(plan).flatMap((n) => (n["Index Name"] ? [n["Index Name"]] : []));
}
