// Test helper: a merchant with a known UID and API key (the signing vectors'
// M1000001 / mch_5f0c…), built from the merchants service primitives.
import { writeTx } from "../db/client";
import { createMerchant, findMerchantByUid, insertKey, type Merchant, type MerchantDeps } from "../merchants/service";
import { patchMerchant, retireCurrentKey } from "../merchants/store";

/**
 * Makes `uid` a merchant whose only current key is `apiKey`. An existing
 * merchant with that UID is reused (its current key is retired at once);
 * otherwise one is created and renamed to `uid`.
 */
export async function installMerchant(deps: MerchantDeps, uid: string, apiKey: string, name = "Vector Shop"): Promise<Merchant> {
  const now = deps.now();
  const existing = await findMerchantByUid(deps.db, uid);
  const merchant = existing ?? (await createMerchant(deps, { name })).merchant;
  return await writeTx(deps.db, async (tx) => {
    // Through the merchants store: either engine.
    await retireCurrentKey(tx, merchant.id, now);
    // Keys are valid from `now`; tests that move a TestClock backwards set it first.
    await insertKey(tx, deps, merchant.id, Math.min(now, 0), apiKey);
    return await patchMerchant(tx, merchant, { uid }, now);
  });
}
