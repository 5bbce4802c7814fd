// Why money of an order is on hold (frozen_abnormal) or settled under risk (risk_settled), in one
// word the checkout, the back office and the guided resolution share (issue 28).
import type { DbOrTx } from "../db/client";
import { orderWithNo } from "./orders-store";
import { transferBlockTime } from "../watcher/transfers-store";
import type { PayinOrderRow } from "./views";

/** short: less than the amount; over: more; late: after expiry; operator: frozen by an operator (or a deny-listed sender). */
export type HoldReason = "short" | "over" | "late" | "operator";

export async function holdReason(db: DbOrTx, o: PayinOrderRow): Promise<HoldReason | null> {
  if (o.status !== "frozen_abnormal" && o.status !== "risk_settled") return null;
  if (o.paidAmount === null) return "operator";
  const paid = BigInt(o.paidAmount);
  const amount = BigInt(o.amount);
  if (paid < amount) return "short";
  if (paid > amount && o.status === "frozen_abnormal") return "over";
  const t = o.transferId !== null ? await transferBlockTime(db, o.transferId) : undefined;
  if (t && o.expireAt !== null && t.blockTime > o.expireAt) return "late";
  return o.status === "risk_settled" ? "late" : "operator";
}

/** The back office's words for a hold reason. */
export const HOLD_TEXT: Record<HoldReason, string> = {
  short: "paid less than the order amount",
  over: "paid more than the order amount",
  late: "paid after the order expired",
  operator: "frozen by an operator (or a payment from a deny-listed sender)",
};

/** Why the order `orderNo` is held, in the back office's words ("" when it is not held). */
export async function holdTextOf(db: DbOrTx, orderNo: string): Promise<string> {
  const o = await orderWithNo(db, orderNo);
  const r = o ? await holdReason(db, o) : null;
  return r ? HOLD_TEXT[r] : "";
}
