// Which pay-in orders a refund may be made on (DESIGN 20): the pay-in side's rule, which
// payout/refunds.ts asks through its RefundPayins port (`refundPayins` below: pay-ins rank
// above payouts). The amount (paid minus the refunds not failed) is the refunds' own business.
import type { DbOrTx } from "../db/client";
import { TRANSFER_CONFIRMED } from "../watcher/state";
import { transferById, type TransferRow } from "../watcher/transfers-store";
import { orderById, orderByOrderNo } from "./orders-store";
import { resolveDepositRefunded } from "./unmatched-store";
import { SETTLED_STATUSES, type PayinStatus } from "./state";
import type { PayinOrderRow } from "./views";

/** Statuses a refund may be made on: settled, or frozen with a paid amount (DESIGN 20). */
export const REFUNDABLE_STATUSES: readonly PayinStatus[] = [...SETTLED_STATUSES, "frozen_abnormal"];

/**
 * A cancelled order is refundable too while its payment is still the order's: the guided "Refund
 * all" (payin/resolve.ts) cancels it and refunds in one transaction, keeping the payment linked, so
 * a refund whose payout failed can be sent again (nothing else could return that money). A cancel
 * without a refund hands the payment over as an unmatched deposit (payin/operator.ts cancelOrder,
 * refunded from the deposit's page), and an order cancelled unpaid has nothing to refund: 55002.
 */
const keepsPayment = (o: PayinOrderRow, payment: TransferRow | undefined): boolean => o.status === "cancelled" && payment?.payinOrderId === o.id;

/** Why the order cannot be refunded now (55002's reason), or null; `payment` is the order's transfer. */
export function whyNotRefundable(o: PayinOrderRow, payment: TransferRow | undefined): string | null {
  if (!REFUNDABLE_STATUSES.includes(o.status as PayinStatus) && !keepsPayment(o, payment)) {
    return `order is ${o.status}; only completed, risk_settled, a paid frozen_abnormal order or one cancelled by "Refund all" is refundable`;
  }
  if (o.paidAmount === null || o.transferId === null || !payment) return "nothing was paid";
  if (!TRANSFER_CONFIRMED.includes(payment.status as (typeof TRANSFER_CONFIRMED)[number])) return "the payment is not final yet";
  return null;
}

/**
 * What a refund (payout/refunds.ts, its RefundPayins port: payouts rank below pay-ins) reads and
 * resolves of the pay-in side: the order or the deposit it is made on. app/context.ts hands it over.
 */
export const refundPayins = {
  orderByOrderNo,
  orderById,
  transferById,
  whyNotRefundable: async (db: DbOrTx, o: PayinOrderRow): Promise<string | null> => whyNotRefundable(o, o.transferId !== null ? await transferById(db, o.transferId) : undefined),
  resolveDepositRefunded,
};
