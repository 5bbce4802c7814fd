// The wallet's storage module: every statement on `addresses` and `derivation_floors`
// (docs/architecture.md "Data access"). `wallet/addresses.ts` derives keys and calls these.
import { and, asc, eq, gte, isNull, lt, sql } from "drizzle-orm";
import { prepared, writing, type DbOrTx } from "../db/client";
import { addresses, derivationCounters, derivationFloors } from "../db/schema";
import { count } from "drizzle-orm";
import { settings } from "../db/schema";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

export type AddressRow = typeof addresses.$inferSelect;
export type NewAddressRow = typeof addresses.$inferInsert;

/** A chain's floor (a restore's gap raises it), as SQL on the chain parameter ?1. */
const FLOOR_OF = "coalesce((SELECT next_index FROM derivation_floors WHERE chain = ?1), 0)";

/**
 * Takes a chain's next HD index: at or above 1 (0 is the gas wallet) and the chain's floor, past
 * every index taken before. One statement reads and raises the counter row inside the caller's
 * write transaction, so two writers (two gateways, a CLI command beside one) never take one index.
 */
export const TAKE_DERIVATION_INDEX = `
  INSERT INTO derivation_counters (chain, next_index, updated_at) VALUES (?1, max(1, ${FLOOR_OF}) + 1, ?2)
  ON CONFLICT (chain) DO UPDATE SET next_index = max(next_index, 1, ${FLOOR_OF}) + 1, updated_at = excluded.updated_at
  RETURNING next_index - 1 AS i`;

export async function takeDerivationIndex(tx: DbOrTx, chain: string, now: number): Promise<number> {
  if (isPg(tx)) return await pg.takeDerivationIndex(pgOf(tx), chain, now);
  return prepared(writing(tx), "takeDerivationIndex", (d) => d.$client.prepare<{ i: number }, [string, number]>(TAKE_DERIVATION_INDEX)).get(chain, now)!.i;
}

/** The index takeDerivationIndex would take next, without taking it (a restore's gap starts there). */
export async function peekDerivationIndex(tx: DbOrTx, chain: string): Promise<number> {
  if (isPg(tx)) return await pg.peekDerivationIndex(pgOf(tx), chain);
  const counter = tx.select({ n: derivationCounters.nextIndex }).from(derivationCounters).where(eq(derivationCounters.chain, chain)).get()?.n ?? 0;
  const floor = tx.select({ n: derivationFloors.nextIndex }).from(derivationFloors).where(eq(derivationFloors.chain, chain)).get()?.n ?? 0;
  return Math.max(1, counter, floor);
}

export async function insertAddressRow(tx: DbOrTx, row: NewAddressRow): Promise<AddressRow> {
  if (isPg(tx)) return await pg.insertAddressRow(pgOf(tx), row);
  return tx.insert(addresses).values(row).returning().get();
}

/** The gas wallet row of a chain, if derived already. */
export async function gasWalletRow(tx: DbOrTx, chain: string): Promise<AddressRow | undefined> {
  if (isPg(tx)) return await pg.gasWalletRow(pgOf(tx), chain);
  return tx.select().from(addresses).where(and(eq(addresses.chain, chain), eq(addresses.kind, "gas"))).get();
}

/** The merchant's shared pool on a chain, oldest first (soft-deleted ones excluded). */
export async function sharedPool(tx: DbOrTx, merchantId: number, chain: string): Promise<AddressRow[]> {
  if (isPg(tx)) return await pg.sharedPool(pgOf(tx), merchantId, chain);
  const q = prepared(tx, "sharedPool", (d) =>
    d
      .select()
      .from(addresses)
      .where(and(eq(addresses.merchantId, sql.placeholder("m")), eq(addresses.chain, sql.placeholder("c")), eq(addresses.kind, "shared"), isNull(addresses.deletedAt)))
      .orderBy(asc(addresses.derivationIndex))
      .prepare(),
  );
  return q.all({ m: merchantId, c: chain });
}

/** The live exclusive address of (merchant, chain, bindKey), if any. */
export async function liveExclusive(tx: DbOrTx, merchantId: number, chain: string, bindKey: string): Promise<AddressRow | undefined> {
  if (isPg(tx)) return await pg.liveExclusive(pgOf(tx), merchantId, chain, bindKey);
  return tx
    .select()
    .from(addresses)
    .where(and(eq(addresses.merchantId, merchantId), eq(addresses.chain, chain), eq(addresses.kind, "exclusive"), eq(addresses.bindKey, bindKey), isNull(addresses.deletedAt)))
    .get();
}

export async function findAddress(tx: DbOrTx, chain: string, address: string): Promise<AddressRow | undefined> {
  if (isPg(tx)) return await pg.findAddress(pgOf(tx), chain, address);
  return prepared(tx, "addressByChainAddress", (d) =>
    d.select().from(addresses).where(and(eq(addresses.chain, sql.placeholder("c")), eq(addresses.address, sql.placeholder("a")))).prepare(),
  ).get({ c: chain, a: address });
}

export async function addressById(tx: DbOrTx, id: string): Promise<AddressRow | undefined> {
  if (isPg(tx)) return await pg.addressById(pgOf(tx), id);
  return prepared(tx, "addressById", (d) => d.select().from(addresses).where(eq(addresses.id, sql.placeholder("id"))).prepare()).get({ id });
}

/**
 * The newest change sequence of `addresses`, any chain (0: none). Every address with a sequence up
 * to it has committed: the counter row is raised in the inserting transaction (migrations/0312).
 */
export async function addressesTop(db: DbOrTx): Promise<number> {
  if (isPg(db)) return await pg.addressesTop(pgOf(db));
  return prepared(db, "addressesTop", (d) => d.$client.prepare<{ v: number }, []>("SELECT value AS v FROM address_watch_seq WHERE id = 1")).get()?.v ?? 0;
}

export const WATCH_SET_SINCE = "SELECT address AS a FROM addresses WHERE watch_seq > ? AND watch_seq <= ? AND chain = ?";

/** A chain's addresses with a change sequence in (after, upTo]: a watch set's refresh. */
export async function addressesSince(db: DbOrTx, chain: string, after: number, upTo: number): Promise<string[]> {
  if (isPg(db)) return await pg.addressesSince(pgOf(db), chain, after, upTo);
  return prepared(db, "watchSetSince", (d) => d.$client.prepare<{ a: string }, [number, number, string]>(WATCH_SET_SINCE))
    .all(after, upTo, chain)
    .map((r) => r.a);
}

/** The HD indexes of a chain already stored in [from, to) (a restore's gap). */
export async function indexesIn(db: DbOrTx, chain: string, from: number, to: number): Promise<number[]> {
  if (isPg(db)) return await pg.indexesIn(pgOf(db), chain, from, to);
  return db
    .select({ i: addresses.derivationIndex })
    .from(addresses)
    .where(and(eq(addresses.chain, chain), gte(addresses.derivationIndex, from), lt(addresses.derivationIndex, to)))
    .all()
    .map((r) => r.i);
}

/** Inserts derived rows, skipping any already stored (a restore's gap addresses). */
export async function insertAddressesIfAbsent(tx: DbOrTx, rows: NewAddressRow[]): Promise<void> {
  if (isPg(tx)) return await pg.insertAddressesIfAbsent(pgOf(tx), rows);
  for (const r of rows) tx.insert(addresses).values(r).onConflictDoNothing().run();
}

/** Every chain with a stored address. */
export async function addressChains(tx: DbOrTx): Promise<string[]> {
  if (isPg(tx)) return await pg.addressChains(pgOf(tx));
  return tx.selectDistinct({ c: addresses.chain }).from(addresses).all().map((r) => r.c);
}

/** Sets a chain's next-index floor (a restore raises it by restore.index_gap). */
export async function setDerivationFloor(tx: DbOrTx, chain: string, nextIndex: number, now: number): Promise<void> {
  if (isPg(tx)) return await pg.setDerivationFloor(pgOf(tx), chain, nextIndex, now);
  tx.insert(derivationFloors)
    .values({ chain, nextIndex, updatedAt: now })
    .onConflictDoUpdate({ target: derivationFloors.chain, set: { nextIndex, updatedAt: now } })
    .run();
}

// --- the wallet seed (wallet/seed.ts) ---

/** Where the encrypted wallet seed is kept in `settings`. */
const SEED_KEY = "wallet_seed";

/** The encrypted wallet seed, if the database has one (wallet/seed.ts decrypts it). */
export async function storedSeed(db: DbOrTx): Promise<string | undefined> {
  if (isPg(db)) return await pg.storedSeed(pgOf(db));
  return db.select().from(settings).where(eq(settings.key, SEED_KEY)).get()?.value;
}

export async function insertSeed(db: DbOrTx, encrypted: string, now: number): Promise<void> {
  if (isPg(db)) return await pg.insertSeed(pgOf(db), encrypted, now);
  db.insert(settings).values({ key: SEED_KEY, value: encrypted, updatedAt: now }).run();
}

/** Whether any address was ever derived (a database without its seed is then damaged). */
export async function anyAddress(db: DbOrTx): Promise<boolean> {
  if (isPg(db)) return await pg.anyAddress(pgOf(db));
  return (db.select({ n: count() }).from(addresses).get()?.n ?? 0) > 0;
}

// --- the chain layer's port to the addresses (chains/module.ts OutgoingQuery.addressesAfter) ---

export const ADDRESS_ROWS_AFTER = "SELECT address AS a, watch_seq AS s FROM addresses WHERE watch_seq > ? AND watch_seq <= ? AND chain = ?";

/**
 * A chain's addresses stored after change sequence `after`, with their sequences, up to the
 * newest committed one (addresses are only ever inserted: a reader keeps the highest it saw).
 */
export async function addressRowsAfter(db: DbOrTx, chain: string, after: number): Promise<{ address: string; seq: number }[]> {
  if (isPg(db)) return await pg.addressRowsAfter(pgOf(db), chain, after);
  const top = await addressesTop(db);
  if (top <= after) return [];
  return prepared(db, "addressRowsAfter", (d) => d.$client.prepare<{ a: string; s: number }, [number, number, string]>(ADDRESS_ROWS_AFTER))
    .all(after, top, chain)
    .map((r) => ({ address: r.a, seq: r.s }));
}

// --- payout source addresses ---
// The payout rules' questions about a source (payout/service.ts): the merchant's own address,
// addresses by text, retiring a source after its payout.

/** One of the merchant's addresses on the chain (payouts to it are 54003). */
export async function merchantHasAddress(db: DbOrTx, merchantId: number, chain: string, address: string): Promise<boolean> {
  if (isPg(db)) return await pg.merchantHasAddress(pgOf(db), merchantId, chain, address);
  return !!db.select({ id: addresses.id }).from(addresses).where(and(eq(addresses.merchantId, merchantId), eq(addresses.chain, chain), eq(addresses.address, address))).get();
}

/** Every address row with this text, any chain, any merchant (the caller filters). */
export async function addressesNamed(tx: DbOrTx, address: string): Promise<AddressRow[]> {
  if (isPg(tx)) return await pg.addressesNamed(pgOf(tx), address);
  return tx.select().from(addresses).where(eq(addresses.address, address)).all();
}

/** Soft-deletes a payout's source (deleteSourceAfterSuccess), unless already deleted. */
export async function retireSource(tx: DbOrTx, addressId: string, now: number): Promise<void> {
  if (isPg(tx)) return await pg.retireSource(pgOf(tx), addressId, now);
  tx.update(addresses).set({ deletedAt: now }).where(and(eq(addresses.id, addressId), isNull(addresses.deletedAt))).run();
}
