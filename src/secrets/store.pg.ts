// secrets/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
import { eq } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { apiKeys, settings } from "../db/schema-pg";

const KEY = "master_key_check";

export async function keyCheckValue(db: PgQ): Promise<string | undefined> {
  return (await firstRow(db.select().from(settings).where(eq(settings.key, KEY))))?.value;
}

export async function insertKeyCheck(db: PgQ, value: string, now: number): Promise<void> {
  await db.insert(settings).values({ key: KEY, value, updatedAt: now }).onConflictDoNothing();
}

export async function encryptedSamples(db: PgQ): Promise<{ seed?: string; apiKeySecret?: string }> {
  const seed = await firstRow(db.select().from(settings).where(eq(settings.key, "wallet_seed")));
  const key = await firstRow(db.select().from(apiKeys).limit(1));
  return { seed: seed?.value, apiKeySecret: key?.secretEnc };
}
