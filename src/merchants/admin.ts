// Audited merchant administration for the back office: create, enable/disable
// and rotate go through the merchant service (which audits them, as for the
// CLI); rename is audited here (payout controls and fee balance credits: in
// src/payout/controls-audited.ts). Each change and its audit entry commit together.
import { type Actor, recordAudit } from "../audit/log";
import { writeTx } from "../db/client";
import { createMerchant, findMerchantByUid, type Merchant, type MerchantDeps, MerchantNotFound, rotateKey, setMerchantStatus } from "./service";
import { SettingsError } from "./settings";
import { patchMerchant } from "./store";

export function mustFind(deps: MerchantDeps, uid: string): Merchant {
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
  if (!clean || [...clean].length > 100) throw new SettingsError("merchant.name_invalid", { max: 100 });
  return writeTx(deps.db, () => {
    const before = mustFind(deps, uid);
    if (before.name === clean) return before;
    const m = patchMerchant(deps.db, before, { name: clean }, deps.now());
    recordAudit(deps.db, { ...actor, action: "merchant.rename", target: `merchant:${uid}`, before: { name: before.name }, after: { name: clean }, at: deps.now() });
    return m;
  });
}
