// The public JSON the pages poll. Built field by field from the views so a
// field added to the views later never leaks by accident.
import type { CheckoutOrderView, DepositView, PayinStatus } from "./types";

export interface CheckoutStatusJson {
  status: PayinStatus;
  amount: string;
  paidAmount: string | null;
  chainCode: string;
  tokenSymbol: string;
  confirmations: number;
  requiredConfirmations: number;
  txHash: string | null;
  expireAt: string | null;
  completedAt: string | null;
  /** Server clock (ms since epoch), so the page can correct the client's clock. */
  serverTime: number;
}

export function checkoutStatusJson(o: CheckoutOrderView, serverTime: number): CheckoutStatusJson {
  return {
    status: o.status,
    amount: o.amount,
    paidAmount: o.paidAmount,
    chainCode: o.chainCode,
    tokenSymbol: o.tokenSymbol,
    confirmations: o.confirmations,
    requiredConfirmations: o.requiredConfirmations,
    txHash: o.txHash,
    expireAt: o.expireAt,
    completedAt: o.completedAt,
    serverTime,
  };
}

export interface DepositStatusJson {
  chainCode: string;
  tokenSymbol: string;
  recentDeposits: Array<{ amount: string; status: PayinStatus; txHash: string | null; createdAt: string }>;
  serverTime: number;
}

export function depositStatusJson(d: DepositView, serverTime: number): DepositStatusJson {
  return {
    chainCode: d.chainCode,
    tokenSymbol: d.tokenSymbol,
    recentDeposits: d.recentDeposits.map((r) => ({
      amount: r.amount,
      status: r.status,
      txHash: r.txHash,
      createdAt: r.createdAt,
    })),
    serverTime,
  };
}

/** "10.000000" -> "10.00", "12.345600" -> "12.3456": exact digits, no noise. */
export function displayAmount(amount: string): string {
  const [whole, frac = ""] = amount.split(".");
  const trimmed = frac.replace(/0+$/, "");
  return `${whole}.${trimmed.padEnd(2, "0")}`;
}
