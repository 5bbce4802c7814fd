// Payout controls and fee-balance top-ups as the back office edits them: the
// same services as src/payout/controls.ts, each change with its audit entry in
// the same transaction.
import { and, desc, eq } from "drizzle-orm";
import { type Db, writeTx } from "../db/client";
import { feeEntries, merchants } from "../db/schema";
import { recordAudit, type Actor } from "../audit/log";
import { newId } from "../lib/ids";
import { MerchantNotFound } from "../merchants/service";
import { adjustFeeBalance, ControlsError, getPayoutControls, setPayoutControls, type PayoutControls } from "./controls";

const merchantId = (db: Db, uid: string): number => {
  const m = db.select({ id: merchants.id }).from(merchants).where(eq(merchants.uid, uid)).get();
  if (!m) throw new MerchantNotFound(uid);
  return m.id;
};

export function updatePayoutControls(deps: { db: Db; now: () => number }, uid: string, patch: Partial<PayoutControls>, actor: Actor) {
  return writeTx(deps.db, (tx) => {
    const id = merchantId(tx, uid);
    const { feeBalance: _b, ...before } = getPayoutControls(tx, id);
    const after = setPayoutControls(tx, id, patch, deps.now());
    recordAudit(tx, { ...actor, action: "merchant.payout_controls", target: `merchant:${uid}`, before, after, at: deps.now() });
    return after;
  });
}

/** Credits (or, with a leading "-", debits) the merchant's fee balance; returns the new balance. */
export function topUpFeeBalance(deps: { db: Db; now: () => number }, uid: string, amount: string, note: string | undefined, actor: Actor): string {
  const a = amount.trim();
  if (!/^-?\d+(\.\d{1,6})?$/.test(a) || /^-?0+(\.0+)?$/.test(a)) throw new ControlsError("amount must be a non-zero decimal with at most 6 fractional digits");
  return writeTx(deps.db, (tx) => {
    const id = merchantId(tx, uid);
    const before = getPayoutControls(tx, id).feeBalance;
    const ref = newId("FT");
    const after = adjustFeeBalance(tx, id, a, { ref, note: note?.trim() || undefined, now: deps.now() });
    recordAudit(tx, { ...actor, action: a.startsWith("-") ? "merchant.fee_adjust" : "merchant.fee_topup", target: `merchant:${uid}`, before: { feeBalance: before }, after: { feeBalance: after, amount: a, ref, note: note?.trim() || null }, at: deps.now() });
    return after;
  });
}

export function feeHistory(db: Db, uid: string, limit = 50) {
  const id = merchantId(db, uid);
  return db.select().from(feeEntries).where(and(eq(feeEntries.merchantId, id))).orderBy(desc(feeEntries.id)).limit(limit).all();
}
