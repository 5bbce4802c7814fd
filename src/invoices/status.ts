// Invoice statuses (DESIGN 18) follow the pay-in order of the chosen network, as data.
// (src/payin/ calls into this folder, so the pay-in statuses are spelled here, checked by status.test.ts.)

export const INVOICE_STATUSES = ["open", "paid", "frozen_abnormal", "risk_settled", "expired", "cancelled"] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** The invoice's status while `payin` is its current pay-in. */
export const FOLLOWS: Readonly<Record<string, InvoiceStatus>> = {
  waiting_payment: "open",
  detected: "open",
  confirming: "open",
  completed: "paid",
  risk_settled: "risk_settled",
  expired: "expired",
  frozen_abnormal: "frozen_abnormal",
  cancelled: "cancelled",
};

/** Money arrived: paidAt is stamped on entering these. */
export const SETTLED: readonly InvoiceStatus[] = ["paid", "risk_settled"];
