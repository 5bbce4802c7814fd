// Refuses to use a database with a master key it was not created with: a wrong
// key would otherwise encrypt new API keys under a second key, or fail later.
import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { apiKeys, settings } from "../db/schema";
import type { Cipher } from "./cipher";

const KEY = "master_key_check";
const PLAIN = "stablegate master key check v1";

export class WrongMasterKey extends Error {
  constructor() {
    super(
      "this master key cannot decrypt this database: STABLEGATE_MASTER_KEY (or master.key next to the database) " +
        "is not the key the database was created with. Restore the original key; never start a fresh key on an existing database.",
    );
  }
}

function decrypts(cipher: Cipher, value: string, expect?: string): boolean {
  try {
    const v = cipher.decrypt(value);
    return expect === undefined || v === expect;
  } catch {
    return false;
  }
}

/** Whether `cipher` opens this database; reads only (a wrong key is refused before anything is touched). */
export function keyOpensDatabase(db: Db, cipher: Cipher): boolean {
  const check = db.select().from(settings).where(eq(settings.key, KEY)).get();
  if (check) return decrypts(cipher, check.value, PLAIN);
  // A database from before the check existed: anything already encrypted must open.
  const seed = db.select().from(settings).where(eq(settings.key, "wallet_seed")).get();
  const key = db.select().from(apiKeys).limit(1).get();
  return !((seed && !decrypts(cipher, seed.value)) || (key && !decrypts(cipher, key.secretEnc)));
}

/** Whether a master key was ever checked against this database (every command since the check existed wrote it). */
export function hasKeyCheck(db: Db): boolean {
  return !!db.select().from(settings).where(eq(settings.key, KEY)).get();
}

export function checkMasterKey(db: Db, cipher: Cipher, now: number): void {
  if (!keyOpensDatabase(db, cipher)) throw new WrongMasterKey();
  db.insert(settings).values({ key: KEY, value: cipher.encrypt(PLAIN), updatedAt: now }).onConflictDoNothing().run();
}
