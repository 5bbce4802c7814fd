// Audited merchant administration for the back office: create, enable/disable
// and rotate go through the merchant service (which audits them, as for the
// CLI); rename is audited here (payout controls and fee balance credits: in
// src/payout/controls-audited.ts). Each change and its audit entry commit together.
import { type Actor, recordAudit } from "../audit/log";
import { writeTx } from "../db/client";
import { createMerchant, findMerchantByUid, type Merchant, type MerchantDeps, MerchantNotFound, rotateKey, setMerchantStatus } from "./service";
import { SettingsError } from "./settings";
import { patchMerchant } from "./store";

export async function mustFind(deps: MerchantDeps, uid: string): Promise<Merchant> {
  const m = await findMerchantByUid(deps.db, uid);
  if (!m) throw new MerchantNotFound(uid);
  return m;
}

export async function createMerchantAudited(deps: MerchantDeps, name: string, actor: Actor): Promise<{ merchant: Merchant; apiKey: string }> {
  return await createMerchant(deps, { name }, actor);
}

export async function setMerchantStatusAudited(deps: MerchantDeps, uid: string, status: "active" | "disabled", actor: Actor): Promise<Merchant> {
  return await setMerchantStatus(deps, uid, status, actor);
}

/** The new key is returned once; the audit entry carries only its masked hint. */
export async function rotateKeyAudited(deps: MerchantDeps, uid: string, graceMs: number, actor: Actor): Promise<{ merchantUid: string; apiKey: string }> {
  return await rotateKey(deps, uid, graceMs, actor);
}

export async function renameMerchant(deps: MerchantDeps, uid: string, name: string, actor: Actor): Promise<Merchant> {
  const clean = name.trim();
  if (!clean || [...clean].length > 100) throw new SettingsError("merchant.name_invalid", { max: 100 });
  return await writeTx(deps.db, async () => {
    const before = await mustFind(deps, uid);
    if (before.name === clean) return before;
    const m = await patchMerchant(deps.db, before, { name: clean }, deps.now());
    await recordAudit(deps.db, { ...actor, action: "merchant.rename", target: `merchant:${uid}`, before: { name: before.name }, after: { name: clean }, at: deps.now() });
    return m;
  });
}
