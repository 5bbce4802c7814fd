// merchants/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { apiKeys, backofficeSessions, backofficeUsers, merchants } from "../db/schema-pg";
import type { ApiKeyRow, Merchant, MerchantPatch } from "./store";

export async function listMerchants(db: PgQ): Promise<Merchant[]> {
  return await db.select().from(merchants).orderBy(asc(merchants.id));
}

export async function findMerchantByUid(db: PgQ, uid: string): Promise<Merchant | undefined> {
  return await firstRow(db.select().from(merchants).where(eq(merchants.uid, uid)));
}

export async function findMerchantById(db: PgQ, id: number): Promise<Merchant | undefined> {
  return await firstRow(db.select().from(merchants).where(eq(merchants.id, id)));
}

export async function merchantUid(db: PgQ, id: number): Promise<{ uid: string } | undefined> {
  return await firstRow(db.select({ uid: merchants.uid }).from(merchants).where(eq(merchants.id, id)));
}

export async function insertMerchant(tx: PgQ, values: { uid: string; name: string; defaultCallbackUrl: string | null; createdAt: number; updatedAt: number }): Promise<Merchant> {
  return (await firstRow(tx.insert(merchants).values(values).returning()))!;
}

export async function patchMerchant(tx: PgQ, before: Merchant, set: MerchantPatch, now?: number): Promise<Merchant> {
  if (!Object.keys(set).length) return before;
  return (await firstRow(tx.update(merchants).set(now === undefined ? set : { ...set, updatedAt: now }).where(eq(merchants.id, before.id)).returning()))!;
}

export async function revokeMerchantSessions(tx: PgQ, merchantId: number, now: number): Promise<void> {
  const users = tx.select({ id: backofficeUsers.id }).from(backofficeUsers).where(eq(backofficeUsers.merchantId, merchantId));
  await tx.update(backofficeSessions).set({ revokedAt: now }).where(and(inArray(backofficeSessions.userId, users), isNull(backofficeSessions.revokedAt)));
}

export async function compatKeysOf(db: PgQ, merchantId: number): Promise<Pick<Merchant, "epusdtTokenEnc" | "epayKeyEnc"> | undefined> {
  return await firstRow(db.select({ epusdtTokenEnc: merchants.epusdtTokenEnc, epayKeyEnc: merchants.epayKeyEnc }).from(merchants).where(eq(merchants.id, merchantId)));
}

export async function insertApiKey(tx: PgQ, row: ApiKeyRow): Promise<void> {
  await tx.insert(apiKeys).values(row);
}

export async function currentKey(db: PgQ, merchantId: number): Promise<ApiKeyRow | undefined> {
  return await firstRow(db.select().from(apiKeys).where(and(eq(apiKeys.merchantId, merchantId), isNull(apiKeys.validUntil))));
}

export async function retireCurrentKey(tx: PgQ, merchantId: number, until: number): Promise<void> {
  await tx.update(apiKeys).set({ validUntil: until }).where(and(eq(apiKeys.merchantId, merchantId), isNull(apiKeys.validUntil)));
}

export async function keyById(db: PgQ, id: string): Promise<ApiKeyRow | undefined> {
  return await firstRow(db.select().from(apiKeys).where(eq(apiKeys.id, id)));
}

/** The key cache's lookups; `db` is read per call (the caller's transaction, else the pool). */
export function keyCacheLookups(db: () => PgQ) {
  return {
    keyByHash: async (h: string) => await firstRow(db().select().from(apiKeys).where(eq(apiKeys.lookupHash, h))),
    merchantById: async (id: number) => await firstRow(db().select().from(merchants).where(eq(merchants.id, id))),
    currentKeyId: async (m: number) => (await firstRow(db().select({ id: apiKeys.id }).from(apiKeys).where(and(eq(apiKeys.merchantId, m), isNull(apiKeys.validUntil)))))?.id,
  };
}
