// The pay-in state machine of DESIGN 5 as data plus one transition function.
// Every status change goes through `transition`; the service writes the
// result and its callback in one transaction.

export const PAYIN_STATUSES = [
  "waiting_payment",
  "detected",
  "confirming",
  "completed",
  "risk_settled",
  "expired",
  "frozen_abnormal",
  "cancelled",
] as const;
export type PayinStatus = (typeof PAYIN_STATUSES)[number];

export const OPEN_STATUSES: readonly PayinStatus[] = ["waiting_payment", "detected", "confirming"];

export type PayinEvent =
  /** A matching transfer was included in a block (timed no later than expireAt). */
  | { type: "paid"; senderDenied?: boolean }
  /** The transfer has `count` confirmations; `required` completes it. */
  | { type: "confirmations"; count: number; required: number }
  /** expireAt passed with no payment. */
  | { type: "expire" }
  /** The paying transfer vanished in a reorg. */
  | { type: "reorg"; pastExpiry: boolean }
  /** A late payment (after expireAt, within the late window) reached finality. */
  | { type: "late_confirmed" }
  | { type: "freeze" }
  | { type: "cancel" }
  /** Operator releases a frozen order; `late` when the payment came after expireAt. */
  | { type: "release"; late: boolean };

type Rule = { from: readonly PayinStatus[]; event: PayinEvent["type"]; to: (e: PayinEvent) => PayinStatus | null };

/** The table. `null` means "accepted, nothing changes" (e.g. not enough confirmations yet). */
export const RULES: readonly Rule[] = [
  { from: ["waiting_payment", "expired"], event: "paid", to: (e) => ((e as { senderDenied?: boolean }).senderDenied ? "frozen_abnormal" : "detected") },
  {
    from: ["detected"],
    event: "confirmations",
    to: (e) => {
      const { count, required } = e as { count: number; required: number };
      return count >= required ? "completed" : count >= 2 ? "confirming" : null;
    },
  },
  {
    from: ["confirming"],
    event: "confirmations",
    to: (e) => {
      const { count, required } = e as { count: number; required: number };
      return count >= required ? "completed" : null;
    },
  },
  { from: ["waiting_payment"], event: "expire", to: () => "expired" },
  { from: ["detected", "confirming"], event: "reorg", to: (e) => ((e as { pastExpiry: boolean }).pastExpiry ? "expired" : "waiting_payment") },
  { from: ["expired"], event: "late_confirmed", to: () => "risk_settled" },
  { from: ["waiting_payment", "detected", "confirming"], event: "freeze", to: () => "frozen_abnormal" },
  { from: ["waiting_payment"], event: "cancel", to: () => "cancelled" },
  { from: ["frozen_abnormal"], event: "release", to: (e) => ((e as { late: boolean }).late ? "risk_settled" : "completed") },
];

export class InvalidTransition extends Error {
  constructor(public readonly from: PayinStatus, public readonly event: PayinEvent["type"]) {
    super(`pay-in order in ${from} does not accept ${event}`);
  }
}

/** The next status, null for "no change", or throws InvalidTransition. */
export function transition(from: PayinStatus, event: PayinEvent): PayinStatus | null {
  const rule = RULES.find((r) => r.event === event.type && r.from.includes(from));
  if (!rule) throw new InvalidTransition(from, event.type);
  const to = rule.to(event);
  return to === from ? null : to;
}

export function canTransition(from: PayinStatus, event: PayinEvent): boolean {
  try {
    transition(from, event);
    return true;
  } catch {
    return false;
  }
}
