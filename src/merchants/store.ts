// The merchants domain's storage: merchants and their API keys, named by what each statement
// does (docs/architecture.md "Data access"). Drizzle's builder for these ordinary reads and
// writes; the per-request lookups are built once per connection with `prepared`.
import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import { type DbOrTx, prepared } from "../db/client";
import { apiKeys, backofficeSessions, backofficeUsers, merchants } from "../db/schema";

export type Merchant = typeof merchants.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
/** The columns a merchant's settings, status, name or shop-plugin keys change. */
export type MerchantPatch = Partial<Omit<Merchant, "id" | "createdAt">>;

export function listMerchants(db: DbOrTx): Merchant[] {
  return db.select().from(merchants).orderBy(asc(merchants.id)).all();
}

export function findMerchantByUid(db: DbOrTx, uid: string): Merchant | undefined {
  return db.select().from(merchants).where(eq(merchants.uid, uid)).get();
}

export function findMerchantById(db: DbOrTx, id: number): Merchant | undefined {
  return prepared(db, "merchantById", (d) => d.select().from(merchants).where(eq(merchants.id, sql.placeholder("id"))).prepare()).get({ id });
}

/** A new merchant row under a placeholder UID (its real UID derives from its id: setMerchantUid). */
/** A merchant's uid only (the pay-in callback's fallback when no key cache is warm). */
export function merchantUid(db: DbOrTx, id: number): { uid: string } | undefined {
  return prepared(db, "merchantUid", (d) => d.select({ uid: merchants.uid }).from(merchants).where(eq(merchants.id, sql.placeholder("id"))).prepare()).get({ id });
}

export function insertMerchant(tx: DbOrTx, values: { uid: string; name: string; defaultCallbackUrl: string | null; createdAt: number; updatedAt: number }): Merchant {
  return tx.insert(merchants).values(values).returning().get();
}

/** Writes `set` on the merchant, with updatedAt = `now` when given; with nothing to set, the row as it was. */
export function patchMerchant(tx: DbOrTx, before: Merchant, set: MerchantPatch, now?: number): Merchant {
  if (!Object.keys(set).length) return before;
  return tx.update(merchants).set(now === undefined ? set : { ...set, updatedAt: now }).where(eq(merchants.id, before.id)).returning().get();
}

/** DESIGN 10: every live back-office session of the merchant's users ends. */
export function revokeMerchantSessions(tx: DbOrTx, merchantId: number, now: number): void {
  const users = tx.select({ id: backofficeUsers.id }).from(backofficeUsers).where(eq(backofficeUsers.merchantId, merchantId));
  tx.update(backofficeSessions).set({ revokedAt: now }).where(and(inArray(backofficeSessions.userId, users), isNull(backofficeSessions.revokedAt))).run();
}

/** The shop-plugin keys of a merchant, encrypted (undefined: no such merchant). */
export function compatKeysOf(db: DbOrTx, merchantId: number): Pick<Merchant, "epusdtTokenEnc" | "epayKeyEnc"> | undefined {
  return db.select({ epusdtTokenEnc: merchants.epusdtTokenEnc, epayKeyEnc: merchants.epayKeyEnc }).from(merchants).where(eq(merchants.id, merchantId)).get();
}

export function insertApiKey(tx: DbOrTx, row: ApiKeyRow): void {
  tx.insert(apiKeys).values(row).run();
}

/** The merchant's current key (validUntil unset): the one new orders are signed with. */
export function currentKey(db: DbOrTx, merchantId: number): ApiKeyRow | undefined {
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.merchantId, merchantId), isNull(apiKeys.validUntil)))
    .get();
}

/** The current key stops signing requests at `until` (a rotation's grace). */
export function retireCurrentKey(tx: DbOrTx, merchantId: number, until: number): void {
  tx.update(apiKeys)
    .set({ validUntil: until })
    .where(and(eq(apiKeys.merchantId, merchantId), isNull(apiKeys.validUntil)))
    .run();
}

export function keyById(db: DbOrTx, id: string): ApiKeyRow | undefined {
  return prepared(db, "keyById", (d) => d.select().from(apiKeys).where(eq(apiKeys.id, sql.placeholder("id"))).prepare()).get({ id });
}

/**
 * The key cache's lookups (merchants/key-cache.ts), prepared once per cache: a key by its
 * lookup hash, a merchant's whole row, a merchant's current key id.
 */
export function keyCacheLookups(db: DbOrTx) {
  const byHash = db.select().from(apiKeys).where(eq(apiKeys.lookupHash, sql.placeholder("h"))).prepare();
  const merchantById = db.select().from(merchants).where(eq(merchants.id, sql.placeholder("id"))).prepare();
  const currentKey = db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(eq(apiKeys.merchantId, sql.placeholder("m")), isNull(apiKeys.validUntil)))
    .prepare();
  return {
    keyByHash: (h: string) => byHash.get({ h }) as ApiKeyRow | undefined,
    merchantById: (id: number) => merchantById.get({ id }) as Merchant | undefined,
    currentKeyId: (m: number) => (currentKey.get({ m }) as { id: string } | undefined)?.id,
  };
}
