// The wallet seed (BIP-39 mnemonic), stored encrypted in settings; every gateway address is
// derived from it. Only `stablegate init` (src/app/data-folder.ts) stores one: a command that
// finds none stops instead of making a second wallet (DESIGN 16).
import { generateMnemonic, isValidMnemonic, mnemonicToSeed } from "./hd";
import { type Db, writeTx } from "../db/client";
import { anyAddress, insertSeed, storedSeed } from "./store";
import type { Cipher } from "../secrets/cipher";
import { registerSecret } from "../lib/logger";

export interface WalletSeed {
  seed: Uint8Array;
}

export class SeedMissing extends Error {}

/** Whether the database holds a wallet seed (seen without the key that opens it). */
export async function hasSeed(db: Db): Promise<boolean> {
  return (await storedSeed(db)) !== undefined;
}

/** The stored mnemonic, or null when the database has none. */
export async function loadMnemonic(db: Db, cipher: Cipher): Promise<string | null> {
  const value = await storedSeed(db);
  if (value === undefined) return null;
  const mnemonic = cipher.decrypt(value);
  registerSecret(mnemonic);
  return mnemonic;
}

export async function loadSeed(db: Db, cipher: Cipher): Promise<WalletSeed> {
  const mnemonic = await loadMnemonic(db, cipher);
  if (mnemonic === null) {
    throw new SeedMissing(
      await hasAddresses(db)
        ? "this database has addresses but no wallet seed: it is damaged. Restore it from a backup (stablegate restore --from FILE); a new seed would not own those addresses."
        : "this database has no wallet seed yet (made by `migrate` before `stablegate init` existed): run `stablegate init` to complete it.",
    );
  }
  return { seed: mnemonicToSeed(mnemonic) };
}

export async function hasAddresses(db: Db): Promise<boolean> {
  return await anyAddress(db);
}

/** Stores the seed of a new data folder: STABLEGATE_WALLET_MNEMONIC when given (importing a wallet), else a new one. */
export async function storeNewSeed(db: Db, cipher: Cipher, now: number, env = process.env): Promise<{ imported: boolean; words: number }> {
  const given = env.STABLEGATE_WALLET_MNEMONIC?.trim();
  const mnemonic = given || generateMnemonic();
  if (!isValidMnemonic(mnemonic)) throw new Error("STABLEGATE_WALLET_MNEMONIC is not a valid BIP-39 mnemonic");
  registerSecret(mnemonic);
  if (await loadMnemonic(db, cipher) !== null) throw new Error("this database already has a wallet seed");
  await writeTx(db, async (tx) => await insertSeed(tx, cipher.encrypt(mnemonic), now));
  return { imported: !!given, words: mnemonic.split(/\s+/).length };
}
