// The audit log's storage module: every statement on `audit_log` (docs/architecture.md
// "Data access"). `audit/log.ts` shapes entries and filters and calls these.
import { count, desc, sql } from "drizzle-orm";
import { auditConditions } from "./filter";
import type { DbOrTx } from "../db/client";
import { auditLog } from "../db/schema";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

export type AuditRow = typeof auditLog.$inferSelect;
export type NewAuditRow = typeof auditLog.$inferInsert;

export async function insertAuditRow(db: DbOrTx, row: NewAuditRow): Promise<number> {
  if (isPg(db)) return await pg.insertAuditRow(pgOf(db), row);
  return db.insert(auditLog).values(row).returning({ id: auditLog.id }).get().id;
}

export interface AuditWhere {
  actor?: string;
  action?: string;
  target?: string;
  /** Inclusive bounds, ms since epoch. */
  from?: number;
  to?: number;
}

/**
 * Newest first, up to `limit` rows below `before` (keyset on (at, id): each filter is a seek on
 * its (column, at) index), and the matches counted up to `countCap`.
 */
export async function auditPage(db: DbOrTx, f: AuditWhere, before: { at: number; id: number } | undefined, limit: number, countCap: number): Promise<{ rows: AuditRow[]; total: number }> {
  if (isPg(db)) return await pg.auditPage(pgOf(db), f, before, limit, countCap);
  const { cond, page } = auditConditions(auditLog, f, before);
  const rows = db.select().from(auditLog).where(page).orderBy(desc(auditLog.at), desc(auditLog.id)).limit(limit).all();
  const total = db.select({ n: count() }).from(db.select({ one: sql`1` }).from(auditLog).where(cond).limit(countCap).as("m")).get()!.n;
  return { rows, total };
}
