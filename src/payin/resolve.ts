// The guided resolution of a frozen order (issue 28): one choice among accept as paid, refund all,
// or refund the difference, each saying beforehand which status and callbacks it produces; done in
// one transaction with its note in the audit log. Operators act on every merchant's orders, a
// merchant user on its own.
import { writeTx } from "../db/client";
import { orderWithNo, transferById } from "./store";
import { recordAudit, type Actor } from "../audit/log";
import { fromBaseUnits } from "../lib/money";
import { cancelOrder, OperatorError, releaseOrder, type OrderScope } from "./operator";
import { holdReason, type HoldReason } from "./hold";
import type { PayinOrderRow } from "./views";
import type { PayinCtx } from "./service";
import { createRefund, type RefundCtx, type RefundResult } from "../payout/refunds";

export const RESOLUTIONS = ["accept", "refund_all", "refund_difference"] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

export interface ResolutionOption {
  choice: Resolution;
  label: string;
  /** What it produces: the order's status and callback, and the refund if any. */
  outcome: string;
}

/** The status releasing the order gives (DESIGN 5), or null while its payment is not final. */
function releasedStatus(db: RefundCtx["db"], o: PayinOrderRow, now: number): string | null {
  const t = o.transferId !== null ? transferById(db, o.transferId) : undefined;
  if (t && t.status === "pending") return null;
  if (!t || t.status !== "confirmed") return o.expireAt !== null && now > o.expireAt ? "expired" : "waiting_payment";
  const onTime = o.expireAt === null || t.blockTime <= o.expireAt;
  return onTime && BigInt(t.amount) >= BigInt(o.amount) ? "completed" : "risk_settled";
}

const REFUND_CALLBACKS = "refund callbacks (businessType refund) follow its sending: submitted, broadcasted, confirmed; without the payer's address it waits as awaiting_address with a refund link";

/** The choices a frozen order offers, with what each produces. */
export function resolutionOptions(ctx: Pick<RefundCtx, "db" | "clock">, o: PayinOrderRow): { reason: HoldReason | null; options: ResolutionOption[]; waiting?: string } {
  if (o.status !== "frozen_abnormal") return { reason: null, options: [] };
  const reason = holdReason(ctx.db, o);
  const released = releasedStatus(ctx.db, o, ctx.clock.now());
  if (released === null) return { reason, options: [], waiting: "Its payment is not final yet: resolve it once it is." };
  const fmt = (u: bigint) => `${fromBaseUnits(u, o.decimals, 6)} ${o.token}`;
  const options: ResolutionOption[] = [
    {
      choice: "accept",
      label: "Accept as paid",
      outcome: `The order becomes ${released}; the merchant gets a pay-in callback with status ${released}. Nothing is sent back.`,
    },
  ];
  if (o.paidAmount !== null && BigInt(o.paidAmount) > 0n) {
    const paid = BigInt(o.paidAmount);
    options.push({
      choice: "refund_all",
      label: "Refund all",
      outcome: `The order becomes cancelled (pay-in callback with status cancelled) and the ${fmt(paid)} received goes back to the payer as a refund; ${REFUND_CALLBACKS}.`,
    });
    if (paid > BigInt(o.amount) && released !== "waiting_payment" && released !== "expired") {
      options.push({
        choice: "refund_difference",
        label: "Refund the difference",
        outcome: `The order becomes ${released} (pay-in callback with status ${released}) and the ${fmt(paid - BigInt(o.amount))} paid over the amount goes back to the payer; ${REFUND_CALLBACKS}.`,
      });
    }
  }
  return { reason, options };
}

/**
 * Resolves a frozen order with one of its options, in one transaction: the order's change and its
 * callback, the refund and its callback, and an audit entry with the note.
 */
export function resolveFrozen(
  ctx: RefundCtx & PayinCtx,
  orderNo: string,
  choice: Resolution,
  input: { note: string; toAddress?: string },
  actor: Actor,
  scope: OrderScope = {},
): { order: PayinOrderRow; refund: RefundResult | null } {
  const note = input.note.trim();
  if (!note) throw new OperatorError("Write a note saying why (it goes into the audit log).");
  if (note.length > 500) throw new OperatorError("The note is longer than 500 characters.");
  return writeTx(ctx.db, (tx) => {
    const o = orderWithNo(tx, orderNo);
    if (!o || (scope.merchantId !== undefined && o.merchantId !== scope.merchantId)) throw new OperatorError(`no pay-in order ${orderNo}`);
    const offered = resolutionOptions(ctx, o);
    const option = offered.options.find((x) => x.choice === choice);
    if (!option) throw new OperatorError(offered.waiting ?? `"${choice}" is not a choice for order ${orderNo} (${o.status})`);
    const toAddress = input.toAddress?.trim() ? input.toAddress.trim() : undefined;
    const now = ctx.clock.now();
    let refund: RefundResult | null = null;
    let order: PayinOrderRow;
    const refundOf = (units: bigint, no: string) =>
      createRefund(ctx, o.merchantId, o.orderNo, { refundNo: no, amount: fromBaseUnits(units, o.decimals, 0), ...(toAddress ? { toAddress } : {}) }, { source: "backoffice", actor });
    if (choice === "accept") {
      order = releaseOrder(ctx, orderNo, actor, scope);
    } else if (choice === "refund_all") {
      refund = refundOf(BigInt(o.paidAmount!), `resolve-all-${now}`);
      order = cancelOrder(ctx, orderNo, actor, scope, { refunded: true });
    } else {
      order = releaseOrder(ctx, orderNo, actor, scope);
      refund = refundOf(BigInt(o.paidAmount!) - BigInt(o.amount), `resolve-difference-${now}`);
    }
    recordAudit(tx, {
      ...actor,
      at: now,
      action: "payin.resolve",
      target: `payin:${o.orderNo}`,
      before: { status: o.status, paidAmount: o.paidAmount, reason: offered.reason },
      after: { choice, outcome: option.outcome, status: order.status, refundNo: refund?.refund.refundNo ?? null, note },
    });
    return { order, refund };
  });
}
