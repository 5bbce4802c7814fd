// Refuses to use a database with a master key it was not created with: a wrong
// key would otherwise encrypt new API keys under a second key, or fail later.
import { type Db, writeTx } from "../db/client";
import type { Cipher } from "./cipher";
import { encryptedSamples, insertKeyCheck, keyCheckValue } from "./store";

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
export async function keyOpensDatabase(db: Db, cipher: Cipher): Promise<boolean> {
  const check = await keyCheckValue(db);
  if (check !== undefined) return decrypts(cipher, check, PLAIN);
  // A database from before the check existed: anything already encrypted must open.
  const { seed, apiKeySecret } = await encryptedSamples(db);
  return !((seed !== undefined && !decrypts(cipher, seed)) || (apiKeySecret !== undefined && !decrypts(cipher, apiKeySecret)));
}

/** Whether a master key was ever checked against this database (every command since the check existed wrote it). */
export async function hasKeyCheck(db: Db): Promise<boolean> {
  return await keyCheckValue(db) !== undefined;
}

export async function checkMasterKey(db: Db, cipher: Cipher, now: number): Promise<void> {
  if (!await keyOpensDatabase(db, cipher)) throw new WrongMasterKey();
  await writeTx(db, async (tx) => await insertKeyCheck(tx, cipher.encrypt(PLAIN), now));
}
