// The wallet seed (BIP-39 mnemonic) is generated on first start and stored
// encrypted in settings; every gateway address is derived from it.
import { eq } from "drizzle-orm";
import { generateMnemonic, isValidMnemonic, mnemonicToSeed } from "../wallet/hd";
import type { Db } from "../db/client";
import { settings } from "../db/schema";
import type { Cipher } from "./cipher";
import { registerSecret } from "../lib/logger";

const KEY = "wallet_seed";

export interface WalletSeed {
  seed: Uint8Array;
}

export function loadOrCreateSeed(db: Db, cipher: Cipher, now: number, env = process.env): WalletSeed {
  const row = db.select().from(settings).where(eq(settings.key, KEY)).get();
  let mnemonic: string;
  if (row) mnemonic = cipher.decrypt(row.value);
  else {
    // Operators restoring a wallet may provide the mnemonic once on first start.
    mnemonic = env.STABLEGATE_WALLET_MNEMONIC?.trim() || generateMnemonic();
    if (!isValidMnemonic(mnemonic)) throw new Error("STABLEGATE_WALLET_MNEMONIC is not a valid BIP-39 mnemonic");
    db.insert(settings).values({ key: KEY, value: cipher.encrypt(mnemonic), updatedAt: now }).onConflictDoNothing().run();
    const again = db.select().from(settings).where(eq(settings.key, KEY)).get()!;
    mnemonic = cipher.decrypt(again.value);
  }
  registerSecret(mnemonic);
  return { seed: mnemonicToSeed(mnemonic) };
}
