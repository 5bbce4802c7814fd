// Invoices as the back office lists them (newest first, one merchant's or every merchant's),
// with the chosen network's pay-in beside each.
import { and, asc, desc, eq, inArray, type SQL } from "drizzle-orm";
import type { DbOrTx } from "../db/client";
import { callbackAttempts, callbacks, invoices, merchants, payinOrders } from "../db/schema";
import { type InvoiceListRow, invoiceListRow } from "./views";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./list.pg")>(() => require("./list.pg"));

export type { InvoiceListRow };

export async function listInvoices(db: DbOrTx, f: { merchantId?: number; invoiceNo?: string; limit: number; offset?: number }): Promise<InvoiceListRow[]> {
  if (isPg(db)) return await pg.listInvoices(pgOf(db), f);
  const where: SQL[] = [];
  if (f.merchantId !== undefined) where.push(eq(invoices.merchantId, f.merchantId));
  if (f.invoiceNo !== undefined) where.push(eq(invoices.invoiceNo, f.invoiceNo));
  const rows = db
    .select({ i: invoices, uid: merchants.uid, p: payinOrders })
    .from(invoices)
    .innerJoin(merchants, eq(merchants.id, invoices.merchantId))
    .leftJoin(payinOrders, eq(payinOrders.id, invoices.payinOrderId))
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(invoices.createdAt), desc(invoices.id))
    .limit(f.limit)
    .offset(f.offset ?? 0)
    .all();
  return rows.map(invoiceListRow);
}

export async function invoiceNoOf(db: DbOrTx, id: number): Promise<string> {
  if (isPg(db)) return await pg.invoiceNoOf(pgOf(db), id);
  return db.select({ no: invoices.invoiceNo }).from(invoices).where(eq(invoices.id, id)).get()?.no ?? "";
}

/** The invoice's callbacks, oldest first, each with its delivery attempts (the payment-link page). */
export async function invoiceCallbacks(db: DbOrTx, invoiceNo: string) {
  if (isPg(db)) return await pg.invoiceCallbacks(pgOf(db), invoiceNo);
  const cbs = db.select().from(callbacks).where(eq(callbacks.orderNo, invoiceNo)).orderBy(asc(callbacks.createdAt)).all();
  const attempts = cbs.length ? db.select().from(callbackAttempts).where(inArray(callbackAttempts.callbackId, cbs.map((c) => c.id))).orderBy(asc(callbackAttempts.id)).all() : [];
  return cbs.map((c) => ({ callback: c, attempts: attempts.filter((a) => a.callbackId === c.id) }));
}
