// The signed-request hot path without per-request crypto or query building:
// per API key (as presented), its row, its merchant's whole row, the decrypted
// secret and the merchant's current key id. Dropped whole whenever the `auth`
// cache version moves (db/cache-version.ts: any change to merchants or
// api_keys, from this process or the CLI), checked with one prepared SELECT.
// Inside a transaction that SELECT costs ~2 µs and runs on every use; outside
// one it opens a read transaction (~8-10 µs, once per signed request), so it is
// skipped when the last read is under RECHECK_MS old and this process has
// committed nothing since (a change made here always goes through a commit).
// A change committed by another process (the CLI) is therefore seen at most
// RECHECK_MS later, within the window that already separates a request's
// verification from its group commit.
// A lookup's reads are awaits (a round trip on PostgreSQL): a change can commit,
// and another request clear the maps, between them. Every clear moves `generation`;
// a lookup notes it before its reads and stores what it read only if it has not
// moved (otherwise it answers with the row uncached), so a row read before a
// change is never kept after the clear made for that change (one integer compare).
import { inTransaction, ownCommits, type Db } from "../db/client";
import { versionReader } from "../db/cache-version";
import { connectionKey } from "../db/engine";
import { keyCacheLookups } from "./store";
import type { Cipher } from "../secrets/cipher";
import type { ApiKeyRow, Merchant } from "./service";

export interface KeyEntry {
  key: ApiKeyRow;
  merchant: Merchant;
  /** The decrypted key, used to verify request signatures. */
  secret: string;
  /** The merchant's current key (orders are bound to it). */
  currentKeyId: string | undefined;
}

/** A bound on memory: many distinct keys (an attack, or many merchants) just start over. */
const MAX_ENTRIES = 10_000;
/** Outside a transaction, the version read is reused this long (ms) while this process commits nothing. */
export const RECHECK_MS = 1;
/**
 * PostgreSQL with the cluster bus (DESIGN 22 "Shared state"): the database notifies every gateway
 * of a change to merchants or api_keys at its commit (migration 0470), which makes the next use
 * read the version; otherwise the read is reused this long (ms), which also bounds what a
 * notification lost while the listening connection was down can hide (the bus drops the caches
 * when it is back).
 */
export const BUS_RECHECK_MS = 1000;

export class KeyCache {
  private entries = new Map<string, KeyEntry>();
  private currentKeys = new Map<number, string | undefined>();
  private merchants = new Map<number, Merchant>();
  private seen = -2;
  /** Moves on every clear: an entry read under an older generation is not stored. */
  private generation = 0;
  private readonly version: () => Promise<number>;
  private readonly lookups: ReturnType<typeof keyCacheLookups>;

  constructor(private readonly db: Db, private readonly cipher: Cipher) {
    this.version = versionReader(db, "auth");
    this.lookups = keyCacheLookups(db);
  }

  private checkedAt = -Infinity;
  private checkedCommits = -1;
  private recheckMs = RECHECK_MS;

  /** The cluster bus delivers this database's invalidations: read the version at most every BUS_RECHECK_MS, and at once after invalidate(). */
  followBus(): void {
    this.recheckMs = BUS_RECHECK_MS;
  }

  /** Another gateway (or the CLI) changed a merchant or a key: the next use reads the version. */
  invalidate(): void {
    this.checkedAt = -Infinity;
  }

  private async fresh(): Promise<void> {
    const now = performance.now();
    const commits = ownCommits(this.db);
    const inTx = inTransaction(this.db);
    if (!inTx && now - this.checkedAt < this.recheckMs && commits === this.checkedCommits) return;
    // A read inside a transaction may see that transaction's own change, which can still roll
    // back: it is never reused outside.
    this.checkedAt = inTx ? -Infinity : now;
    this.checkedCommits = commits;
    const v = await this.version();
    if (v !== this.seen) {
      this.entries.clear();
      this.currentKeys.clear();
      this.merchants.clear();
      this.seen = v;
      this.generation++;
    }
  }

  /** The key presented in a request, with its merchant; undefined for an unknown key. */
  async lookup(apiKey: string): Promise<KeyEntry | undefined> {
    await this.fresh();
    const hit = this.entries.get(apiKey);
    if (hit) return hit;
    const gen = this.generation;
    const key = await this.lookups.keyByHash(this.cipher.lookupHash(apiKey));
    if (!key) return undefined;
    const merchant = await this.merchant(key.merchantId);
    if (!merchant) return undefined;
    const entry: KeyEntry = { key, merchant, secret: this.cipher.decrypt(key.secretEnc), currentKeyId: await this.currentKeyId(key.merchantId) };
    if (gen !== this.generation) return entry;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(apiKey, entry);
    return entry;
  }

  /** A merchant's whole row. */
  async merchant(id: number): Promise<Merchant | undefined> {
    await this.fresh();
    let m = this.merchants.get(id);
    if (m) return m;
    const gen = this.generation;
    m = await this.lookups.merchantById(id);
    if (!m) return undefined;
    if (gen !== this.generation) return m;
    if (this.merchants.size >= MAX_ENTRIES) this.merchants.clear();
    this.merchants.set(id, m);
    return m;
  }

  /** The merchant's current key id (cached with the same invalidation). */
  async currentKeyId(merchantId: number): Promise<string | undefined> {
    await this.fresh();
    if (this.currentKeys.has(merchantId)) return this.currentKeys.get(merchantId);
    const gen = this.generation;
    const id = await this.lookups.currentKeyId(merchantId);
    if (gen !== this.generation) return id;
    if (this.currentKeys.size >= MAX_ENTRIES) this.currentKeys.clear();
    this.currentKeys.set(merchantId, id);
    return id;
  }
}

const byClient = new WeakMap<object, KeyCache>();

/** The key cache of this connection. */
export function keyCache(db: Db, cipher: Cipher): KeyCache {
  let c = byClient.get(connectionKey(db));
  if (!c) byClient.set(connectionKey(db), (c = new KeyCache(db, cipher)));
  return c;
}

/** The key cache of this connection if a request built one (callers without a cipher). */
export function existingKeyCache(db: Db): KeyCache | undefined {
  return byClient.get(connectionKey(db));
}
