// The energy delegation's life cycle as data (DESIGN 21, `energy.ts`): status → event → next
// status, one `transition`, and the status lists the storage module (`store.ts`) asks by.
import type { energyDelegations } from "../../db/schema";

export type DelegationStatus = (typeof energyDelegations.$inferSelect)["status"];

const RULES: ReadonlyArray<{ from: DelegationStatus; event: string; to: DelegationStatus }> = [
  { from: "signed", event: "broadcasted", to: "broadcasted" },
  { from: "signed", event: "landed", to: "delegated" },
  { from: "broadcasted", event: "landed", to: "delegated" },
  { from: "signed", event: "failed", to: "failed" },
  { from: "broadcasted", event: "failed", to: "failed" },
  { from: "delegated", event: "reclaim_signed", to: "reclaim_signed" },
  { from: "reclaim_signed", event: "reclaim_signed", to: "reclaim_signed" },
  { from: "reclaim_signed", event: "reclaimed", to: "reclaimed" },
];
export function transition(from: DelegationStatus, event: string): DelegationStatus {
  const r = RULES.find((x) => x.from === from && x.event === event);
  if (!r) throw new Error(`energy delegation in ${from} does not accept ${event}`);
  return r.to;
}

/** Signed but not yet seen on chain: its sun is held back from the stake the node reports free. */
export const IN_FLIGHT: readonly DelegationStatus[] = ["signed", "broadcasted"];
/** A payout's delegation that has (or is getting) its energy. */
export const OPEN: readonly DelegationStatus[] = ["signed", "broadcasted", "delegated"];
/** Stake that may be out at a receiver (sent and not reclaimed yet). */
export const OUT: readonly DelegationStatus[] = ["broadcasted", "delegated", "reclaim_signed"];
/** Landed delegations the reclaim job takes back once their payout is final. */
export const RECLAIMABLE: readonly DelegationStatus[] = ["delegated", "reclaim_signed"];
/** Delegations whose payout used them (what `energy status` counts as served). */
export const SERVED: readonly DelegationStatus[] = ["reclaim_signed", "reclaimed"];
