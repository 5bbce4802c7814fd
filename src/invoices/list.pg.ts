// invoices/list.ts on PostgreSQL (db/engine.ts: the module dispatches here for a PostgreSQL handle).
import { and, asc, desc, eq, inArray, type SQL } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { callbackAttempts, callbacks, invoices, merchants, payinOrders } from "../db/schema-pg";
import { type InvoiceListRow, invoiceListRow } from "./views";

export async function listInvoices(db: PgQ, f: { merchantId?: number; invoiceNo?: string; limit: number; offset?: number }): Promise<InvoiceListRow[]> {
  const where: SQL[] = [];
  if (f.merchantId !== undefined) where.push(eq(invoices.merchantId, f.merchantId));
  if (f.invoiceNo !== undefined) where.push(eq(invoices.invoiceNo, f.invoiceNo));
  const rows = await db
    .select({ i: invoices, uid: merchants.uid, p: payinOrders })
    .from(invoices)
    .innerJoin(merchants, eq(merchants.id, invoices.merchantId))
    .leftJoin(payinOrders, eq(payinOrders.id, invoices.payinOrderId))
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(invoices.createdAt), desc(invoices.id))
    .limit(f.limit)
    .offset(f.offset ?? 0);
  return rows.map(invoiceListRow);
}

export async function invoiceNoOf(db: PgQ, id: number): Promise<string> {
  return (await firstRow(db.select({ no: invoices.invoiceNo }).from(invoices).where(eq(invoices.id, id))))?.no ?? "";
}

export async function invoiceCallbacks(db: PgQ, invoiceNo: string) {
  const cbs = await db.select().from(callbacks).where(eq(callbacks.orderNo, invoiceNo)).orderBy(asc(callbacks.createdAt));
  const attempts = cbs.length ? await db.select().from(callbackAttempts).where(inArray(callbackAttempts.callbackId, cbs.map((c) => c.id))).orderBy(asc(callbackAttempts.id)) : [];
  return cbs.map((c) => ({ callback: c, attempts: attempts.filter((a) => a.callbackId === c.id) }));
}
