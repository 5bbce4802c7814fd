// Audited merchant administration for the back office: create, enable/disable
// and rotate go through the merchant service (which audits them, as for the
// CLI); rename, payout controls and fee balance credits are audited here.
// Each change and its audit entry commit together.
import { eq } from "drizzle-orm";
import { type Actor, recordAudit } from "../audit/log";
import { writeTx } from "../db/client";
import { merchants } from "../db/schema";
import { adjustFeeBalance, ControlsError, getPayoutControls, type PayoutControls, setPayoutControls } from "../payout/controls";
import { createMerchant, findMerchantByUid, type Merchant, type MerchantDeps, MerchantNotFound, rotateKey, setMerchantStatus } from "./service";

export { ControlsError };

function mustFind(deps: MerchantDeps, uid: string): Merchant {
  const m = findMerchantByUid(deps.db, uid);
  if (!m) throw new MerchantNotFound(uid);
  return m;
}

export function createMerchantAudited(deps: MerchantDeps, name: string, actor: Actor): { merchant: Merchant; apiKey: string } {
  return createMerchant(deps, { name }, actor);
}

export function setMerchantStatusAudited(deps: MerchantDeps, uid: string, status: "active" | "disabled", actor: Actor): Merchant {
  return setMerchantStatus(deps, uid, status, actor);
}

/** The new key is returned once; the audit entry carries only its masked hint. */
export function rotateKeyAudited(deps: MerchantDeps, uid: string, graceMs: number, actor: Actor): { merchantUid: string; apiKey: string } {
  return rotateKey(deps, uid, graceMs, actor);
}

export function renameMerchant(deps: MerchantDeps, uid: string, name: string, actor: Actor): Merchant {
  const clean = name.trim();
  if (!clean || [...clean].length > 100) throw new ControlsError("a merchant name is 1-100 characters");
  return writeTx(deps.db, () => {
    const before = mustFind(deps, uid);
    if (before.name === clean) return before;
    const m = deps.db.update(merchants).set({ name: clean, updatedAt: deps.now() }).where(eq(merchants.id, before.id)).returning().get();
    recordAudit(deps.db, { ...actor, action: "merchant.rename", target: `merchant:${uid}`, before: { name: before.name }, after: { name: clean }, at: deps.now() });
    return m;
  });
}

export function setPayoutControlsAudited(deps: MerchantDeps, uid: string, patch: Partial<PayoutControls>, actor: Actor): PayoutControls {
  return writeTx(deps.db, () => {
    const m = mustFind(deps, uid);
    const before = getPayoutControls(deps.db, m.id);
    const after = setPayoutControls(deps.db, m.id, patch, deps.now());
    const { feeBalance: _fb, ...was } = before;
    if (JSON.stringify(was) !== JSON.stringify(after)) recordAudit(deps.db, { ...actor, action: "merchant.payout_controls", target: `merchant:${uid}`, before: was, after, at: deps.now() });
    return after;
  });
}

/** Credits (or with a leading "-", debits) the merchant's fee balance. */
export function adjustFeeBalanceAudited(deps: MerchantDeps, uid: string, delta: string, note: string, actor: Actor): string {
  return writeTx(deps.db, () => {
    const m = mustFind(deps, uid);
    const ref = `bo-${deps.now()}-${Math.random().toString(36).slice(2, 8)}`;
    const balance = adjustFeeBalance(deps.db, m.id, delta, { ref, note: note.slice(0, 200) || undefined, now: deps.now() });
    recordAudit(deps.db, { ...actor, action: "merchant.fee_balance", target: `merchant:${uid}`, before: { feeBalance: m.feeBalance }, after: { feeBalance: balance, delta, note }, at: deps.now() });
    return balance;
  });
}
