// invoices/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
import { and, asc, eq, isNull, lte } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { invoices } from "../db/schema-pg";
import type { NewInvoice } from "./store";
import type { InvoiceRow } from "./views";

export async function insertInvoice(tx: PgQ, values: NewInvoice): Promise<InvoiceRow | undefined> {
  return await firstRow(tx.insert(invoices).values(values).onConflictDoNothing().returning());
}

export async function invoiceByMerchantOrderNo(tx: PgQ, merchantId: number, merchantOrderNo: string): Promise<InvoiceRow | undefined> {
  return await firstRow(tx.select().from(invoices).where(and(eq(invoices.merchantId, merchantId), eq(invoices.merchantOrderNo, merchantOrderNo))));
}

export async function invoiceByNo(db: PgQ, merchantId: number, invoiceNo: string): Promise<InvoiceRow | undefined> {
  return await firstRow(db.select().from(invoices).where(and(eq(invoices.invoiceNo, invoiceNo), eq(invoices.merchantId, merchantId))));
}

export async function invoiceByToken(db: PgQ, pageToken: string): Promise<InvoiceRow | undefined> {
  return await firstRow(db.select().from(invoices).where(eq(invoices.pageToken, pageToken)));
}

export async function invoiceById(db: PgQ, id: number): Promise<InvoiceRow | undefined> {
  return await firstRow(db.select().from(invoices).where(eq(invoices.id, id)));
}

/** The compare-and-set of a status change: undefined when another writer (another gateway) moved the invoice first. */
export async function updateInvoiceIf(tx: PgQ, id: number, expected: string, set: Partial<InvoiceRow>): Promise<InvoiceRow | undefined> {
  return await firstRow(tx.update(invoices).set(set).where(and(eq(invoices.id, id), eq(invoices.status, expected))).returning());
}

export async function setInvoicePayin(tx: PgQ, invoiceId: number, payinOrderId: number, now: number): Promise<InvoiceRow> {
  return (await firstRow(tx.update(invoices).set({ payinOrderId, updatedAt: now }).where(eq(invoices.id, invoiceId)).returning()))!;
}

export async function dueOpenInvoiceIds(db: PgQ, now: number, limit: number): Promise<number[]> {
  const rows = await db
    .select({ id: invoices.id })
    .from(invoices)
    .where(and(eq(invoices.status, "open"), isNull(invoices.payinOrderId), lte(invoices.expireAt, now - 1)))
    .orderBy(asc(invoices.expireAt))
    .limit(limit);
  return rows.map((r) => r.id);
}
