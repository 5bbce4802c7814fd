// Merchants and their API keys. A key is `mch_` + 32 random bytes (hex); it is
// stored encrypted and found through a keyed hash. Rotation keeps the old key
// valid for request signing during `auth.rotation_grace` and forever for
// verifying callbacks of orders created under it.
import { randomBytes } from "node:crypto";
import { type Db, type DbOrTx, writeTx } from "../db/client";
import type { Cipher } from "../secrets/cipher";
import { maskApiKey } from "../lib/logger";
import { newId } from "../lib/ids";
import { existingKeyCache } from "./key-cache";
import { textProblem } from "../lib/text";
import { recordAudit, type Actor } from "../audit/log";
import {
  type ApiKeyRow,
  currentKey,
  findMerchantByUid,
  insertApiKey,
  insertMerchant,
  keyById,
  type Merchant,
  patchMerchant,
  retireCurrentKey,
  revokeMerchantSessions,
} from "./store";

// The merchants' storage is store.ts; these are its reads the other domains use.
export { currentKey, findMerchantById, findMerchantByUid, listMerchants, type ApiKeyRow, type Merchant } from "./store";

export interface MerchantDeps {
  db: Db;
  cipher: Cipher;
  now: () => number;
}

export function generateApiKey(): string {
  return "mch_" + randomBytes(32).toString("hex");
}

/** Stores a new current key for the merchant (a fresh random one unless given: tests install known keys). */
export async function insertKey(tx: DbOrTx, deps: MerchantDeps, merchantId: number, now: number, apiKey = generateApiKey()): Promise<{ id: string; apiKey: string }> {
  const id = newId("AK");
  await insertApiKey(tx, {
    id,
    merchantId,
    lookupHash: deps.cipher.lookupHash(apiKey),
    secretEnc: deps.cipher.encrypt(apiKey),
    hint: maskApiKey(apiKey),
    validFrom: now,
    validUntil: null,
    createdAt: now,
  });
  return { id, apiKey };
}

/** `actor` (CLI, back office) writes an audit entry in the same transaction; internal callers (demo, tests) pass none. */
export async function createMerchant(
  deps: MerchantDeps,
  input: { name: string; defaultCallbackUrl?: string | null },
  actor?: Actor,
): Promise<{ merchant: Merchant; apiKey: string }> {
  const name = input.name.trim();
  const problem = textProblem(name, 128);
  if (problem) throw new Error(`merchant name ${problem}`);
  const now = deps.now();
  return await writeTx(deps.db, async (tx) => {
    const row = await insertMerchant(tx, { uid: "pending-" + newId(""), name, defaultCallbackUrl: input.defaultCallbackUrl ?? null, createdAt: now, updatedAt: now });
    // UIDs look like the spec's M1000001: readable, sequential, never reused.
    const uid = `M${1000000 + row.id}`;
    const merchant = await patchMerchant(tx, row, { uid });
    const { apiKey } = await insertKey(tx, deps, row.id, now);
    if (actor) await recordAudit(tx, { ...actor, at: now, action: "merchant.create", target: `merchant:${uid}`, after: { merchantUid: uid, name, keyHint: maskApiKey(apiKey) } });
    return { merchant, apiKey };
  });
}

export async function setMerchantStatus(deps: MerchantDeps, uid: string, status: "active" | "disabled", actor?: Actor): Promise<Merchant> {
  const now = deps.now();
  return await writeTx(deps.db, async (tx) => {
    const before = await findMerchantByUid(tx, uid);
    if (!before) throw new MerchantNotFound(uid);
    const m = await patchMerchant(tx, before, { status }, now);
    // DESIGN 10: the users of a disabled merchant are signed out (every live session ends).
    if (status === "disabled") await revokeMerchantSessions(tx, before.id, now);
    if (actor) await recordAudit(tx, { ...actor, at: now, action: status === "disabled" ? "merchant.disable" : "merchant.enable", target: `merchant:${uid}`, before: { status: before.status }, after: { status } });
    return m;
  });
}

export class MerchantNotFound extends Error {
  constructor(uid: string) {
    super(`no merchant with UID ${uid}`);
  }
}

/** Issue a new key; the current one stays valid for requests until now + grace. */
export async function rotateKey(deps: MerchantDeps, uid: string, graceMs: number, actor?: Actor): Promise<{ merchantUid: string; apiKey: string }> {
  const now = deps.now();
  return await writeTx(deps.db, async (tx) => {
    const m = await findMerchantByUid(tx, uid);
    if (!m) throw new MerchantNotFound(uid);
    const old = await currentKey(tx, m.id);
    await retireCurrentKey(tx, m.id, now + graceMs);
    const { apiKey } = await insertKey(tx, deps, m.id, now);
    if (actor) {
      // Hints only: a key never enters the audit log.
      await recordAudit(tx, { ...actor, at: now, action: "key.rotate", target: `merchant:${uid}`, before: { keyHint: old?.hint ?? null }, after: { keyHint: maskApiKey(apiKey), previousValidUntil: new Date(now + graceMs).toISOString() } });
    }
    return { merchantUid: m.uid, apiKey };
  });
}

/**
 * The key an order's callbacks are signed with: the merchant's current key when
 * the order is created, even if the request was signed with a rotated key still
 * in its grace period (spec 5: "the key in force when the order was created").
 */
export async function keyInForce(db: DbOrTx, merchantId: number, requestKeyId: string): Promise<string> {
  const cache = existingKeyCache(db);
  return (cache ? await cache.currentKeyId(merchantId) : (await currentKey(db, merchantId))?.id) ?? requestKeyId;
}

export async function keySecret(deps: { db: DbOrTx; cipher: Cipher }, keyId: string): Promise<string | undefined> {
  const row = await keyById(deps.db, keyId);
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
