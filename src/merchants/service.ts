// Merchants and their API keys. A key is `mch_` + 32 random bytes (hex); it is
// stored encrypted and found through a keyed hash. Rotation keeps the old key
// valid for request signing during `auth.rotation_grace` and forever for
// verifying callbacks of orders created under it.
import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import { randomBytes } from "node:crypto";
import { type Db, type DbOrTx, prepared, writeTx } from "../db/client";
import { apiKeys, backofficeSessions, backofficeUsers, merchants } from "../db/schema";
import type { Cipher } from "../secrets/cipher";
import { maskApiKey } from "../lib/logger";
import { newId } from "../lib/ids";
import { existingKeyCache } from "./key-cache";
import { textProblem } from "../lib/text";
import { recordAudit, type Actor } from "../audit/log";

export type Merchant = typeof merchants.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;

export interface MerchantDeps {
  db: Db;
  cipher: Cipher;
  now: () => number;
}

export function generateApiKey(): string {
  return "mch_" + randomBytes(32).toString("hex");
}

/** Stores a new current key for the merchant (a fresh random one unless given: tests install known keys). */
export function insertKey(tx: DbOrTx, deps: MerchantDeps, merchantId: number, now: number, apiKey = generateApiKey()): { id: string; apiKey: string } {
  const id = newId("AK");
  tx.insert(apiKeys)
    .values({
      id,
      merchantId,
      lookupHash: deps.cipher.lookupHash(apiKey),
      secretEnc: deps.cipher.encrypt(apiKey),
      hint: maskApiKey(apiKey),
      validFrom: now,
      validUntil: null,
      createdAt: now,
    })
    .run();
  return { id, apiKey };
}

/** `actor` (CLI, back office) writes an audit entry in the same transaction; internal callers (demo, tests) pass none. */
export function createMerchant(
  deps: MerchantDeps,
  input: { name: string; defaultCallbackUrl?: string | null },
  actor?: Actor,
): { merchant: Merchant; apiKey: string } {
  const name = input.name.trim();
  const problem = textProblem(name, 128);
  if (problem) throw new Error(`merchant name ${problem}`);
  const now = deps.now();
  return writeTx(deps.db, (tx) => {
    const row = tx
      .insert(merchants)
      .values({ uid: "pending-" + newId(""), name, defaultCallbackUrl: input.defaultCallbackUrl ?? null, createdAt: now, updatedAt: now })
      .returning()
      .get();
    // UIDs look like the spec's M1000001: readable, sequential, never reused.
    const uid = `M${1000000 + row.id}`;
    const merchant = tx.update(merchants).set({ uid }).where(eq(merchants.id, row.id)).returning().get();
    const { apiKey } = insertKey(tx, deps, row.id, now);
    if (actor) recordAudit(tx, { ...actor, at: now, action: "merchant.create", target: `merchant:${uid}`, after: { merchantUid: uid, name, keyHint: maskApiKey(apiKey) } });
    return { merchant, apiKey };
  });
}

export function listMerchants(db: DbOrTx): Merchant[] {
  return db.select().from(merchants).orderBy(asc(merchants.id)).all();
}

export function findMerchantByUid(db: DbOrTx, uid: string): Merchant | undefined {
  return db.select().from(merchants).where(eq(merchants.uid, uid)).get();
}

export function findMerchantById(db: DbOrTx, id: number): Merchant | undefined {
  return prepared(db, "merchantById", (d) => d.select().from(merchants).where(eq(merchants.id, sql.placeholder("id"))).prepare()).get({ id });
}

export function setMerchantStatus(deps: MerchantDeps, uid: string, status: "active" | "disabled", actor?: Actor): Merchant {
  const now = deps.now();
  return writeTx(deps.db, (tx) => {
    const before = tx.select().from(merchants).where(eq(merchants.uid, uid)).get();
    if (!before) throw new MerchantNotFound(uid);
    const m = tx.update(merchants).set({ status, updatedAt: now }).where(eq(merchants.id, before.id)).returning().get();
    // DESIGN 10: the users of a disabled merchant are signed out (every live session ends).
    if (status === "disabled") {
      const users = tx.select({ id: backofficeUsers.id }).from(backofficeUsers).where(eq(backofficeUsers.merchantId, before.id));
      tx.update(backofficeSessions).set({ revokedAt: now }).where(and(inArray(backofficeSessions.userId, users), isNull(backofficeSessions.revokedAt))).run();
    }
    if (actor) recordAudit(tx, { ...actor, at: now, action: status === "disabled" ? "merchant.disable" : "merchant.enable", target: `merchant:${uid}`, before: { status: before.status }, after: { status } });
    return m;
  });
}

export class MerchantNotFound extends Error {
  constructor(uid: string) {
    super(`no merchant with UID ${uid}`);
  }
}

/** Issue a new key; the current one stays valid for requests until now + grace. */
export function rotateKey(deps: MerchantDeps, uid: string, graceMs: number, actor?: Actor): { merchantUid: string; apiKey: string } {
  const now = deps.now();
  return writeTx(deps.db, (tx) => {
    const m = tx.select().from(merchants).where(eq(merchants.uid, uid)).get();
    if (!m) throw new MerchantNotFound(uid);
    const old = currentKey(tx, m.id);
    tx.update(apiKeys)
      .set({ validUntil: now + graceMs })
      .where(and(eq(apiKeys.merchantId, m.id), isNull(apiKeys.validUntil)))
      .run();
    const { apiKey } = insertKey(tx, deps, m.id, now);
    if (actor) {
      // Hints only: a key never enters the audit log.
      recordAudit(tx, { ...actor, at: now, action: "key.rotate", target: `merchant:${uid}`, before: { keyHint: old?.hint ?? null }, after: { keyHint: maskApiKey(apiKey), previousValidUntil: new Date(now + graceMs).toISOString() } });
    }
    return { merchantUid: m.uid, apiKey };
  });
}

/** The merchant's current key (the one new orders are signed with). */
export function currentKey(db: DbOrTx, merchantId: number): ApiKeyRow | undefined {
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.merchantId, merchantId), isNull(apiKeys.validUntil)))
    .get();
}

/**
 * The key an order's callbacks are signed with: the merchant's current key when
 * the order is created, even if the request was signed with a rotated key still
 * in its grace period (spec 5: "the key in force when the order was created").
 */
export function keyInForce(db: DbOrTx, merchantId: number, requestKeyId: string): string {
  const cache = existingKeyCache(db);
  return (cache ? cache.currentKeyId(merchantId) : currentKey(db, merchantId)?.id) ?? requestKeyId;
}

export function findKeyByValue(deps: { db: DbOrTx; cipher: Cipher }, apiKey: string): ApiKeyRow | undefined {
  const q = prepared(deps.db, "keyByHash", (d) => d.select().from(apiKeys).where(eq(apiKeys.lookupHash, sql.placeholder("h"))).prepare());
  return q.get({ h: deps.cipher.lookupHash(apiKey.trim()) });
}

export function keySecret(deps: { db: DbOrTx; cipher: Cipher }, keyId: string): string | undefined {
  const row = prepared(deps.db, "keyById", (d) => d.select().from(apiKeys).where(eq(apiKeys.id, sql.placeholder("id"))).prepare()).get({ id: keyId });
  return row ? deps.cipher.decrypt(row.secretEnc) : undefined;
}

/**
 * A key signs requests until its grace ends. validFrom is not compared: keys are never issued
 * for the future, and a server clock set back after issuing (or behind the client's) must answer
 * 20012 with serverTime, which names the real problem, not 20005 "API Key invalid".
 */
export function isKeyValidAt(key: ApiKeyRow, now: number): boolean {
  return key.validUntil === null || now < key.validUntil;
}
