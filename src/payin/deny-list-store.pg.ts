// payin/deny-list-store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
import { and, asc, eq } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { denyList } from "../db/schema-pg";
import type { DenyRow } from "./deny-list-store";

export async function isDenied(tx: PgQ, chain: string, from: string): Promise<boolean> {
  return !!(await firstRow(tx.select({ c: denyList.chain }).from(denyList).where(and(eq(denyList.chain, chain), eq(denyList.address, from)))));
}

export async function insertDenied(tx: PgQ, values: typeof denyList.$inferInsert): Promise<DenyRow> {
  return (await firstRow(tx.insert(denyList).values(values).returning()))!;
}

export async function removeDenied(tx: PgQ, chain: string, address: string): Promise<DenyRow | undefined> {
  return await firstRow(tx.delete(denyList).where(and(eq(denyList.chain, chain), eq(denyList.address, address))).returning());
}

export async function deniedSenders(db: PgQ): Promise<DenyRow[]> {
  return await db.select().from(denyList).orderBy(asc(denyList.chain), asc(denyList.createdAt));
}
