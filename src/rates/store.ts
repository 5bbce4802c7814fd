// The rates' storage module: `fx_rates` and the noted fetch error in `settings`
// (docs/architecture.md "Data access"). `rates/book.ts` calls these.
import { and, eq } from "drizzle-orm";
import type { DbOrTx, Tx } from "../db/client";
import { fxRates, settings } from "../db/schema";
import type { FetchedRate } from "./coingecko";
import { isPg, pgOf, pgSide } from "../db/engine";
import { LAST_ERROR_KEY } from "./last-error";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));


export async function storedRate(db: DbOrTx, currency: string, token: string) {
  if (isPg(db)) return await pg.storedRate(pgOf(db), currency, token);
  return db.select().from(fxRates).where(and(eq(fxRates.currency, currency), eq(fxRates.token, token))).get();
}

/** Stores a fetch: each rate replaces the last one of its pair; clears the noted error. */
export async function storeRates(tx: Tx, rates: FetchedRate[], source: string, now: number): Promise<void> {
  if (isPg(tx)) return await pg.storeRates(pgOf(tx), rates, source, now);
  for (const r of rates) {
    tx.insert(fxRates)
      .values({ currency: r.currency, token: r.token, rate: r.rate, source, observedAt: r.observedAt, fetchedAt: now })
      .onConflictDoUpdate({ target: [fxRates.currency, fxRates.token], set: { rate: r.rate, source, observedAt: r.observedAt, fetchedAt: now } })
      .run();
  }
  tx.delete(settings).where(eq(settings.key, LAST_ERROR_KEY)).run();
}

export async function noteFetchError(db: Tx, message: string, now: number): Promise<void> {
  if (isPg(db)) return await pg.noteFetchError(pgOf(db), message, now);
  const value = JSON.stringify({ at: now, message });
  db.insert(settings).values({ key: LAST_ERROR_KEY, value, updatedAt: now }).onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: now } }).run();
}

/** When each stored rate was observed (every pair). */
export async function rateAges(db: DbOrTx): Promise<{ currency: string; observedAt: number }[]> {
  if (isPg(db)) return await pg.rateAges(pgOf(db));
  return db.select({ currency: fxRates.currency, observedAt: fxRates.observedAt }).from(fxRates).all();
}

/** The last failed fetch's message, if one is noted. */
export async function lastFetchError(db: DbOrTx): Promise<string | null> {
  if (isPg(db)) return await pg.lastFetchError(pgOf(db));
  const err = db.select({ v: settings.value }).from(settings).where(eq(settings.key, LAST_ERROR_KEY)).get();
  return err ? (JSON.parse(err.v) as { message: string }).message : null;
}
