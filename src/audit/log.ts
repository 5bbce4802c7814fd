// The append-only audit log (DESIGN 2, 12): every state-changing operator action,
// from the CLI (actor `cli`, role `operator`) or the back office (a user's name,
// role and IP). recordAudit is called inside the write transaction of the change
// it records, so an action and its entry commit together or not at all.
import { type DbOrTx, writeTx } from "../db/client";
import { auditPage, insertAuditRow, type AuditRow, type AuditWhere } from "./store";

export type { AuditRow } from "./store";

/** Who did it. Services take this instead of any HTTP context. */
export interface Actor {
  actor: string;
  role: string;
  ip?: string | null;
}

export const CLI_ACTOR: Actor = { actor: "cli", role: "operator" };

export interface AuditInput extends Actor {
  action: string;
  /** What it acted on, e.g. `merchant:M1000001`, `payin:PI…`, `transfer:12`, `denylist:TRON:T…`. */
  target: string;
  before?: unknown;
  after?: unknown;
  /** Defaults to the system time; services pass their clock's time. */
  at?: number;
}

export interface AuditEntry {
  id: number;
  at: string;
  actor: string;
  role: string;
  ip: string | null;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
}

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x)));

/** Inside the caller's transaction when there is one (it joins), else in a writeTx of its own (a sign-in's entry). */
export async function recordAudit(db: DbOrTx, e: AuditInput): Promise<number> {
  return await writeTx(db, async (tx) => await insertAuditRow(tx, {
    at: e.at ?? Date.now(),
    actor: e.actor,
    role: e.role,
    ip: e.ip ?? null,
    action: e.action,
    target: e.target,
    before: json(e.before),
    after: json(e.after),
  }));
}

export interface AuditFilter extends AuditWhere {
  limit?: number;
  /** Keyset: entries strictly older than this one. */
  before?: AuditCursor;
}

export function describeAudit(r: AuditRow): AuditEntry {
  return {
    id: r.id,
    at: new Date(r.at).toISOString(),
    actor: r.actor,
    role: r.role,
    ip: r.ip,
    action: r.action,
    target: r.target,
    before: r.before === null ? null : JSON.parse(r.before),
    after: r.after === null ? null : JSON.parse(r.after),
  };
}

/** Where an audit page ends: the next page starts below it. */
export interface AuditCursor {
  at: number;
  id: number;
}

/** Counts stop here ("1,000+"): a page never counts the whole log. */
export const AUDIT_COUNT_CAP = 1000;

/**
 * Newest first, a page below `before` (keyset on (at, id): each filter is a seek on
 * its (column, at) index, however long the log). `total` counts matches up to
 * AUDIT_COUNT_CAP + 1; `next` is the cursor of the next page, null on the last.
 */
export async function listAudit(db: DbOrTx, f: AuditFilter = {}): Promise<{ entries: AuditEntry[]; total: number; next: AuditCursor | null }> {
  const limit = Math.min(Math.max(f.limit ?? 50, 1), 1000);
  const { rows, total } = await auditPage(db, f, f.before, limit + 1, AUDIT_COUNT_CAP + 1);
  const mine = rows.slice(0, limit);
  const last = mine[mine.length - 1];
  return { entries: mine.map(describeAudit), total, next: rows.length > limit && last ? { at: last.at, id: last.id } : null };
}
