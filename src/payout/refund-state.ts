// The refund state machine of DESIGN 20 as data plus one transition function. A refund
// waits for the payer's address (without a toAddress), then follows the payout that sends it.

export const REFUND_STATUSES = ["awaiting_address", "submitted", "broadcasted", "confirmed", "failed"] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** Statuses whose amount still counts against the refundable amount: every one but failed. */
export const HOLDING: readonly RefundStatus[] = ["awaiting_address", "submitted", "broadcasted", "confirmed"];

export type RefundEvent =
  /** The payer (or the merchant, or an operator) gave the address: its payout was created. */
  | { type: "address_given" }
  /** The payout sending the refund moved to `status` (src/payout/state.ts). */
  | { type: "payout"; status: string };

const RULES: ReadonlyArray<{ from: RefundStatus; event: RefundEvent["type"]; payout?: string; to: RefundStatus }> = [
  { from: "awaiting_address", event: "address_given", to: "submitted" },
  { from: "submitted", event: "payout", payout: "broadcasted", to: "broadcasted" },
  { from: "submitted", event: "payout", payout: "failed", to: "failed" },
  { from: "broadcasted", event: "payout", payout: "confirmed", to: "confirmed" },
  { from: "broadcasted", event: "payout", payout: "failed", to: "failed" },
];

export class InvalidRefundTransition extends Error {
  constructor(public readonly from: RefundStatus, public readonly event: RefundEvent) {
    super(`refund in ${from} does not accept ${event.type}${event.type === "payout" ? ` (${event.status})` : ""}`);
  }
}

/** The next status, or throws InvalidRefundTransition. */
export function transition(from: RefundStatus, event: RefundEvent): RefundStatus {
  const rule = RULES.find((r) => r.from === from && r.event === event.type && (event.type !== "payout" || r.payout === event.status));
  if (!rule) throw new InvalidRefundTransition(from, event);
  return rule.to;
}
