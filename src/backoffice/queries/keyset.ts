// Back-office pages whose cost does not grow with the table (DESIGN 11 "Growth"):
// a list picks the ids of one page by index seeks in id order, below a keyset
// bound, and never sorts the matches. A filter the indexes cannot serve as one
// seek is split into arms (one seek each, e.g. one per status of a merchant)
// that SQLite merges in id order (MERGE (UNION ALL)), reading at most a page
// from each. Counts stop at COUNT_CAP ("1,000+"). The SQL is built here as text
// so the query-plan tests EXPLAIN exactly what runs.
import type { DbOrTx } from "../../db/client";

export interface Cond {
  sql: string;
  params: unknown[];
}
export const cond = (sql: string, ...params: unknown[]): Cond => ({ sql, params });

/**
 * One seek. `index` names the index it must use (INDEXED BY): with statistics, SQLite
 * judges `status = ?` on a column of few values unselective and walks the whole rowid
 * order instead, reading every row for a rare status; naming the index makes that a
 * seek, and a missing index an error rather than a silent scan.
 */
export interface Arm {
  index?: string;
  conds: Cond[];
  /** Its own id range instead of the query's (e.g. the late deposits above a date's range). */
  range?: { lo?: number; hi?: number };
}

export interface IdQuery {
  /** A table with an INTEGER PRIMARY KEY `id` (the rowid, which ends every index entry). */
  table: string;
  /** The key when it is not `id`: `rowid` for a table whose primary key is text (callbacks). */
  key?: string;
  /** Alternatives, each answered by one index seek in id order; the page merges them. */
  arms: Arm[];
  /**
   * Conditions checked on the rows the seeks reach (cheap: the seeks are in page order).
   * Write their columns as `+col` so the planner never seeks by them and then sorts.
   */
  rest: Cond[];
  /** Ids in [lo, hi): a date range turned into ids. */
  lo?: number;
  hi?: number;
}

export interface Statement {
  sql: string;
  params: unknown[];
}

/** Beyond any id: the first page's keyset bound (so even it is a range seek on the rowid). */
export const TOP = Number.MAX_SAFE_INTEGER;
export const COUNT_CAP = 1000;

function armSelect(q: IdQuery, arm: Arm, before: number): Statement {
  const { lo, hi } = arm.range ?? q;
  const key = q.key ?? "id";
  const conds = [...arm.conds, ...q.rest, cond(`${key} < ?`, Math.min(before, hi ?? TOP)), ...(lo !== undefined ? [cond(`${key} >= ?`, lo)] : [])];
  const from = arm.index ? `${q.table} INDEXED BY ${arm.index}` : q.table;
  return { sql: `SELECT ${key === "id" ? "id" : `${key} AS id`} FROM ${from} WHERE ${conds.map((c) => c.sql).join(" AND ")}`, params: conds.flatMap((c) => c.params) };
}

function union(parts: Statement[]): Statement {
  return { sql: parts.map((p) => p.sql).join(" UNION ALL "), params: parts.flatMap((p) => p.params) };
}

/** Up to `limit` ids below `before`, newest first. */
export function pageStatement(q: IdQuery, before: number, limit: number): Statement {
  const u = union(q.arms.map((a) => armSelect(q, a, before)));
  return { sql: `${u.sql} ORDER BY id DESC LIMIT ?`, params: [...u.params, limit] };
}

/** How many match, counting at most COUNT_CAP + 1. */
export function countStatement(q: IdQuery, cap = COUNT_CAP): Statement {
  const u = union(q.arms.map((a) => armSelect(q, a, TOP)));
  return { sql: `SELECT count(*) AS n FROM (${u.sql} LIMIT ?)`, params: [...u.params, cap + 1] };
}

export async function pickIds(db: DbOrTx, q: IdQuery, before: number | undefined, limit: number): Promise<number[]> {
  if (q.lo !== undefined && q.hi !== undefined && q.lo >= q.hi && !q.arms.some((a) => a.range)) return [];
  const s = pageStatement(q, before ?? TOP, limit);
  return db.$client
    .query<{ id: number }, never[]>(s.sql)
    .all(...(s.params as never[]))
    .map((r) => r.id);
}

/** The number of matches, or COUNT_CAP + 1 when there are more than COUNT_CAP. */
export async function countCapped(db: DbOrTx, q: IdQuery): Promise<number> {
  if (q.lo !== undefined && q.hi !== undefined && q.lo >= q.hi && !q.arms.some((a) => a.range)) return 0;
  const s = countStatement(q);
  return db.$client.query<{ n: number }, never[]>(s.sql).get(...(s.params as never[]))?.n ?? 0;
}

/** "12 found" / "1,000+ found". */
export const countLabel = (n: number) => (n > COUNT_CAP ? `${COUNT_CAP.toLocaleString("en-US")}+` : n.toLocaleString("en-US"));

/** Rows fetched by id come back in any order: newest first, as the ids were picked. */
export const newestFirst = <T extends { id: number }>(rows: T[]) => rows.sort((a, b) => b.id - a.id);

/**
 * The first id at or after a time, for a table whose rows are written in time
 * order: a binary search over the rowid by point reads (~21 for 2M rows), so a
 * date needs no index of its own. `at` must be that table's time column.
 */
export async function firstIdAtOrAfter(db: DbOrTx, table: string, at: string, ms: number, key = "id"): Promise<number | undefined> {
  const c = db.$client;
  const id = key;
  // Two queries: SQLite reads one end of the rowid for min() or max() alone, not for both at once.
  const bounds = {
    lo: c.query<{ v: number | null }, []>(`SELECT min(${id}) AS v FROM ${table}`).get()?.v ?? null,
    hi: c.query<{ v: number | null }, []>(`SELECT max(${id}) AS v FROM ${table}`).get()?.v ?? null,
  };
  if (bounds.lo === null || bounds.hi === null) return undefined;
  const timeAt = c.query<{ id: number; t: number }, [number]>(`SELECT ${id} AS id, ${at} AS t FROM ${table} WHERE ${id} >= ? ORDER BY ${id} LIMIT 1`);
  if (timeAt.get(bounds.hi)!.t < ms) return undefined;
  // The smallest x whose first row at or after it is at or after ms (monotone in x).
  let lo = bounds.lo;
  let hi = bounds.hi;
  while (lo < hi) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (timeAt.get(mid)!.t >= ms) hi = mid;
    else lo = mid + 1;
  }
  return timeAt.get(lo)?.id;
}
