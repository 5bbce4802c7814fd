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
// PostgreSQL with several gateways (DESIGN 22 "Shared state", issue 38): once serve hands the
// cache to its cluster bus (followBus(), and invalidate() on every api_keys / merchant_settings
// invalidation and on a reconnect of the bus; the database notifies every change to merchants or
// api_keys in the change's transaction, delivered at COMMIT), the per-use version read goes:
// inside a transaction it is not made, outside one it is made at most every FOLLOWED_RECHECK_MS
// (whatever this process commits), a bound on staleness should a notification be lost.
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
/** With a cluster bus followed (PostgreSQL): the version is read at most this often (ms), outside transactions only. */
export const FOLLOWED_RECHECK_MS = 1000;

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
  /** FOLLOWED_RECHECK_MS; a test sets Infinity to prove the notifications alone invalidate. */
  followedRecheckMs = FOLLOWED_RECHECK_MS;
  private followed = false;

  /** Drops every entry; a lookup reading meanwhile does not store what it read. */
  clear(): void {
    this.entries.clear();
    this.currentKeys.clear();
    this.merchants.clear();
    this.generation++;
  }

  /** Invalidated by the cluster bus from now on (invalidate() on its messages): no version read per use. */
  followBus(): void {
    this.followed = true;
    // Whatever changed before the subscription was not announced to it.
    this.invalidate();
  }

  /** A merchant or an API key changed somewhere (the bus said so, or it reconnected): every entry goes. */
  invalidate(): void {
    this.clear();
    this.checkedAt = -Infinity;
  }

  get following(): boolean {
    return this.followed;
  }

  /**
   * What a lookup read may be kept: not after a clear since its reads began, and, following the
   * bus, not when read inside a transaction (it may see that transaction's own change, whose
   * notification a rollback never sends; the version read that catches it on SQLite is not made).
   */
  private storable(gen: number): boolean {
    return gen === this.generation && !(this.followed && inTransaction(this.db));
  }

  private async fresh(): Promise<void> {
    const now = performance.now();
    if (this.followed) {
      if (inTransaction(this.db) || now - this.checkedAt < this.followedRecheckMs) return;
      this.checkedAt = now;
      return await this.readVersion();
    }
    const commits = ownCommits(this.db);
    const inTx = inTransaction(this.db);
    if (!inTx && now - this.checkedAt < RECHECK_MS && commits === this.checkedCommits) return;
    // A read inside a transaction may see that transaction's own change, which can still roll
    // back: it is never reused outside.
    this.checkedAt = inTx ? -Infinity : now;
    this.checkedCommits = commits;
    await this.readVersion();
  }

  private async readVersion(): Promise<void> {
    const v = await this.version();
    if (v !== this.seen) {
      this.clear();
      this.seen = v;
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
    if (!this.storable(gen)) return entry;
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
    if (!this.storable(gen)) return m;
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
    if (!this.storable(gen)) return id;
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
