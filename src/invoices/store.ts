// The invoices domain's storage: every statement on the invoices table, named by what it does
// (docs/architecture.md "Data access"). Drizzle's builder; the per-second job's read prepared once.
import { and, asc, eq, isNull, lte, sql } from "drizzle-orm";
import { type DbOrTx, prepared, type Tx, updateByIdIf } from "../db/client";
import { invoices } from "../db/schema";
import type { InvoiceRow } from "./views";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

export type NewInvoice = typeof invoices.$inferInsert;

/** The new invoice, or undefined when the merchant already has one with its merchantOrderNo (a concurrent duplicate committed first). */
export async function insertInvoice(tx: DbOrTx, values: NewInvoice): Promise<InvoiceRow | undefined> {
  if (isPg(tx)) return await pg.insertInvoice(pgOf(tx), values);
  return tx.insert(invoices).values(values).onConflictDoNothing().returning().get();
}

export async function invoiceByMerchantOrderNo(tx: DbOrTx, merchantId: number, merchantOrderNo: string): Promise<InvoiceRow | undefined> {
  if (isPg(tx)) return await pg.invoiceByMerchantOrderNo(pgOf(tx), merchantId, merchantOrderNo);
  return tx.select().from(invoices).where(and(eq(invoices.merchantId, merchantId), eq(invoices.merchantOrderNo, merchantOrderNo))).get();
}

/** The merchant's invoice with this invoiceNo (another merchant's is undefined). */
export async function invoiceByNo(db: DbOrTx, merchantId: number, invoiceNo: string): Promise<InvoiceRow | undefined> {
  if (isPg(db)) return await pg.invoiceByNo(pgOf(db), merchantId, invoiceNo);
  return db.select().from(invoices).where(and(eq(invoices.invoiceNo, invoiceNo), eq(invoices.merchantId, merchantId))).get();
}

export async function invoiceByToken(db: DbOrTx, pageToken: string): Promise<InvoiceRow | undefined> {
  if (isPg(db)) return await pg.invoiceByToken(pgOf(db), pageToken);
  return db.select().from(invoices).where(eq(invoices.pageToken, pageToken)).get();
}

export async function invoiceById(db: DbOrTx, id: number): Promise<InvoiceRow | undefined> {
  if (isPg(db)) return await pg.invoiceById(pgOf(db), id);
  return db.select().from(invoices).where(eq(invoices.id, id)).get();
}

/**
 * Writes a status change (the funnel's, service.ts moveInvoice) if the invoice is still in
 * `expected`: one statement per set of columns; undefined when another writer moved it first.
 */
export async function updateInvoiceIf(tx: Tx, id: number, expected: string, set: Partial<InvoiceRow>): Promise<InvoiceRow | undefined> {
  if (isPg(tx)) return await pg.updateInvoiceIf(pgOf(tx), id, expected, set);
  return await updateByIdIf<InvoiceRow>(tx, invoices, id, expected, set);
}

/** The payer chose a network: the invoice follows this pay-in from now on. */
export async function setInvoicePayin(tx: DbOrTx, invoiceId: number, payinOrderId: number, now: number): Promise<InvoiceRow> {
  if (isPg(tx)) return await pg.setInvoicePayin(pgOf(tx), invoiceId, payinOrderId, now);
  return tx.update(invoices).set({ payinOrderId, updatedAt: now }).where(eq(invoices.id, invoiceId)).returning().get();
}

/** Ids of open invoices whose payer never chose a network, expired before `now`, oldest first. */
export async function dueOpenInvoiceIds(db: DbOrTx, now: number, limit: number): Promise<number[]> {
  if (isPg(db)) return await pg.dueOpenInvoiceIds(pgOf(db), now, limit);
  // Prepared once per connection: the expire-invoices job asks every second on every gateway.
  return prepared(db, "invoices:dueOpen", (d) =>
    d
      .select({ id: invoices.id })
      .from(invoices)
      .where(and(eq(invoices.status, "open"), isNull(invoices.payinOrderId), lte(invoices.expireAt, sql.placeholder("last"))))
      .orderBy(asc(invoices.expireAt))
      .limit(sql.placeholder("limit"))
      .prepare(),
  )
    .all({ last: now - 1, limit })
    .map((r) => r.id);
}
