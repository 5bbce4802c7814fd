// wallet/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
import { and, asc, count, eq, gte, isNull, lt, sql } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { addresses, derivationCounters, derivationFloors, settings } from "../db/schema-pg";
import type { AddressRow, NewAddressRow } from "./store";

async function rows<T>(db: PgQ, q: ReturnType<typeof sql>): Promise<T[]> {
  return (await db.execute(q)) as unknown as T[];
}

/**
 * The next HD index of a chain, as on SQLite: one statement reads and raises the counter row in the
 * caller's transaction (the row lock orders two gateways), never max(index)+1.
 */
export async function takeDerivationIndex(tx: PgQ, chain: string, now: number): Promise<number> {
  const floor = sql`coalesce((SELECT next_index FROM derivation_floors WHERE chain = ${chain}), 0)`;
  const [r] = await rows<{ i: string | number }>(
    tx,
    sql`INSERT INTO derivation_counters AS c (chain, next_index, updated_at) VALUES (${chain}, greatest(1, ${floor}) + 1, ${now})
        ON CONFLICT (chain) DO UPDATE SET next_index = greatest(c.next_index, 1, ${floor}) + 1, updated_at = excluded.updated_at
        RETURNING c.next_index - 1 AS i`,
  );
  return Number(r!.i);
}

export async function peekDerivationIndex(tx: PgQ, chain: string): Promise<number> {
  const counter = (await firstRow(tx.select({ n: derivationCounters.nextIndex }).from(derivationCounters).where(eq(derivationCounters.chain, chain))))?.n ?? 0;
  const floor = (await firstRow(tx.select({ n: derivationFloors.nextIndex }).from(derivationFloors).where(eq(derivationFloors.chain, chain))))?.n ?? 0;
  return Math.max(1, counter, floor);
}

export async function insertAddressRow(tx: PgQ, row: NewAddressRow): Promise<AddressRow> {
  return (await firstRow(tx.insert(addresses).values(row).returning()))!;
}

export async function gasWalletRow(tx: PgQ, chain: string): Promise<AddressRow | undefined> {
  return await firstRow(tx.select().from(addresses).where(and(eq(addresses.chain, chain), eq(addresses.kind, "gas"))));
}

/**
 * Read to grow the pool (payin/service.ts, payin/invoice-network.ts): first a transaction-scoped
 * advisory lock per (merchant, chain), so two transactions (two gateways, or two requests on one
 * pool) never both see room for the last address and grow the pool past shared_pool_size. The
 * second reads the pool once the first committed (READ COMMITTED: a new snapshot per statement).
 */
export async function sharedPool(tx: PgQ, merchantId: number, chain: string): Promise<AddressRow[]> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`stablegate.shared-pool:${merchantId}:${chain}`}))`);
  return await tx
    .select()
    .from(addresses)
    .where(and(eq(addresses.merchantId, merchantId), eq(addresses.chain, chain), eq(addresses.kind, "shared"), isNull(addresses.deletedAt)))
    .orderBy(asc(addresses.derivationIndex));
}

export async function liveExclusive(tx: PgQ, merchantId: number, chain: string, bindKey: string): Promise<AddressRow | undefined> {
  return await firstRow(
    tx
      .select()
      .from(addresses)
      .where(and(eq(addresses.merchantId, merchantId), eq(addresses.chain, chain), eq(addresses.kind, "exclusive"), eq(addresses.bindKey, bindKey), isNull(addresses.deletedAt))),
  );
}

export async function findAddress(tx: PgQ, chain: string, address: string): Promise<AddressRow | undefined> {
  return await firstRow(tx.select().from(addresses).where(and(eq(addresses.chain, chain), eq(addresses.address, address))));
}

export async function addressById(tx: PgQ, id: string): Promise<AddressRow | undefined> {
  return await firstRow(tx.select().from(addresses).where(eq(addresses.id, id)));
}

export async function addressesTop(db: PgQ): Promise<number> {
  const [r] = await rows<{ v: string | number }>(db, sql`SELECT value AS v FROM address_watch_seq WHERE id = 1`);
  return r ? Number(r.v) : 0;
}

export async function addressesSince(db: PgQ, chain: string, after: number, upTo: number): Promise<string[]> {
  const r = await rows<{ a: string }>(db, sql`SELECT address AS a FROM addresses WHERE chain = ${chain} AND watch_seq > ${after} AND watch_seq <= ${upTo}`);
  return r.map((x) => x.a);
}

export async function indexesIn(db: PgQ, chain: string, from: number, to: number): Promise<number[]> {
  const r = await db
    .select({ i: addresses.derivationIndex })
    .from(addresses)
    .where(and(eq(addresses.chain, chain), gte(addresses.derivationIndex, from), lt(addresses.derivationIndex, to)));
  return r.map((x) => x.i);
}

export async function insertAddressesIfAbsent(tx: PgQ, list: NewAddressRow[]): Promise<void> {
  for (const r of list) await tx.insert(addresses).values(r).onConflictDoNothing();
}

export async function addressChains(tx: PgQ): Promise<string[]> {
  return (await tx.selectDistinct({ c: addresses.chain }).from(addresses)).map((r) => r.c);
}

export async function setDerivationFloor(tx: PgQ, chain: string, nextIndex: number, now: number): Promise<void> {
  await tx.insert(derivationFloors).values({ chain, nextIndex, updatedAt: now }).onConflictDoUpdate({ target: derivationFloors.chain, set: { nextIndex, updatedAt: now } });
}

const SEED_KEY = "wallet_seed";

export async function storedSeed(db: PgQ): Promise<string | undefined> {
  return (await firstRow(db.select().from(settings).where(eq(settings.key, SEED_KEY))))?.value;
}

export async function insertSeed(db: PgQ, encrypted: string, now: number): Promise<void> {
  await db.insert(settings).values({ key: SEED_KEY, value: encrypted, updatedAt: now });
}

export async function anyAddress(db: PgQ): Promise<boolean> {
  return ((await firstRow(db.select({ n: count() }).from(addresses)))?.n ?? 0) > 0;
}

export async function addressRowsAfter(db: PgQ, chain: string, after: number): Promise<{ address: string; seq: number }[]> {
  const top = await addressesTop(db);
  if (top <= after) return [];
  const r = await rows<{ a: string; s: string | number }>(db, sql`SELECT address AS a, watch_seq AS s FROM addresses WHERE chain = ${chain} AND watch_seq > ${after} AND watch_seq <= ${top}`);
  return r.map((x) => ({ address: x.a, seq: Number(x.s) }));
}

export async function merchantHasAddress(db: PgQ, merchantId: number, chain: string, address: string): Promise<boolean> {
  return !!(await firstRow(db.select({ id: addresses.id }).from(addresses).where(and(eq(addresses.merchantId, merchantId), eq(addresses.chain, chain), eq(addresses.address, address)))));
}

export async function addressesNamed(tx: PgQ, address: string): Promise<AddressRow[]> {
  return await tx.select().from(addresses).where(eq(addresses.address, address));
}

export async function retireSource(tx: PgQ, addressId: string, now: number): Promise<void> {
  await tx.update(addresses).set({ deletedAt: now }).where(and(eq(addresses.id, addressId), isNull(addresses.deletedAt)));
}
