// audit/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
import { and, count, desc, eq, gte, lte, type SQL, sql } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { auditLog } from "../db/schema-pg";
import type { AuditRow, AuditWhere, NewAuditRow } from "./store";

export async function insertAuditRow(db: PgQ, row: NewAuditRow): Promise<number> {
  return (await firstRow(db.insert(auditLog).values(row).returning({ id: auditLog.id })))!.id;
}

export async function auditPage(db: PgQ, f: AuditWhere, before: { at: number; id: number } | undefined, limit: number, countCap: number): Promise<{ rows: AuditRow[]; total: number }> {
  const where: SQL[] = [];
  if (f.actor) where.push(eq(auditLog.actor, f.actor));
  if (f.action) where.push(eq(auditLog.action, f.action));
  if (f.target) where.push(eq(auditLog.target, f.target));
  if (f.from !== undefined) where.push(gte(auditLog.at, f.from));
  where.push(lte(auditLog.at, f.to ?? Number.MAX_SAFE_INTEGER));
  const cond = and(...where);
  const page = before ? and(cond, sql`(${auditLog.at}, ${auditLog.id}) < (${before.at}, ${before.id})`) : cond;
  const rows = await db.select().from(auditLog).where(page).orderBy(desc(auditLog.at), desc(auditLog.id)).limit(limit);
  const total = (await firstRow(db.select({ n: count() }).from(db.select({ one: sql`1` }).from(auditLog).where(cond).limit(countCap).as("m"))))!.n;
  return { rows, total };
}
