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
