// audit/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
import { count, desc, sql } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { auditLog } from "../db/schema-pg";
import { auditConditions } from "./filter";
import type { AuditRow, AuditWhere, NewAuditRow } from "./store";

export async function insertAuditRow(db: PgQ, row: NewAuditRow): Promise<number> {
  return (await firstRow(db.insert(auditLog).values(row).returning({ id: auditLog.id })))!.id;
}

export async function auditPage(db: PgQ, f: AuditWhere, before: { at: number; id: number } | undefined, limit: number, countCap: number): Promise<{ rows: AuditRow[]; total: number }> {
  const { cond, page } = auditConditions(auditLog, f, before);
  const rows = await db.select().from(auditLog).where(page).orderBy(desc(auditLog.at), desc(auditLog.id)).limit(limit);
  const total = (await firstRow(db.select({ n: count() }).from(db.select({ one: sql`1` }).from(auditLog).where(cond).limit(countCap).as("m"))))!.n;
  return { rows, total };
}
