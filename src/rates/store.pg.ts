// rates/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
import { and, eq } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { fxRates, settings } from "../db/schema-pg";
import type { FetchedRate } from "./coingecko";
import { LAST_ERROR_KEY } from "./last-error";

export async function storedRate(db: PgQ, currency: string, token: string) {
  return await firstRow(db.select().from(fxRates).where(and(eq(fxRates.currency, currency), eq(fxRates.token, token))));
}

export async function storeRates(tx: PgQ, rates: FetchedRate[], source: string, now: number): Promise<void> {
  for (const r of rates) {
    await tx
      .insert(fxRates)
      .values({ currency: r.currency, token: r.token, rate: r.rate, source, observedAt: r.observedAt, fetchedAt: now })
      .onConflictDoUpdate({ target: [fxRates.currency, fxRates.token], set: { rate: r.rate, source, observedAt: r.observedAt, fetchedAt: now } });
  }
  await tx.delete(settings).where(eq(settings.key, LAST_ERROR_KEY));
}

export async function noteFetchError(db: PgQ, message: string, now: number): Promise<void> {
  const value = JSON.stringify({ at: now, message });
  await db.insert(settings).values({ key: LAST_ERROR_KEY, value, updatedAt: now }).onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: now } });
}

export async function rateAges(db: PgQ): Promise<{ currency: string; observedAt: number }[]> {
  return await db.select({ currency: fxRates.currency, observedAt: fxRates.observedAt }).from(fxRates);
}

export async function lastFetchError(db: PgQ): Promise<string | null> {
  const err = await firstRow(db.select({ v: settings.value }).from(settings).where(eq(settings.key, LAST_ERROR_KEY)));
  return err ? (JSON.parse(err.v) as { message: string }).message : null;
}
