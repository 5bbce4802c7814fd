// The merchants domain's storage: merchants and their API keys, named by what each statement
// does (docs/architecture.md "Data access"). Drizzle's builder for these ordinary reads and
// writes; the per-request lookups are built once per connection with `prepared`.
import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import { type DbOrTx, prepared } from "../db/client";
import { apiKeys, backofficeSessions, backofficeUsers, merchants } from "../db/schema";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

export type Merchant = typeof merchants.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
/** The columns a merchant's settings, status, name or shop-plugin keys change. */
export type MerchantPatch = Partial<Omit<Merchant, "id" | "createdAt">>;

export async function listMerchants(db: DbOrTx): Promise<Merchant[]> {
  if (isPg(db)) return await pg.listMerchants(pgOf(db));
  return db.select().from(merchants).orderBy(asc(merchants.id)).all();
}

export async function findMerchantByUid(db: DbOrTx, uid: string): Promise<Merchant | undefined> {
  if (isPg(db)) return await pg.findMerchantByUid(pgOf(db), uid);
  return db.select().from(merchants).where(eq(merchants.uid, uid)).get();
}

export async function findMerchantById(db: DbOrTx, id: number): Promise<Merchant | undefined> {
  if (isPg(db)) return await pg.findMerchantById(pgOf(db), id);
  return prepared(db, "merchantById", (d) => d.select().from(merchants).where(eq(merchants.id, sql.placeholder("id"))).prepare()).get({ id });
}

/** A new merchant row under a placeholder UID (its real UID derives from its id: setMerchantUid). */
/** A merchant's uid only (the pay-in callback's fallback when no key cache is warm). */
export async function merchantUid(db: DbOrTx, id: number): Promise<{ uid: string } | undefined> {
  if (isPg(db)) return await pg.merchantUid(pgOf(db), id);
  return prepared(db, "merchantUid", (d) => d.select({ uid: merchants.uid }).from(merchants).where(eq(merchants.id, sql.placeholder("id"))).prepare()).get({ id });
}

export async function insertMerchant(tx: DbOrTx, values: { uid: string; name: string; defaultCallbackUrl: string | null; createdAt: number; updatedAt: number }): Promise<Merchant> {
  if (isPg(tx)) return await pg.insertMerchant(pgOf(tx), values);
  return tx.insert(merchants).values(values).returning().get();
}

/** Writes `set` on the merchant, with updatedAt = `now` when given; with nothing to set, the row as it was. */
export async function patchMerchant(tx: DbOrTx, before: Merchant, set: MerchantPatch, now?: number): Promise<Merchant> {
  if (isPg(tx)) return await pg.patchMerchant(pgOf(tx), before, set, now);
  if (!Object.keys(set).length) return before;
  return tx.update(merchants).set(now === undefined ? set : { ...set, updatedAt: now }).where(eq(merchants.id, before.id)).returning().get();
}

/** DESIGN 10: every live back-office session of the merchant's users ends. */
export async function revokeMerchantSessions(tx: DbOrTx, merchantId: number, now: number): Promise<void> {
  if (isPg(tx)) return await pg.revokeMerchantSessions(pgOf(tx), merchantId, now);
  const users = tx.select({ id: backofficeUsers.id }).from(backofficeUsers).where(eq(backofficeUsers.merchantId, merchantId));
  tx.update(backofficeSessions).set({ revokedAt: now }).where(and(inArray(backofficeSessions.userId, users), isNull(backofficeSessions.revokedAt))).run();
}

/** The shop-plugin keys of a merchant, encrypted (undefined: no such merchant). */
export async function compatKeysOf(db: DbOrTx, merchantId: number): Promise<Pick<Merchant, "epusdtTokenEnc" | "epayKeyEnc"> | undefined> {
  if (isPg(db)) return await pg.compatKeysOf(pgOf(db), merchantId);
  return db.select({ epusdtTokenEnc: merchants.epusdtTokenEnc, epayKeyEnc: merchants.epayKeyEnc }).from(merchants).where(eq(merchants.id, merchantId)).get();
}

export async function insertApiKey(tx: DbOrTx, row: ApiKeyRow): Promise<void> {
  if (isPg(tx)) return await pg.insertApiKey(pgOf(tx), row);
  tx.insert(apiKeys).values(row).run();
}

/** The merchant's current key (validUntil unset): the one new orders are signed with. */
export async function currentKey(db: DbOrTx, merchantId: number): Promise<ApiKeyRow | undefined> {
  if (isPg(db)) return await pg.currentKey(pgOf(db), merchantId);
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.merchantId, merchantId), isNull(apiKeys.validUntil)))
    .get();
}

/** The current key stops signing requests at `until` (a rotation's grace). */
export async function retireCurrentKey(tx: DbOrTx, merchantId: number, until: number): Promise<void> {
  if (isPg(tx)) return await pg.retireCurrentKey(pgOf(tx), merchantId, until);
  tx.update(apiKeys)
    .set({ validUntil: until })
    .where(and(eq(apiKeys.merchantId, merchantId), isNull(apiKeys.validUntil)))
    .run();
}

export async function keyById(db: DbOrTx, id: string): Promise<ApiKeyRow | undefined> {
  if (isPg(db)) return await pg.keyById(pgOf(db), id);
  return prepared(db, "keyById", (d) => d.select().from(apiKeys).where(eq(apiKeys.id, sql.placeholder("id"))).prepare()).get({ id });
}

/**
 * The key cache's lookups (merchants/key-cache.ts), prepared once per cache: a key by its
 * lookup hash, a merchant's whole row, a merchant's current key id.
 */
export function keyCacheLookups(db: DbOrTx) {
  if (isPg(db)) return pg.keyCacheLookups(() => pgOf(db));
  const byHash = db.select().from(apiKeys).where(eq(apiKeys.lookupHash, sql.placeholder("h"))).prepare();
  const merchantById = db.select().from(merchants).where(eq(merchants.id, sql.placeholder("id"))).prepare();
  const currentKey = db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(eq(apiKeys.merchantId, sql.placeholder("m")), isNull(apiKeys.validUntil)))
    .prepare();
  return {
    keyByHash: async (h: string) => byHash.get({ h }) as ApiKeyRow | undefined,
    merchantById: async (id: number) => merchantById.get({ id }) as Merchant | undefined,
    currentKeyId: async (m: number) => (currentKey.get({ m }) as { id: string } | undefined)?.id,
  };
}
