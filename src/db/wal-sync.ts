// The WAL's fsync off the event loop (issue 37, docs/transactions.md "Durability: the WAL's
// fsync off the event loop").
//
// With `synchronous = FULL` every COMMIT fsyncs the WAL on the thread that runs it: the event
// loop's, blocked ~1 ms per commit (a quarter of the gateway's wall time under create load). The
// write connection runs at `synchronous = NORMAL` instead (COMMIT writes its frames to the WAL
// and returns; SQLite itself still syncs the WAL before every checkpoint and the database file
// after it), and this module makes each commit durable with an `fdatasync` of the `-wal` file on
// libuv's thread pool. A commit is numbered when its COMMIT returns; its writer awaits a sync that
// STARTED after that (`untilDurable`): one sync covers every commit made before it began, so
// concurrent commits share one. Nothing waits for it under the write mutex: the next transaction
// runs while the disk works.
//
// What is held back until then (client.ts writeTx, group-commit.ts): the caller's promise (the
// HTTP response), the transaction's after-commit hooks (callback wake-ups, metrics), and so
// everything that follows from them (a callback delivered, a transaction broadcast). A kill -9
// loses nothing of a returned COMMIT (its frames are in the page cache); the sync is for power
// loss, as FULL's was.
//
// A failed sync is sticky: after an fsync error Linux may have dropped the dirty pages, so no
// later sync can vouch for them. Every waiter then and after gets a storage fault (503 / 10003)
// until a restart (PostgreSQL panics on the same error).
//
// Opt-in for now (SG_SYNC_OFF_LOOP=1, read when a connection opens): on the loaded 2-core machine of
// 2026-11-29 it freed the loop (in COMMIT 30 % -> 6-8 %) and raised create throughput ~20 %, but
// the groups got smaller (21-25 -> 15-20 writes per commit) and the CPU per create did not fall
// (median 1.50x the floor against 1.43x; docs/performance.md "Issue 37: the create's CPU and its
// commit"). Without it the connection stays at FULL, the fsync inside COMMIT.
import type { Database } from "bun:sqlite";
import { closeSync, fdatasync, fdatasyncSync, openSync } from "node:fs";
import { resolve } from "node:path";

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class WalSync {
  private fd: number | null = null;
  /** Commits made on the connection (numbered as each COMMIT returns). */
  private committed = 0;
  /** Every commit up to this number is on disk. */
  private durable = 0;
  private syncing = false;
  private closed = false;
  private failed: Error | null = null;
  private waiters: Waiter[] = [];
  /** Syncs run and their wall time on the thread pool (/metrics, benches). */
  syncs = 0;
  syncMs = 0;

  constructor(private readonly walPath: string) {}

  /** Numbers a commit whose COMMIT just returned; `untilDurable(seq)` waits for it. */
  committedNow(): number {
    return ++this.committed;
  }

  /** Null when commit `seq` is on disk already, else a promise that settles once a sync begun after it has ended. */
  untilDurable(seq: number): Promise<void> | null {
    if (this.failed) return Promise.reject(this.failed);
    if (seq <= this.durable) return null;
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ seq, resolve, reject });
      this.kick();
    });
  }

  /** Starts a sync when none runs and someone waits (a sync begun now covers every commit so far). */
  private kick(): void {
    if (this.syncing || this.closed || this.failed || this.waiters.length === 0) return;
    let fd: number;
    try {
      fd = this.fd ??= openSync(this.walPath, "r+");
    } catch (e) {
      return this.fail(e);
    }
    this.syncing = true;
    const upTo = this.committed;
    const t0 = performance.now();
    fdatasync(fd, (err) => {
      this.syncing = false;
      this.syncs++;
      this.syncMs += performance.now() - t0;
      if (err) return this.fail(err);
      this.settle(upTo);
      this.kick();
    });
  }

  /** Resolves the waiters of commits up to `upTo`. */
  private settle(upTo: number): void {
    if (upTo > this.durable) this.durable = upTo;
    const ready = this.waiters.filter((w) => w.seq <= upTo);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.seq > upTo);
    for (const w of ready) w.resolve();
  }

  private fail(cause: unknown): void {
    const code = (cause as { code?: unknown })?.code;
    this.failed ??= Object.assign(new Error(`disk I/O error: the WAL's fdatasync failed (${String(code ?? cause)}); writes fail until a restart`, { cause }), { code: "SQLITE_IOERR_FSYNC" });
    const all = this.waiters;
    this.waiters = [];
    for (const w of all) w.reject(this.failed);
  }

  /** At close: what was committed is synced here, on the caller's thread, and every waiter answered. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.fd === null && this.committed > this.durable) this.fd = openSync(this.walPath, "r+");
      if (this.fd !== null && this.committed > this.durable && !this.failed) fdatasyncSync(this.fd);
      this.settle(this.committed);
    } catch (e) {
      this.fail(e);
    } finally {
      if (this.fd !== null) closeSync(this.fd);
      this.fd = null;
    }
  }
}

const byClient = new WeakMap<Database, WalSync>();

/** Whether the WAL is synced off the loop (SG_SYNC_OFF_LOOP=1), or inside COMMIT (FULL, the default). */
export function syncOffLoop(): boolean {
  return process.env.SG_SYNC_OFF_LOOP === "1";
}

/** Called by openDb for a file database's write connection, once its pragmas ran: NORMAL, and the syncs here. */
export function installWalSync(client: Database, dbPath: string): void {
  client.run("PRAGMA synchronous = NORMAL");
  // Resolved now: the file is opened at the first sync, whatever the working directory is then.
  byClient.set(client, new WalSync(`${resolve(dbPath)}-wal`));
}

/** The connection's WAL sync (null: none, the fsync is in COMMIT). */
export function walSyncOf(client: Database): WalSync | null {
  return byClient.get(client) ?? null;
}

/** Numbers the commit that just returned on `client` (0 when COMMIT synced it itself). */
export function walCommitted(client: Database): number {
  return byClient.get(client)?.committedNow() ?? 0;
}

/** Null when commit `seq` of `client` is durable, else a promise that settles once it is (a failed sync rejects). */
export function untilDurable(client: Database, seq: number): Promise<void> | null {
  if (seq === 0) return null;
  return byClient.get(client)?.untilDurable(seq) ?? null;
}

/** WAL syncs run so far on a SQLite write connection (0 in memory or without SG_SYNC_OFF_LOOP=1): /metrics (0 on PostgreSQL there). */
export function walSyncs(client: Database): number {
  return byClient.get(client)?.syncs ?? 0;
}

/** At close: syncs what is still unsynced, answers every waiter. */
export function closeWalSync(client: Database): void {
  byClient.get(client)?.close();
}
