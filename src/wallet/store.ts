// The wallet's storage module: every statement on `addresses` and `derivation_floors`
// (docs/architecture.md "Data access"). `wallet/addresses.ts` derives keys and calls these.
import { and, asc, eq, gte, isNull, lt, sql } from "drizzle-orm";
import { prepared, type DbOrTx } from "../db/client";
import { addresses, derivationFloors } from "../db/schema";
import { count } from "drizzle-orm";
import { settings } from "../db/schema";

export type AddressRow = typeof addresses.$inferSelect;
export type NewAddressRow = typeof addresses.$inferInsert;

/** The highest stored HD index of a chain (null: none) and the chain's floor (0: none). */
export function indexBounds(tx: DbOrTx, chain: string): { maxIndex: number | null; floor: number } {
  const r = tx.select({ m: sql<number | null>`max(${addresses.derivationIndex})` }).from(addresses).where(eq(addresses.chain, chain)).get();
  const floor = tx.select({ n: derivationFloors.nextIndex }).from(derivationFloors).where(eq(derivationFloors.chain, chain)).get()?.n ?? 0;
  return { maxIndex: r?.m ?? null, floor };
}

export function insertAddressRow(tx: DbOrTx, row: NewAddressRow): AddressRow {
  return tx.insert(addresses).values(row).returning().get();
}

/** The gas wallet row of a chain, if derived already. */
export function gasWalletRow(tx: DbOrTx, chain: string): AddressRow | undefined {
  return tx.select().from(addresses).where(and(eq(addresses.chain, chain), eq(addresses.kind, "gas"))).get();
}

/** The merchant's shared pool on a chain, oldest first (soft-deleted ones excluded). */
export function sharedPool(tx: DbOrTx, merchantId: number, chain: string): AddressRow[] {
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
export function liveExclusive(tx: DbOrTx, merchantId: number, chain: string, bindKey: string): AddressRow | undefined {
  return tx
    .select()
    .from(addresses)
    .where(and(eq(addresses.merchantId, merchantId), eq(addresses.chain, chain), eq(addresses.kind, "exclusive"), eq(addresses.bindKey, bindKey), isNull(addresses.deletedAt)))
    .get();
}

export function findAddress(tx: DbOrTx, chain: string, address: string): AddressRow | undefined {
  return prepared(tx, "addressByChainAddress", (d) =>
    d.select().from(addresses).where(and(eq(addresses.chain, sql.placeholder("c")), eq(addresses.address, sql.placeholder("a")))).prepare(),
  ).get({ c: chain, a: address });
}

export function addressById(tx: DbOrTx, id: string): AddressRow | undefined {
  return prepared(tx, "addressById", (d) => d.select().from(addresses).where(eq(addresses.id, sql.placeholder("id"))).prepare()).get({ id });
}

/** The newest rowid of `addresses`, any chain (0: empty). */
export function addressesTop(db: DbOrTx): number {
  return prepared(db, "addressesTop", (d) => d.$client.prepare<{ m: number | null }, []>("SELECT max(rowid) AS m FROM addresses")).get()?.m ?? 0;
}

/** A chain's addresses in the rowid range (after, upTo]: a watch set's refresh. */
export function addressesSince(db: DbOrTx, chain: string, after: number, upTo: number): string[] {
  return prepared(db, "watchSetSince", (d) =>
    d.$client.prepare<{ a: string }, [number, number, string]>("SELECT address AS a FROM addresses WHERE rowid > ? AND rowid <= ? AND chain = ?"),
  )
    .all(after, upTo, chain)
    .map((r) => r.a);
}

/** The HD indexes of a chain already stored in [from, to) (a restore's gap). */
export function indexesIn(db: DbOrTx, chain: string, from: number, to: number): number[] {
  return db
    .select({ i: addresses.derivationIndex })
    .from(addresses)
    .where(and(eq(addresses.chain, chain), gte(addresses.derivationIndex, from), lt(addresses.derivationIndex, to)))
    .all()
    .map((r) => r.i);
}

/** Inserts derived rows, skipping any already stored (a restore's gap addresses). */
export function insertAddressesIfAbsent(tx: DbOrTx, rows: NewAddressRow[]): void {
  for (const r of rows) tx.insert(addresses).values(r).onConflictDoNothing().run();
}

/** Every chain with a stored address. */
export function addressChains(tx: DbOrTx): string[] {
  return tx.selectDistinct({ c: addresses.chain }).from(addresses).all().map((r) => r.c);
}

/** Sets a chain's next-index floor (a restore raises it by restore.index_gap). */
export function setDerivationFloor(tx: DbOrTx, chain: string, nextIndex: number, now: number): void {
  tx.insert(derivationFloors)
    .values({ chain, nextIndex, updatedAt: now })
    .onConflictDoUpdate({ target: derivationFloors.chain, set: { nextIndex, updatedAt: now } })
    .run();
}

// --- the wallet seed (wallet/seed.ts) ---

/** Where the encrypted wallet seed is kept in `settings`. */
const SEED_KEY = "wallet_seed";

/** The encrypted wallet seed, if the database has one (wallet/seed.ts decrypts it). */
export function storedSeed(db: DbOrTx): string | undefined {
  return db.select().from(settings).where(eq(settings.key, SEED_KEY)).get()?.value;
}

export function insertSeed(db: DbOrTx, encrypted: string, now: number): void {
  db.insert(settings).values({ key: SEED_KEY, value: encrypted, updatedAt: now }).run();
}

/** Whether any address was ever derived (a database without its seed is then damaged). */
export function anyAddress(db: DbOrTx): boolean {
  return (db.select({ n: count() }).from(addresses).get()?.n ?? 0) > 0;
}

// --- the chain layer's port to the addresses (chains/module.ts OutgoingQuery.addressesAfter) ---

/** A chain's addresses stored after `afterRowid`, with their rowids (addresses are only ever inserted: a reader keeps the highest). */
export function addressRowsAfter(db: DbOrTx, chain: string, afterRowid: number): { address: string; rowid: number }[] {
  return prepared(db, "addressRowsAfter", (d) => d.$client.prepare<{ a: string; id: number }, [string, number]>("SELECT address AS a, rowid AS id FROM addresses WHERE chain = ? AND rowid > ?"))
    .all(chain, afterRowid)
    .map((r) => ({ address: r.a, rowid: r.id }));
}

// --- payout source addresses ---
// The payout rules' questions about a source (payout/service.ts): the merchant's own address,
// addresses by text, retiring a source after its payout.

/** One of the merchant's addresses on the chain (payouts to it are 54003). */
export function merchantHasAddress(db: DbOrTx, merchantId: number, chain: string, address: string): boolean {
  return !!db.select({ id: addresses.id }).from(addresses).where(and(eq(addresses.merchantId, merchantId), eq(addresses.chain, chain), eq(addresses.address, address))).get();
}

/** Every address row with this text, any chain, any merchant (the caller filters). */
export function addressesNamed(tx: DbOrTx, address: string): AddressRow[] {
  return tx.select().from(addresses).where(eq(addresses.address, address)).all();
}

/** Soft-deletes a payout's source (deleteSourceAfterSuccess), unless already deleted. */
export function retireSource(tx: DbOrTx, addressId: string, now: number): void {
  tx.update(addresses).set({ deletedAt: now }).where(and(eq(addresses.id, addressId), isNull(addresses.deletedAt))).run();
}
