// The master-key check's storage module (docs/architecture.md "Data access"): its marker in
// `settings` and the encrypted values an older database already holds. `secrets/key-check.ts` calls these.
import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { apiKeys, settings } from "../db/schema";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

const KEY = "master_key_check";

/** The stored check value (encrypted), if a key was ever checked against this database. */
export async function keyCheckValue(db: Db): Promise<string | undefined> {
  if (isPg(db)) return await pg.keyCheckValue(pgOf(db));
  return db.select().from(settings).where(eq(settings.key, KEY)).get()?.value;
}

/** Writes the check value unless one is stored. */
export async function insertKeyCheck(db: Db, value: string, now: number): Promise<void> {
  if (isPg(db)) return await pg.insertKeyCheck(pgOf(db), value, now);
  db.insert(settings).values({ key: KEY, value, updatedAt: now }).onConflictDoNothing().run();
}

/** What a database from before the check holds encrypted: the wallet seed and one API key secret. */
export async function encryptedSamples(db: Db): Promise<{ seed?: string; apiKeySecret?: string }> {
  if (isPg(db)) return await pg.encryptedSamples(pgOf(db));
  const seed = db.select().from(settings).where(eq(settings.key, "wallet_seed")).get();
  const key = db.select().from(apiKeys).limit(1).get();
  return { seed: seed?.value, apiKeySecret: key?.secretEnc };
}
