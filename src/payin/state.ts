// The pay-in state machine of DESIGN 5 as data plus one transition function.
// Every status change goes through `transition`; the service writes the
// result and its callback in one transaction.
import { statusSql as anyStatusSql } from "../db/status-sql";

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
/** Open and nothing received yet (its address and amount are taken until it expires). */
export const AWAITING_PAYMENT: readonly PayinStatus[] = OPEN_STATUSES.filter((s) => s === "waiting_payment");
/** Open with a transfer in hand, waiting for confirmations. */
export const SETTLING_STATUSES: readonly PayinStatus[] = OPEN_STATUSES.filter((s) => !AWAITING_PAYMENT.includes(s));
/** Paid and settled: what the daily volume counts (payin_daily and its triggers, migrations/0160). */
export const SETTLED_STATUSES: readonly PayinStatus[] = ["completed", "risk_settled"];

/**
 * A pay-in status list as an SQL condition on `column`, written as the partial indexes spell it
 * (db/status-sql.ts, the one helper every domain's lists go through), typed to the lists above.
 */
export const statusSql: (column: string, statuses: readonly PayinStatus[]) => string = anyStatusSql;

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
  /**
   * A transfer of another amount, and this is the address's only open order of
   * that token whose window covers the block time (DESIGN 5 "Money that does not match").
   */
  | { type: "wrong_amount" }
  /**
   * Operator (or merchant) releases a frozen order. `paid`: none (nothing received),
   * in_full (at least the amount, on time) or short_or_late; `pastExpiry` picks
   * expired over waiting_payment when nothing was paid.
   */
  | { type: "release"; paid: ReleasePaid; pastExpiry: boolean };

export type ReleasePaid = "none" | "in_full" | "short_or_late";

const RELEASE_TO: Record<ReleasePaid, PayinStatus> = { none: "waiting_payment", in_full: "completed", short_or_late: "risk_settled" };

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
  // A cancelled frozen order keeps what was paid in the ledger (refundable: src/payin/unmatched.ts).
  { from: ["waiting_payment", "frozen_abnormal"], event: "cancel", to: () => "cancelled" },
  // expired: the job closed it, but the block time is inside its window (block time decides).
  { from: ["waiting_payment", "expired"], event: "wrong_amount", to: () => "frozen_abnormal" },
  {
    from: ["frozen_abnormal"],
    event: "release",
    to: (e) => {
      const { paid, pastExpiry } = e as { paid: ReleasePaid; pastExpiry: boolean };
      return paid === "none" && pastExpiry ? "expired" : RELEASE_TO[paid];
    },
  },
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
