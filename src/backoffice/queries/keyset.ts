// Back-office pages whose cost does not grow with the table (DESIGN 11 "Growth"):
// a list picks the ids of one page by index seeks in id order, below a keyset
// bound, and never sorts the matches. A filter the indexes cannot serve as one
// seek is split into arms (one seek each, e.g. one per status of a merchant)
// that SQLite merges in id order (MERGE (UNION ALL)), reading at most a page
// from each. Counts stop at COUNT_CAP ("1,000+"). The SQL is built here as text
// so the query-plan tests EXPLAIN exactly what runs.
//
// On PostgreSQL (DESIGN 22) the same IdQuery runs as one bounded seek per arm: each arm is its own
// `ORDER BY id DESC LIMIT n` on an index that ends in id (migrations/pg/0450), the arms' pages merged
// and cut to the page; `+col` (SQLite's "not this column's index") is plain `col` there, and the
// planner picks the index (no INDEXED BY).
import type { DbOrTx } from "../../db/client";
import { isPg, NotOnPostgres } from "../../db/engine";
import { rawAll, rawGet } from "../../db/raw";

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

/** SQLite's `+col` (keeps the planner off that column's index) as PostgreSQL's plain column. */
export const pgCond = (c: Cond): Cond => ({ sql: c.sql.replace(/\+(?=[a-z_])/g, ""), params: c.params });

/** One arm on PostgreSQL: its conditions and key range (no ordering). */
function pgArmWhere(q: IdQuery, arm: Arm, before: number): Statement {
  if (q.key && q.key !== "id") throw new NotOnPostgres(`backoffice/queries/keyset.ts: a list keyed by ${q.key} (${q.table})`);
  const { lo, hi } = arm.range ?? q;
  const conds = [...arm.conds, ...q.rest, cond("id < ?", Math.min(before, hi ?? TOP)), ...(lo !== undefined ? [cond("id >= ?", lo)] : [])].map(pgCond);
  return { sql: `SELECT id FROM ${q.table} WHERE ${conds.map((c) => c.sql).join(" AND ")}`, params: conds.flatMap((c) => c.params) };
}

/** PostgreSQL: up to `limit` ids below `before`, newest first; each arm a backward seek of at most `limit` ids, the arms merged. */
export function pgPageStatement(q: IdQuery, before: number, limit: number): Statement {
  const arms = q.arms.map((a) => pgArmWhere(q, a, before));
  if (arms.length === 1) return { sql: `${arms[0]!.sql} ORDER BY id DESC LIMIT ?`, params: [...arms[0]!.params, limit] };
  const u = union(arms.map((a) => ({ sql: `(${a.sql} ORDER BY id DESC LIMIT ?)`, params: [...a.params, limit] })));
  return { sql: `SELECT id FROM (${u.sql}) AS arms ORDER BY id DESC LIMIT ?`, params: [...u.params, limit] };
}

/** PostgreSQL: how many match, counting at most COUNT_CAP + 1. */
export function pgCountStatement(q: IdQuery, cap = COUNT_CAP): Statement {
  // Each arm read newest first and cut at the cap: a bounded backward scan of its index even for a common value.
  const u = union(q.arms.map((a) => pgArmWhere(q, a, TOP)).map((a) => ({ sql: `(${a.sql} ORDER BY id DESC LIMIT ?)`, params: [...a.params, cap + 1] })));
  return { sql: `SELECT count(*) AS n FROM (SELECT 1 FROM (${u.sql}) AS arms LIMIT ?) AS matches`, params: [...u.params, cap + 1] };
}

export async function pickIds(db: DbOrTx, q: IdQuery, before: number | undefined, limit: number): Promise<number[]> {
  if (q.lo !== undefined && q.hi !== undefined && q.lo >= q.hi && !q.arms.some((a) => a.range)) return [];
  const s = isPg(db) ? pgPageStatement(q, before ?? TOP, limit) : pageStatement(q, before ?? TOP, limit);
  return (await rawAll<{ id: number | string }>(db, s.sql, s.params)).map((r) => Number(r.id));
}

/** The number of matches, or COUNT_CAP + 1 when there are more than COUNT_CAP. */
export async function countCapped(db: DbOrTx, q: IdQuery): Promise<number> {
  if (q.lo !== undefined && q.hi !== undefined && q.lo >= q.hi && !q.arms.some((a) => a.range)) return 0;
  const s = isPg(db) ? pgCountStatement(q) : countStatement(q);
  return Number((await rawGet<{ n: number | string }>(db, s.sql, s.params))?.n ?? 0);
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
  if (isPg(db) && key !== "id") throw new NotOnPostgres(`backoffice/queries/keyset.ts: a date range keyed by ${key} (${table})`);
  const id = key;
  const num = (v: number | string | null | undefined) => (v === null || v === undefined ? null : Number(v));
  // Two queries: SQLite reads one end of the rowid for min() or max() alone, not for both at once.
  const bounds = {
    lo: num((await rawGet<{ v: number | string | null }>(db, `SELECT min(${id}) AS v FROM ${table}`))?.v),
    hi: num((await rawGet<{ v: number | string | null }>(db, `SELECT max(${id}) AS v FROM ${table}`))?.v),
  };
  if (bounds.lo === null || bounds.hi === null) return undefined;
  const timeAt = async (x: number) => {
    const r = await rawGet<{ id: number | string; t: number | string }>(db, `SELECT ${id} AS id, ${at} AS t FROM ${table} WHERE ${id} >= ? ORDER BY ${id} LIMIT 1`, [x]);
    return r && { id: Number(r.id), t: Number(r.t) };
  };
  if ((await timeAt(bounds.hi))!.t < ms) return undefined;
  // The smallest x whose first row at or after it is at or after ms (monotone in x).
  let lo = bounds.lo;
  let hi = bounds.hi;
  while (lo < hi) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if ((await timeAt(mid))!.t >= ms) hi = mid;
    else lo = mid + 1;
  }
  return (await timeAt(lo))?.id;
}
