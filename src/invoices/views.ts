// What merchants see of an invoice: the API object and the callback body (DESIGN 18).
import type { Static } from "@sinclair/typebox";
import type { invoices, payinOrders } from "../db/schema";
import { iso } from "../lib/clock";
import { amountOf } from "../orders/amount";
import type { InvoiceCallbackPayload, InvoiceView } from "./schemas";

export type InvoiceRow = typeof invoices.$inferSelect;
type PayinRow = typeof payinOrders.$inferSelect;

export type InvoiceBody = Static<typeof InvoiceView>;
export type InvoiceCallbackFields = Omit<Static<typeof InvoiceCallbackPayload>, "eventId" | "eventTime">;

export function paymentsOf(inv: Pick<InvoiceRow, "payments">): string[] {
  return JSON.parse(inv.payments) as string[];
}

function fields(inv: InvoiceRow, p: PayinRow | null) {
  return {
    invoiceNo: inv.invoiceNo,
    merchantOrderNo: inv.merchantOrderNo,
    priceAmount: inv.priceAmount,
    priceCurrency: inv.priceCurrency,
    description: inv.description,
    status: inv.status,
    invoiceUrl: inv.invoiceUrl,
    payments: paymentsOf(inv),
    expireAt: iso(inv.expireAt)!,
    createdAt: iso(inv.createdAt)!,
    paidAt: iso(inv.paidAt),
    payment: p
      ? {
          orderNo: p.orderNo,
          chainCode: p.chain,
          tokenSymbol: p.token,
          amount: amountOf(p, p.amount)!,
          rate: p.invoiceRate ?? "1",
          paidAmount: amountOf(p, p.paidAmount),
          txHash: p.txHash,
          status: p.status,
        }
      : null,
  };
}

export function invoiceView(inv: InvoiceRow, payin: PayinRow | null): InvoiceBody {
  return { ...fields(inv, payin), ...(inv.redirectUrl ? { redirectUrl: inv.redirectUrl } : {}) };
}

export function invoiceCallbackPayload(inv: InvoiceRow, payin: PayinRow | null, merchantUid: string): InvoiceCallbackFields {
  return { merchantUid, businessType: "invoice", ...fields(inv, payin) };
}

/** A row of the back office's invoice list: the invoice, its merchant, the chosen network's pay-in. */
export interface InvoiceListRow {
  invoiceNo: string;
  merchantUid: string;
  merchantOrderNo: string;
  priceAmount: string;
  priceCurrency: string;
  description: string | null;
  status: string;
  invoiceUrl: string;
  source: string;
  createdAt: number;
  expireAt: number;
  paidAt: number | null;
  network: string | null;
  amount: string | null;
  paidAmount: string | null;
  orderNo: string | null;
}

/** One row of the list from the joined invoice, merchant uid and pay-in (both engines). */
export function invoiceListRow({ i, uid, p }: { i: InvoiceRow; uid: string; p: PayinRow | null }): InvoiceListRow {
  return {
    invoiceNo: i.invoiceNo,
    merchantUid: uid,
    merchantOrderNo: i.merchantOrderNo,
    priceAmount: i.priceAmount,
    priceCurrency: i.priceCurrency,
    description: i.description,
    status: i.status,
    invoiceUrl: i.invoiceUrl,
    source: i.source,
    createdAt: i.createdAt,
    expireAt: i.expireAt,
    paidAt: i.paidAt,
    network: p ? `${p.chain} ${p.token}` : null,
    amount: p ? amountOf(p, p.amount) : null,
    paidAmount: p ? amountOf(p, p.paidAmount) : null,
    orderNo: p?.orderNo ?? null,
  };
}
