// The callbacks page (issue 30): every event of the outbox with its state, target, attempts and
// last error, filtered by state, merchant, business type, order and date, newest first, paged by
// keyset on the rowid (callbacks has a text primary key; the rowid ends every index entry) and
// counted up to COUNT_CAP, like the other lists (queries/keyset.ts).
import { CALLBACK_STATES as DB_STATES, type CallbackDeliveryState, UNDELIVERED } from "../../callbacks/state";
import { type DbOrTx, readDb } from "../../db/client";
import { statusSql } from "../../db/status-sql";
import { parseFilter, type Scope } from "./filters";
import { type Arm, cond, type Cond, countCapped, firstIdAtOrAfter, type IdQuery, pgCond, pickIds } from "./keyset";
import { isPg, pgOf, pgSide } from "../../db/engine";
import { merchantOf, type Page, PAGE_SIZE, pageOf } from "./lists";
import type { TimeQuery } from "./callbacks.pg";

const pg = pgSide<typeof import("./callbacks.pg")>(() => require("./callbacks.pg"));

/**
 * The states the page filters on and shows. The outbox's `pending` is two of them: `queued`
 * (never tried) and `retrying` (tried, due again at next_attempt_at); `failed` reads "gave up".
 */
export const CALLBACK_STATES = ["queued", "retrying", "sending", "delivered", "failed", "held"] as const;
export type CallbackState = (typeof CALLBACK_STATES)[number];
export const STATE_LABELS: Record<CallbackState, string> = { queued: "queued", retrying: "retrying", sending: "sending", delivered: "delivered", failed: "gave up", held: "held" };
/** The outbox's own states (callbacks.state) are callbacks/state.ts's (imported as DB_STATES). */
const DB_STATE: Record<CallbackState, CallbackDeliveryState> = { queued: "pending", retrying: "pending", sending: "delivering", delivered: "delivered", failed: "failed", held: "held" };
export const BUSINESS_TYPES = ["payin", "payout", "invoice", "test"] as const;

export interface CallbackFilter {
  merchant?: string;
  state?: CallbackState;
  type?: (typeof BUSINESS_TYPES)[number];
  /** One order's (or invoice's) events. */
  order?: string;
  fromMs?: number;
  toMs?: number;
  raw: Record<string, string>;
}

export function parseCallbackFilter(q: Record<string, string | undefined>): CallbackFilter {
  // Merchant and dates as every list parses them.
  const base = parseFilter({ merchant: q.merchant, from: q.from, to: q.to }, []);
  const f: CallbackFilter = { merchant: base.merchant, fromMs: base.fromMs, toMs: base.toMs, raw: { ...base.raw } };
  const state = (q.state ?? "").trim();
  if ((CALLBACK_STATES as readonly string[]).includes(state)) f.state = state as CallbackState;
  if (state) f.raw.state = state.slice(0, 32);
  const type = (q.type ?? "").trim();
  if ((BUSINESS_TYPES as readonly string[]).includes(type)) f.type = type as CallbackFilter["type"];
  if (type) f.raw.type = type.slice(0, 32);
  const order = (q.order ?? "").trim();
  if (/^[A-Z]{2}[0-9]{1,30}$/.test(order)) f.order = order;
  if (order) f.raw.order = order.slice(0, 40);
  return f;
}

/**
 * Events are written in time order, so a date range becomes a rowid range (a binary search over
 * the rowid); the margin covers rows committed a few moments out of order, and `created_at`
 * keeps the rows exact.
 */
const ROWID_MARGIN_MS = 10 * 60_000;

/** The list's seeks: one order's events (callbacks_order), or by merchant and state (migrations/0230). */
function callbackSeeks(merchantId: number | null, f: CallbackFilter): { arms: Arm[]; rest: Cond[] } {
  const rest: Cond[] = [];
  const dbState = f.state ? DB_STATE[f.state] : undefined;
  if (f.state === "queued") rest.push(cond("+attempts = 0"));
  if (f.state === "retrying") rest.push(cond("+attempts > 0"));
  if (f.type) rest.push(cond("+kind = ?", f.type));
  if (f.fromMs !== undefined) rest.push(cond("+created_at >= ?", f.fromMs));
  if (f.toMs !== undefined) rest.push(cond("+created_at < ?", f.toMs));
  let arms: Arm[];
  if (f.order) {
    arms = [{ index: "callbacks_order", conds: [cond("order_no = ?", f.order)] }];
    if (merchantId !== null) rest.push(cond("+merchant_id = ?", merchantId));
    if (dbState) rest.push(cond("+state = ?", dbState));
  } else if (merchantId !== null && dbState) arms = [{ index: "callbacks_list_merchant", conds: [cond("merchant_id = ?", merchantId), cond("state = ?", dbState)] }];
  else if (merchantId !== null) arms = DB_STATES.map((s) => ({ index: "callbacks_list_merchant", conds: [cond("merchant_id = ?", merchantId), cond("state = ?", s)] }));
  else if (dbState) arms = [{ index: "callbacks_list_state", conds: [cond("state = ?", dbState)] }];
  else arms = [{ conds: [] }];
  return { arms, rest };
}

export async function callbackQuery(db: DbOrTx, scope: Scope, f: CallbackFilter): Promise<IdQuery> {
  const { arms, rest } = callbackSeeks(await merchantOf(db, scope, f), f);
  const lo = f.fromMs === undefined ? undefined : (await firstIdAtOrAfter(db, "callbacks", "created_at", f.fromMs - ROWID_MARGIN_MS, "rowid") ?? Number.MAX_SAFE_INTEGER);
  const hi = f.toMs === undefined ? undefined : await firstIdAtOrAfter(db, "callbacks", "created_at", f.toMs + ROWID_MARGIN_MS, "rowid");
  return { table: "callbacks", key: "rowid", arms, rest, lo, hi };
}

/** The same seeks on PostgreSQL, keyed by created_at there (callbacks.pg.ts): the dates are conditions of the seeks. */
export async function callbackTimeQuery(db: DbOrTx, scope: Scope, f: CallbackFilter): Promise<TimeQuery> {
  const { arms, rest } = callbackSeeks(await merchantOf(db, scope, f), f);
  return { arms: arms.map((a) => a.conds.map(pgCond)), rest: rest.map(pgCond) };
}

export interface LastAttempt {
  url: string | null;
  httpStatus: number | null;
  error: string | null;
  startedAt: number;
}

export interface CallbackListRow {
  /** The rowid: the page's keyset. */
  id: number;
  eventId: string;
  merchantUid: string;
  kind: string;
  orderNo: string;
  /** The order status the event reports. */
  status: string;
  /** The outbox state (pending, delivering, delivered, failed, held). */
  state: string;
  attempts: number;
  nextAttemptAt: number;
  url: string | null;
  /** The merchant's default callback URL now (where an event without its own URL goes). */
  defaultUrl: string | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
  lastAttempt: LastAttempt | null;
  /** The earlier unfinished event of the same order this one waits behind (events of an order go out in order). */
  waitingBehind: string | null;
}

/** The earliest undelivered event of the order before this one (callbacks/state.ts UNDELIVERED; callbacks.test.ts holds the text). */
export const WAITING_BEHIND = `SELECT id FROM callbacks WHERE order_no = ? AND rowid < ? AND ${statusSql("state", UNDELIVERED)} ORDER BY rowid LIMIT 1`;

/** The rows of these rowids, newest first, with each one's last attempt and what a pending one waits behind. */
export async function callbacksByRowid(db: DbOrTx, ids: number[]): Promise<CallbackListRow[]> {
  if (!ids.length) return [];
  const c = readDb(db).$client;
  const rows = c
    .query<Omit<CallbackListRow, "lastAttempt" | "waitingBehind">, number[]>(
      `SELECT c.rowid AS id, c.id AS eventId, m.uid AS merchantUid, c.kind, c.order_no AS orderNo, c.order_status AS status, c.state, c.attempts,
              c.next_attempt_at AS nextAttemptAt, c.url, m.default_callback_url AS defaultUrl, c.last_error AS lastError, c.created_at AS createdAt, c.updated_at AS updatedAt
       FROM callbacks c JOIN merchants m ON m.id = c.merchant_id WHERE c.rowid IN (${ids.map(() => "?").join(", ")})`,
    )
    .all(...ids);
  // Each a seek on the event's key, newest entry first (attempts_callback ends with the attempt's id).
  const last = c.query<LastAttempt, [string]>(
    `SELECT url, http_status AS httpStatus, error, started_at AS startedAt FROM callback_attempts WHERE callback_id = ? ORDER BY id DESC LIMIT 1`,
  );
  const behind = c.query<{ id: string }, [string, number]>(WAITING_BEHIND);
  return rows
    .sort((a, b) => b.id - a.id)
    .map((r) => ({
      ...r,
      lastAttempt: r.attempts > 0 || r.state !== "pending" ? (last.get(r.eventId) ?? null) : null,
      waitingBehind: r.state === "pending" ? (behind.get(r.orderNo, r.id)?.id ?? null) : null,
    }));
}

export async function listCallbackEvents(db: DbOrTx, scope: Scope, f: CallbackFilter, page: { before?: number; limit?: number } = {}): Promise<Page<CallbackListRow>> {
  const limit = page.limit ?? PAGE_SIZE;
  if (isPg(db)) {
    const picked = await pg.pickCallbackPage(pgOf(db), await callbackTimeQuery(db, scope, f), page.before, limit);
    return { rows: await pg.callbacksByEventId(pgOf(db), picked.ids), nextBefore: picked.nextBefore };
  }
  return await pageOf(await pickIds(db, await callbackQuery(db, scope, f), page.before, limit + 1), limit, async (ids) => await callbacksByRowid(db, ids));
}

/** Matching events, counted up to COUNT_CAP + 1. */
export async function countCallbackEvents(db: DbOrTx, scope: Scope, f: CallbackFilter): Promise<number> {
  if (isPg(db)) return await pg.countCallbacks(pgOf(db), await callbackTimeQuery(db, scope, f));
  return await countCapped(db, await callbackQuery(db, scope, f));
}
