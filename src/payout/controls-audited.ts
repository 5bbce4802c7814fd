// Back-office changes to a merchant's payout controls and fee balance, each
// committed with its audit entry.
import { type Actor, recordAudit } from "../audit/log";
import { writeTx } from "../db/client";
import { mustFind } from "../merchants/admin";
import type { MerchantDeps } from "../merchants/service";
import { adjustFeeBalance, getPayoutControls, type PayoutControls, setPayoutControls } from "./controls";

export async function setPayoutControlsAudited(deps: MerchantDeps, uid: string, patch: Partial<PayoutControls>, actor: Actor): Promise<PayoutControls> {
  return await writeTx(deps.db, async () => {
    const m = await mustFind(deps, uid);
    const before = await getPayoutControls(deps.db, m.id);
    const after = await setPayoutControls(deps.db, m.id, patch, deps.now());
    const { feeBalance: _fb, ...was } = before;
    if (JSON.stringify(was) !== JSON.stringify(after)) await recordAudit(deps.db, { ...actor, action: "merchant.payout_controls", target: `merchant:${uid}`, before: was, after, at: deps.now() });
    return after;
  });
}

/** Credits (or with a leading "-", debits) the merchant's fee balance. */
export async function adjustFeeBalanceAudited(deps: MerchantDeps, uid: string, delta: string, note: string, actor: Actor): Promise<string> {
  return await writeTx(deps.db, async () => {
    const m = await mustFind(deps, uid);
    const ref = `bo-${deps.now()}-${Math.random().toString(36).slice(2, 8)}`;
    const balance = await adjustFeeBalance(deps.db, m.id, delta, { ref, note: note.slice(0, 200) || undefined, now: deps.now() });
    await recordAudit(deps.db, { ...actor, action: "merchant.fee_balance", target: `merchant:${uid}`, before: { feeBalance: m.feeBalance }, after: { feeBalance: balance, delta, note }, at: deps.now() });
    return balance;
  });
}
