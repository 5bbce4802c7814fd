// Gateway addresses: HD-derived per chain. Index 0 of every chain is the gas
// wallet; merchant addresses take the next free index.
import { type DbOrTx, readCommitted } from "../db/client";
import type { ChainAdapter, ChainCode, WatchSet } from "../chains/types";
import type { AddressBook } from "../chains/payout-steps";
import { newId } from "../lib/ids";
import { GAS_WALLET_INDEX } from "../chains/derivation-index";
import { addressById, addressesSince, addressesTop, gasWalletRow, insertAddressesIfAbsent, insertAddressRow, liveExclusive, peekDerivationIndex, takeDerivationIndex, type AddressRow } from "./store";

export { addressById, findAddress, sharedPool, type AddressRow } from "./store";

/**
 * The next HD index of a chain, not taken: past every index taken (the chain's counter row) and at
 * or above the chain's floor, which a restore raises by restore.index_gap (src/restore/generation.ts).
 * Index 0 is the gas wallet.
 */
export async function nextIndexOf(tx: DbOrTx, chain: string): Promise<number> {
  return await peekDerivationIndex(tx, chain);
}

async function insertAddress(
  tx: DbOrTx,
  a: { adapter: ChainAdapter; seed: Uint8Array; merchantId: number | null; kind: AddressRow["kind"]; index: number; bindKey?: string | null; now: number },
): Promise<AddressRow> {
  const { address } = a.adapter.deriveKey(a.seed, a.index);
  return await insertAddressRow(tx, { id: newId("AD"), merchantId: a.merchantId, chain: a.adapter.chain, kind: a.kind, derivationIndex: a.index, address, bindKey: a.bindKey ?? null, createdAt: a.now });
}

/**
 * The chain's gas wallet row, made on first use. Gateways of one PostgreSQL database (or two
 * lookups of one gateway) may make it at once: the later insert does nothing, waits for the
 * earlier one's commit, and reads its row (never a unique violation).
 */
export async function gasWallet(tx: DbOrTx, adapter: ChainAdapter, seed: Uint8Array, now: number): Promise<AddressRow> {
  const existing = await gasWalletRow(tx, adapter.chain);
  if (existing) return existing;
  const { address } = adapter.deriveKey(seed, GAS_WALLET_INDEX);
  await insertAddressesIfAbsent(tx, [{ id: newId("AD"), merchantId: null, chain: adapter.chain, kind: "gas", derivationIndex: GAS_WALLET_INDEX, address, bindKey: null, createdAt: now }]);
  return (await gasWalletRow(tx, adapter.chain))!;
}

export async function addSharedAddress(tx: DbOrTx, adapter: ChainAdapter, seed: Uint8Array, merchantId: number, now: number): Promise<AddressRow> {
  return await insertAddress(tx, { adapter, seed, merchantId, kind: "shared", index: await takeDerivationIndex(tx, adapter.chain, now), now });
}

/**
 * The live address of (merchant, chain, bindKey): USDT and USDC bindings share it.
 * A soft-deleted one (retired by a payout) is replaced by a fresh address.
 */
export async function exclusiveAddress(tx: DbOrTx, adapter: ChainAdapter, seed: Uint8Array, merchantId: number, bindKey: string, now: number): Promise<AddressRow> {
  const existing = await liveExclusive(tx, merchantId, adapter.chain, bindKey);
  return existing ?? await insertAddress(tx, { adapter, seed, merchantId, kind: "exclusive", index: await takeDerivationIndex(tx, adapter.chain, now), bindKey, now });
}

/** The address book as the chain modules' payout steps and jobs reach it (src/chains/payout-steps.ts). */
export const addressBook: AddressBook = { byId: addressById, gasWallet };

/**
 * Every gateway address of a chain (soft-deleted ones too: nothing received is
 * dropped), kept in memory; a refresh reads only rows added since the last one.
 * "Since" is the addresses' change sequence (watch_seq, raised from one counter row
 * in the inserting transaction), never a rowid: ids taken by two writers may commit
 * out of order, and a rowid watermark would step past the one committed last.
 */
export class AddressWatchSet implements WatchSet {
  private set = new Set<string>();
  /** Highest change sequence read so far: addresses are only ever inserted (retired ones stay watched). */
  private lastSeq = 0;
  constructor(private readonly db: DbOrTx, private readonly chain: ChainCode) {}

  /**
   * Adds addresses inserted since the last refresh (one sequence range read; no count). Read on
   * committed state only (readCommitted: never inside another writer's open transaction on the one
   * connection, whose rows may still roll back or be followed by lower sequences).
   */
  async refresh(): Promise<this> {
    await readCommitted(this.db, async (db) => {
      // Up to the counter (every sequence up to it has committed), any chain's, so other chains' rows are never read twice.
      const top = await addressesTop(db);
      if (top <= this.lastSeq) return;
      for (const a of await addressesSince(db, this.chain, this.lastSeq, top)) this.set.add(a);
      this.lastSeq = top;
    });
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
