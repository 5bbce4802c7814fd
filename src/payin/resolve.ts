// The guided resolution of a frozen order (issue 28): one choice among accept as paid, refund all,
// or refund the difference, each saying beforehand which status and callbacks it produces; done in
// one transaction with its note in the audit log. Operators act on every merchant's orders, a
// merchant user on its own. The choices are computed from what happened to the order (issue 36):
// the refunds already made on it count (payin/kept.ts), so no money goes back twice.
import { writeTx } from "../db/client";
import { orderWithNo } from "./orders-store";
import { transferById } from "../watcher/transfers-store";
import { recordAudit, type Actor } from "../audit/log";
import { fromBaseUnits } from "../lib/money";
import { ACCEPT_REFUSED, acceptRefusal, differenceLeft, fill, keptOf, tokenAmount } from "./kept";
import { cancelOrder, OperatorError, releaseOrder, type OrderScope } from "./operator";
import { holdReason, type HoldReason } from "./hold";
import type { PayinOrderRow } from "./views";
import type { PayinCtx } from "./service";
import { createRefund, type RefundCtx, type RefundResult } from "../payout/refunds";

export const RESOLUTIONS = ["accept", "refund_all", "refund_difference"] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

/** A text made of an English template with `{name}` placeholders and its values (the back office translates the template). */
export interface MadeText {
  template: string;
  values: Record<string, string>;
}

export interface ResolutionOption {
  choice: Resolution;
  label: string;
  /** What it produces: the order's status and callback, the refund if any, the refunds already made. */
  outcome: string;
  text: MadeText;
  /** Shown but refused, with why ("Accept as paid" once refunds leave less than the amount kept). */
  refused?: MadeText;
}

/** The status releasing the order gives (DESIGN 5), or null while its payment is not final. */
async function releasedStatus(db: RefundCtx["db"], o: PayinOrderRow, now: number): Promise<string | null> {
  const t = o.transferId !== null ? await transferById(db, o.transferId) : undefined;
  if (t && t.status === "pending") return null;
  if (!t || t.status !== "confirmed") return o.expireAt !== null && now > o.expireAt ? "expired" : "waiting_payment";
  const onTime = o.expireAt === null || t.blockTime <= o.expireAt;
  return onTime && BigInt(t.amount) >= BigInt(o.amount) ? "completed" : "risk_settled";
}

const REFUND_CALLBACKS = "refund callbacks (businessType refund) follow its sending: submitted, broadcasted, confirmed; without the payer's address it waits as awaiting_address with a refund link.";

/** What each choice produces, as templates (the back office has them in Chinese too: i18n-zh-money.ts). */
export const OUTCOMES = {
  accept: "The order becomes {status}; the merchant gets a pay-in callback with status {status2}. Nothing is sent back.",
  acceptAfterRefunds: "The order becomes {status}; the merchant gets a pay-in callback with status {status2}. Nothing more is sent back: the {refunded} already refunded stays refunded and {kept} is kept.",
  refundAll: `The order becomes cancelled (pay-in callback with status cancelled) and the {amount} received goes back to the payer as a refund; ${REFUND_CALLBACKS}`,
  refundRest: `The order becomes cancelled (pay-in callback with status cancelled) and the {amount} left of the {paid} received goes back to the payer as a refund ({refunded} was already refunded); ${REFUND_CALLBACKS}`,
  allRefunded: "The order becomes cancelled (pay-in callback with status cancelled). Nothing more is sent: the {paid} received was all refunded already.",
  refundDifference: `The order becomes {status} (pay-in callback with status {status2}) and the {amount} paid over the amount goes back to the payer; ${REFUND_CALLBACKS}`,
  refundDifferenceRest: `The order becomes {status} (pay-in callback with status {status2}) and the {amount} still paid over the amount goes back to the payer ({refunded} was already refunded); ${REFUND_CALLBACKS}`,
  refundsMade: "Refunds already made: {refunded} of the {paid} received; {kept} is kept.",
} as const;

const made = (template: string, values: Record<string, string>): MadeText => ({ template, values });

function option(choice: Resolution, label: string, text: MadeText, refused?: MadeText): ResolutionOption {
  return { choice, label, outcome: fill(text.template, text.values), text, ...(refused ? { refused } : {}) };
}

/**
 * The choices a frozen order offers, computed from what happened to it (issue 36): what was paid,
 * and the refunds not failed already made on it (by the API or the back office). "Accept as paid"
 * is refused once those refunds leave less than the amount kept; "Refund all" refunds what is left;
 * "Refund the difference" refunds paid − amount − refunded and is not offered at zero.
 */
export async function resolutionOptions(ctx: Pick<RefundCtx, "db" | "clock">, o: PayinOrderRow): Promise<{ reason: HoldReason | null; options: ResolutionOption[]; waiting?: string; refunds?: MadeText }> {
  if (o.status !== "frozen_abnormal") return { reason: null, options: [] };
  const reason = await holdReason(ctx.db, o);
  const released = await releasedStatus(ctx.db, o, ctx.clock.now());
  if (released === null) return { reason, options: [], waiting: "Its payment is not final yet: resolve it once it is." };
  const k = await keptOf(ctx.db, o);
  const fmt = (u: bigint) => tokenAmount(o, u);
  const sums = { paid: fmt(k.paid), refunded: fmt(k.refunded), kept: fmt(k.kept) };
  const refundsMade = k.refunded > 0n ? made(OUTCOMES.refundsMade, sums) : undefined;
  const refusal = acceptRefusal(o, k);
  const options: ResolutionOption[] = [
    option(
      "accept",
      "Accept as paid",
      k.refunded > 0n ? made(OUTCOMES.acceptAfterRefunds, { status: released, status2: released, ...sums }) : made(OUTCOMES.accept, { status: released, status2: released }),
      refusal ? made(ACCEPT_REFUSED, refusal) : undefined,
    ),
  ];
  if (k.paid > 0n) {
    const all =
      k.refunded === 0n ? made(OUTCOMES.refundAll, { amount: fmt(k.paid) }) : k.kept > 0n ? made(OUTCOMES.refundRest, { amount: fmt(k.kept), ...sums }) : made(OUTCOMES.allRefunded, sums);
    options.push(option("refund_all", "Refund all", all));
    const difference = differenceLeft(k);
    if (difference > 0n && released !== "waiting_payment" && released !== "expired") {
      const values = { status: released, status2: released, amount: fmt(difference), ...sums };
      options.push(option("refund_difference", "Refund the difference", made(k.refunded > 0n ? OUTCOMES.refundDifferenceRest : OUTCOMES.refundDifference, values)));
    }
  }
  return { reason, options, ...(refundsMade ? { refunds: refundsMade } : {}) };
}

/**
 * Resolves a frozen order with one of its options, in one transaction: the order's change and its
 * callback, the refund and its callback, and an audit entry with the note.
 */
export async function resolveFrozen(
  ctx: RefundCtx & PayinCtx,
  orderNo: string,
  choice: Resolution,
  input: { note: string; toAddress?: string },
  actor: Actor,
  scope: OrderScope = {},
): Promise<{ order: PayinOrderRow; refund: RefundResult | null }> {
  const note = input.note.trim();
  if (!note) throw new OperatorError("resolve.note_missing");
  if (note.length > 500) throw new OperatorError("resolve.note_long", { max: 500 });
  return await writeTx(ctx.db, async (tx) => {
    const o = await orderWithNo(tx, orderNo);
    if (!o || (scope.merchantId !== undefined && o.merchantId !== scope.merchantId)) throw new OperatorError("payin.order_unknown", { orderNo });
    const offered = await resolutionOptions(ctx, o);
    const option = offered.options.find((x) => x.choice === choice);
    if (!option) throw offered.waiting ? new OperatorError("resolve.not_final") : new OperatorError("resolve.not_offered", { choice, orderNo, status: o.status });
    if (option.refused) throw new OperatorError("resolve.accept_refused", option.refused.values);
    const k = await keptOf(tx, o);
    const toAddress = input.toAddress?.trim() ? input.toAddress.trim() : undefined;
    const now = ctx.clock.now();
    let refund: RefundResult | null = null;
    let order: PayinOrderRow;
    const refundOf = async (units: bigint, no: string) =>
      await createRefund(ctx, o.merchantId, o.orderNo, { refundNo: no, amount: fromBaseUnits(units, o.decimals, 0), ...(toAddress ? { toAddress } : {}) }, { source: "backoffice", actor });
    if (choice === "accept") {
      order = await releaseOrder(ctx, orderNo, actor, scope);
    } else if (choice === "refund_all") {
      // What is left: paid − the refunds not failed (nothing when all of it was refunded already).
      refund = k.kept > 0n ? await refundOf(k.kept, `resolve-all-${now}`) : null;
      order = await cancelOrder(ctx, orderNo, actor, scope, { refunded: true });
    } else {
      order = await releaseOrder(ctx, orderNo, actor, scope);
      refund = await refundOf(differenceLeft(k), `resolve-difference-${now}`);
    }
    await recordAudit(tx, {
      ...actor,
      at: now,
      action: "payin.resolve",
      target: `payin:${o.orderNo}`,
      before: { status: o.status, paidAmount: o.paidAmount, refunded: k.refunded.toString(), reason: offered.reason },
      after: { choice, outcome: option.outcome, status: order.status, refundNo: refund?.refund.refundNo ?? null, note },
    });
    return { order, refund };
  });
}
