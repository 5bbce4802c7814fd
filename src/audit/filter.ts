// The audit log's filter and keyset page as drizzle conditions over either engine's audit_log
// columns (audit/store.ts and audit/store.pg.ts both build their page with it).
import { and, type Column, eq, gte, lte, type SQL, sql } from "drizzle-orm";
import type { AuditWhere } from "./store";

/** The filter and the keyset page of auditPage, over either engine's audit_log columns. */
export function auditConditions(t: { actor: Column; action: Column; target: Column; at: Column; id: Column }, f: AuditWhere, before: { at: number; id: number } | undefined) {
  const where: SQL[] = [];
  if (f.actor) where.push(eq(t.actor, f.actor));
  if (f.action) where.push(eq(t.action, f.action));
  if (f.target) where.push(eq(t.target, f.target));
  if (f.from !== undefined) where.push(gte(t.at, f.from));
  // Always bounded above, so even the first page is a range seek on the index.
  where.push(lte(t.at, f.to ?? Number.MAX_SAFE_INTEGER));
  const cond = and(...where);
  return { cond, page: before ? and(cond, sql`(${t.at}, ${t.id}) < (${before.at}, ${before.id})`) : cond };
}

