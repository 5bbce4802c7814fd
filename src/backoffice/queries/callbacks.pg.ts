// queries/callbacks.ts on PostgreSQL. The outbox's key is a text event id and PostgreSQL has no
// rowid, so the page is keyed by creation time: newest first by (created_at, id), `before` a
// created_at in ms. Each arm (the same seeks as SQLite's: one order's events, merchant and state,
// state, or every event) is a backward scan of callbacks_list_time / _state / _merchant
// (migrations/pg/0450: created_at, id last), at most a page each, merged. A page whose last time
// is shared by the rows after it takes all of them (so the next page, `created_at < before`, skips
// none): a page may then be a few rows longer than asked, never shorter, and the walk to the end
// has every matching event once, as on SQLite.
import { sql } from "drizzle-orm";
import { UNDELIVERED } from "../../callbacks/state";
import type { PgQ } from "../../db/engine";
import { pgStatement } from "../../db/raw";
import { statusSql } from "../../db/status-sql";
import type { CallbackListRow, LastAttempt } from "./callbacks";
import { COUNT_CAP, type Cond, TOP } from "./keyset";

export interface TimeQuery {
  /** Alternatives (each one seek), merged. */
  arms: Cond[][];
  /** Checked on the rows the seeks reach. */
  rest: Cond[];
}

const where = (conds: Cond[]) => ({ sql: conds.length ? conds.map((c) => c.sql).join(" AND ") : "true", params: conds.flatMap((c) => c.params) });

async function rowsOf<T>(db: PgQ, text: string, params: unknown[]): Promise<T[]> {
  return (await db.execute(pgStatement(text, params))) as unknown as T[];
}

/** Up to `limit` (event id, created_at) newest first among those with `time` (a created_at condition). */
async function pick(db: PgQ, q: TimeQuery, time: Cond, limit: number | null): Promise<{ id: string; t: number }[]> {
  const lim = limit === null ? "" : " LIMIT ?";
  const parts = q.arms.map((arm) => {
    const w = where([...arm, ...q.rest, time]);
    return { sql: `(SELECT id, created_at FROM callbacks WHERE ${w.sql} ORDER BY created_at DESC, id DESC${lim})`, params: limit === null ? w.params : [...w.params, limit] };
  });
  const text = `SELECT id, created_at FROM (${parts.map((p) => p.sql).join(" UNION ALL ")}) AS arms ORDER BY created_at DESC, id DESC${lim}`;
  const params = [...parts.flatMap((p) => p.params), ...(limit === null ? [] : [limit])];
  return (await rowsOf<{ id: string; created_at: string | number }>(db, text, params)).map((r) => ({ id: r.id, t: Number(r.created_at) }));
}

/** One page: the event ids newest first and the next page's `before` (a created_at), or null at the end. */
export async function pickCallbackPage(db: PgQ, q: TimeQuery, before: number | undefined, limit: number): Promise<{ ids: string[]; nextBefore: number | null }> {
  const got = await pick(db, q, { sql: "created_at < ?", params: [Math.min(before ?? TOP, TOP)] }, limit + 1);
  if (got.length <= limit) return { ids: got.map((r) => r.id), nextBefore: null };
  const edge = got[limit - 1]!.t;
  if (got[limit]!.t !== edge) return { ids: got.slice(0, limit).map((r) => r.id), nextBefore: edge };
  // The rows after the page share its last time: all of that millisecond goes on this page.
  const newer = got.filter((r) => r.t > edge).map((r) => r.id);
  const tied = (await pick(db, q, { sql: "created_at = ?", params: [edge] }, null)).map((r) => r.id);
  const more = await pick(db, q, { sql: "created_at < ?", params: [edge] }, 1);
  return { ids: [...newer, ...tied], nextBefore: more.length ? edge : null };
}

/** How many match, counting at most COUNT_CAP + 1. */
export async function countCallbacks(db: PgQ, q: TimeQuery): Promise<number> {
  const parts = q.arms.map((arm) => where([...arm, ...q.rest]));
  // Each arm newest first and cut at the cap: a bounded backward scan of its index even for a common value.
  const text = `SELECT count(*) AS n FROM (SELECT 1 FROM (${parts.map((p) => `(SELECT 1 FROM callbacks WHERE ${p.sql} ORDER BY created_at DESC, id DESC LIMIT ?)`).join(" UNION ALL ")}) AS arms LIMIT ?) AS matches`;
  return Number((await rowsOf<{ n: string | number }>(db, text, [...parts.flatMap((p) => [...p.params, COUNT_CAP + 1]), COUNT_CAP + 1]))[0]?.n ?? 0);
}

/** The earliest undelivered event of the order before this one, in the worker's order (created_at, id). */
export const WAITING_BEHIND_PG = `SELECT id FROM callbacks WHERE order_no = ? AND (created_at, id) < (?, ?) AND ${statusSql("state", UNDELIVERED)} ORDER BY created_at, id LIMIT 1`;

/** The rows of these events, newest first; `id` is the row's created_at (the page's key on PostgreSQL). */
export async function callbacksByEventId(db: PgQ, eventIds: string[]): Promise<CallbackListRow[]> {
  if (!eventIds.length) return [];
  type Raw = Omit<CallbackListRow, "id" | "lastAttempt" | "waitingBehind" | "attempts" | "nextAttemptAt" | "createdAt" | "updatedAt"> & Record<"attempts" | "nextAttemptAt" | "createdAt" | "updatedAt", string | number>;
  const rows = await rowsOf<Raw>(
    db,
    `SELECT c.id AS "eventId", m.uid AS "merchantUid", c.kind, c.order_no AS "orderNo", c.order_status AS status, c.state, c.attempts,
            c.next_attempt_at AS "nextAttemptAt", c.url, m.default_callback_url AS "defaultUrl", c.last_error AS "lastError", c.created_at AS "createdAt", c.updated_at AS "updatedAt"
     FROM callbacks c JOIN merchants m ON m.id = c.merchant_id WHERE c.id IN (${eventIds.map(() => "?").join(", ")})`,
    eventIds,
  );
  const out: CallbackListRow[] = [];
  for (const r of rows) {
    const row = { ...r, attempts: Number(r.attempts), nextAttemptAt: Number(r.nextAttemptAt), createdAt: Number(r.createdAt), updatedAt: Number(r.updatedAt) };
    const last =
      row.attempts > 0 || row.state !== "pending"
        ? (await db.execute(sql`SELECT url, http_status AS "httpStatus", error, started_at AS "startedAt" FROM callback_attempts WHERE callback_id = ${row.eventId} ORDER BY id DESC LIMIT 1`))[0]
        : undefined;
    const behind = row.state === "pending" ? (await rowsOf<{ id: string }>(db, WAITING_BEHIND_PG, [row.orderNo, row.createdAt, row.eventId]))[0] : undefined;
    out.push({
      ...row,
      id: row.createdAt,
      lastAttempt: last ? { ...(last as unknown as LastAttempt), httpStatus: numOrNull((last as Record<string, unknown>).httpStatus), startedAt: Number((last as Record<string, unknown>).startedAt) } : null,
      waitingBehind: behind?.id ?? null,
    });
  }
  return out.sort((a, b) => b.createdAt - a.createdAt || (a.eventId < b.eventId ? 1 : -1));
}

const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));
