// Test helper: a merchant with a known UID and API key (the signing vectors'
// M1000001 / mch_5f0c…), built from the merchants service primitives.
import { and, eq, isNull } from "drizzle-orm";
import { writeTx } from "../db/client";
import { apiKeys, merchants } from "../db/schema";
import { createMerchant, findMerchantByUid, insertKey, type Merchant, type MerchantDeps } from "../merchants/service";

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
    tx.update(apiKeys)
      .set({ validUntil: now })
      .where(and(eq(apiKeys.merchantId, merchant.id), isNull(apiKeys.validUntil)))
      .run();
    // Keys are valid from `now`; tests that move a TestClock backwards set it first.
    await insertKey(tx, deps, merchant.id, Math.min(now, 0), apiKey);
    return tx.update(merchants).set({ uid, updatedAt: now }).where(eq(merchants.id, merchant.id)).returning().get()!;
  });
}
