// The payout state machine of spec 3.2 / DESIGN 6 as data plus one transition
// function; the service writes the result and its callback in one transaction.

export const PAYOUT_STATUSES = ["submitted", "broadcasted", "confirmed", "failed"] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** Statuses whose amount (and fee) stay reserved on the source. */
export const UNFINISHED: readonly PayoutStatus[] = ["submitted", "broadcasted"];

/**
 * submit: never signed or broadcast; broadcast: the node rejected it permanently;
 * confirm: reverted, dropped for good or expired after broadcast (DESIGN 4).
 */
export type FailedStage = "submit" | "broadcast" | "confirm";

export type PayoutEvent =
  /** The node accepted the signed transaction (or already had it). */
  | { type: "broadcasted" }
  /** The transaction is final and succeeded. */
  | { type: "confirmed" }
  | { type: "fail"; stage: FailedStage };

const RULES: ReadonlyArray<{ from: PayoutStatus; event: PayoutEvent["type"]; stages?: FailedStage[]; to: PayoutStatus }> = [
  { from: "submitted", event: "broadcasted", to: "broadcasted" },
  { from: "submitted", event: "fail", stages: ["submit", "broadcast"], to: "failed" },
  { from: "broadcasted", event: "confirmed", to: "confirmed" },
  { from: "broadcasted", event: "fail", stages: ["confirm"], to: "failed" },
];

/** Statuses whose stored, signed transaction has not been accepted by a node yet (the rules' sources of "broadcasted"). */
export const AWAITING_BROADCAST: readonly PayoutStatus[] = PAYOUT_STATUSES.filter((s) => RULES.some((r) => r.from === s && r.event === "broadcasted"));
/** Statuses whose transaction a node accepted and the executor follows to a final block (the rules' sources of "confirmed"). */
export const AWAITING_FINALITY: readonly PayoutStatus[] = PAYOUT_STATUSES.filter((s) => RULES.some((r) => r.from === s && r.event === "confirmed"));
/** Where a failure ends (the rules' targets of "fail"). */
export const FAILED: readonly PayoutStatus[] = PAYOUT_STATUSES.filter((s) => RULES.some((r) => r.to === s && r.event === "fail"));

export class InvalidPayoutTransition extends Error {
  constructor(public readonly from: PayoutStatus, public readonly event: PayoutEvent) {
    super(`payout order in ${from} does not accept ${event.type}${event.type === "fail" ? ` (${event.stage})` : ""}`);
  }
}

/** The next status, or throws InvalidPayoutTransition. */
export function transition(from: PayoutStatus, event: PayoutEvent): PayoutStatus {
  const rule = RULES.find((r) => r.from === from && r.event === event.type && (event.type !== "fail" || r.stages!.includes(event.stage)));
  if (!rule) throw new InvalidPayoutTransition(from, event);
  return rule.to;
}

/**
 * A balance check's result (balance_checks.status), written by reconcile (payout/balances.ts):
 * ok, or the chain balance lies outside what the ledger and in-flight movements explain.
 */
export const BALANCE_CHECK_STATUSES = ["ok", "mismatch"] as const;
export type BalanceCheckStatus = (typeof BALANCE_CHECK_STATUSES)[number];
export const BALANCE_MISMATCH: BalanceCheckStatus = "mismatch";
