// Gateway addresses: HD-derived per chain. Index 0 of every chain is the gas
// wallet; merchant addresses take the next free index.
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { prepared, type DbOrTx } from "../db/client";
import { addresses, derivationFloors } from "../db/schema";
import type { ChainAdapter, ChainCode, WatchSet } from "../chains/types";
import type { AddressBook } from "../chains/payout-steps";
import { newId } from "../lib/ids";
import { GAS_WALLET_INDEX } from "../chains/derivation-index";

export type AddressRow = typeof addresses.$inferSelect;

/**
 * The next HD index of a chain: past every stored address and at or above the chain's floor,
 * which a restore raises by restore.index_gap (src/restore/generation.ts). Index 0 is the gas wallet.
 */
export function nextIndexOf(tx: DbOrTx, chain: string): number {
  const r = tx.select({ m: sql<number | null>`max(${addresses.derivationIndex})` }).from(addresses).where(eq(addresses.chain, chain)).get();
  const floor = tx.select({ n: derivationFloors.nextIndex }).from(derivationFloors).where(eq(derivationFloors.chain, chain)).get()?.n ?? 0;
  return Math.max(1, (r?.m ?? 0) + 1, floor);
}

function insertAddress(
  tx: DbOrTx,
  a: { adapter: ChainAdapter; seed: Uint8Array; merchantId: number | null; kind: AddressRow["kind"]; index: number; bindKey?: string | null; now: number },
): AddressRow {
  const { address } = a.adapter.deriveKey(a.seed, a.index);
  return tx
    .insert(addresses)
    .values({ id: newId("AD"), merchantId: a.merchantId, chain: a.adapter.chain, kind: a.kind, derivationIndex: a.index, address, bindKey: a.bindKey ?? null, createdAt: a.now })
    .returning()
    .get();
}

export function gasWallet(tx: DbOrTx, adapter: ChainAdapter, seed: Uint8Array, now: number): AddressRow {
  const existing = tx.select().from(addresses).where(and(eq(addresses.chain, adapter.chain), eq(addresses.kind, "gas"))).get();
  return existing ?? insertAddress(tx, { adapter, seed, merchantId: null, kind: "gas", index: GAS_WALLET_INDEX, now });
}

/** The merchant's shared pool on a chain, oldest first (soft-deleted ones excluded). */
export function sharedPool(tx: DbOrTx, merchantId: number, chain: ChainCode): AddressRow[] {
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

export function addSharedAddress(tx: DbOrTx, adapter: ChainAdapter, seed: Uint8Array, merchantId: number, now: number): AddressRow {
  return insertAddress(tx, { adapter, seed, merchantId, kind: "shared", index: nextIndexOf(tx, adapter.chain), now });
}

/**
 * The live address of (merchant, chain, bindKey): USDT and USDC bindings share it.
 * A soft-deleted one (retired by a payout) is replaced by a fresh address.
 */
export function exclusiveAddress(tx: DbOrTx, adapter: ChainAdapter, seed: Uint8Array, merchantId: number, bindKey: string, now: number): AddressRow {
  const existing = tx
    .select()
    .from(addresses)
    .where(
      and(eq(addresses.merchantId, merchantId), eq(addresses.chain, adapter.chain), eq(addresses.kind, "exclusive"), eq(addresses.bindKey, bindKey), isNull(addresses.deletedAt)),
    )
    .get();
  return existing ?? insertAddress(tx, { adapter, seed, merchantId, kind: "exclusive", index: nextIndexOf(tx, adapter.chain), bindKey, now });
}

export function findAddress(tx: DbOrTx, chain: string, address: string): AddressRow | undefined {
  return prepared(tx, "addressByChainAddress", (d) =>
    d.select().from(addresses).where(and(eq(addresses.chain, sql.placeholder("c")), eq(addresses.address, sql.placeholder("a")))).prepare(),
  ).get({ c: chain, a: address });
}

export function addressById(tx: DbOrTx, id: string): AddressRow | undefined {
  return prepared(tx, "addressById", (d) => d.select().from(addresses).where(eq(addresses.id, sql.placeholder("id"))).prepare()).get({ id });
}

/** The address book as the chain modules' payout steps and jobs reach it (src/chains/payout-steps.ts). */
export const addressBook: AddressBook = { byId: addressById, gasWallet };

/**
 * Every gateway address of a chain (soft-deleted ones too: nothing received is
 * dropped), kept in memory; a refresh reads only rows added since the last one.
 */
export class AddressWatchSet implements WatchSet {
  private set = new Set<string>();
  /** Highest rowid read so far: addresses are only ever inserted (retired ones stay watched). */
  private lastRowid = 0;
  constructor(private readonly db: DbOrTx, private readonly chain: ChainCode) {}

  /** Adds addresses inserted since the last refresh (one rowid range read; no count). */
  refresh(): this {
    // Up to the newest row of any chain, so other chains' rows are never read twice.
    const top = prepared(this.db, "addressesTop", (d) => d.$client.prepare<{ m: number | null }, []>("SELECT max(rowid) AS m FROM addresses")).get()?.m ?? 0;
    if (top <= this.lastRowid) return this;
    const rows = prepared(this.db, "watchSetSince", (d) =>
      d.$client.prepare<{ a: string }, [number, number, string]>("SELECT address AS a FROM addresses WHERE rowid > ? AND rowid <= ? AND chain = ?"),
    ).all(this.lastRowid, top, this.chain);
    for (const r of rows) this.set.add(r.a);
    this.lastRowid = top;
    return this;
  }
  has(address: string): boolean {
    return this.set.has(address);
  }
  get size(): number {
    return this.set.size;
  }
  addresses(): Iterable<string> {
    return this.set.values();
  }
}
