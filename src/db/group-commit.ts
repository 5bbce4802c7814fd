// Group commit (DESIGN 11): the writes of concurrent requests share one
// `BEGIN IMMEDIATE … COMMIT`, so one WAL fsync (synchronous FULL stays) pays
// for many requests. Each request runs in its own SAVEPOINT: a failing one
// rolls back alone. Every request is answered only after the COMMIT that holds
// its writes has returned, so nothing acknowledged can be lost.
//
// Jobs are async (stores return promises): a group takes the connection's write
// mutex (db/write-lock.ts) before BEGIN, runs its jobs one after another (each
// awaited inside its savepoint, in the transaction context, so a job's nested
// writeTx joins), commits once and releases the mutex. On SQLite the jobs await
// only stores, so a group still runs start to end inside one turn of the event
// loop. Requests that arrive while a group is committing (the fsync blocks the
// loop) queue up and form the next group.
import type { Database } from "bun:sqlite";
import { crashPoint } from "../lib/crash";
import { guardWrite, joinForeignTransaction, noteCommit, type Db, type Tx, writeTx } from "./client";
import { isPg, pgState } from "./engine";
import { acquireWrite, inTxContext, openToken, runInTx, watchForIo } from "./write-lock";
import { dropFrame, inFrame, pushFrame, releaseFrame, runHooks } from "./after-commit";
import { untilDurable, walSyncOf } from "./wal-sync";

export interface GroupJob<T> {
  /** The request's writes; runs inside its savepoint. */
  work: () => Promise<T> | T;
  /**
   * Runs when `work` threw, after its savepoint was rolled back, in a fresh
   * savepoint of the same group (e.g. a failed request still records its nonce).
   * Its own failure is rolled back too and ignored in favour of the first error.
   */
  recover?: (error: unknown) => unknown;
  /**
   * `work` is a single statement (a nonce's INSERT): on PostgreSQL it runs on its own, the
   * statement its own transaction, instead of BEGIN + statement + COMMIT (inside a transaction
   * already, it joins that one). SQLite ignores it (the job joins the group as any other).
   */
  oneStatement?: boolean;
}

interface Queued {
  job: GroupJob<unknown>;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/** Keeps one group's latency bounded when thousands of requests are waiting. */
const MAX_GROUP = 512;
/**
 * With the WAL synced off the loop (SG_SYNC_OFF_LOOP=1): how long the next group waits for more
 * requests when fewer are queued than the last group carried. Requests are parsed one by one while
 * the disk works, so without it the groups shrank (15-20 writes per commit against 21-25 with the
 * fsync in COMMIT); with it 20-22 (docs/performance.md "Issue 37: the create's CPU and its commit").
 */
const GATHER_MS = 1;

export class GroupCommit {
  private queue: Queued[] = [];
  private scheduled = false;
  /** A flush is under way (its group runs or commits). */
  private flushing = false;
  /** Groups committed so far (crash tests name one by its number). */
  groups = 0;
  /** Jobs (requests, callback claims…) that ran in those groups. */
  jobs = 0;
  /** Wall time spent in COMMIT (the WAL fsync blocks the event loop): /metrics and `make bench`. */
  commitMs = 0;
  /**
   * Tests only (null in production): awaited once a group's jobs ran, before its COMMIT, with the
   * group's transaction open and the write mutex held; a throw rolls the whole group back (as a
   * failed COMMIT does). Shows what other code sees of an open group (db/read-connection.test.ts).
   */
  holdBeforeCommit: (() => Promise<void>) | null = null;

  // Built once: Database.run would compile these for every request.
  private readonly savepoint;
  private readonly release;
  private readonly rollbackTo;

  constructor(private readonly client: Database) {
    this.savepoint = client.prepare("SAVEPOINT grp");
    this.release = client.prepare("RELEASE grp");
    this.rollbackTo = client.prepare("ROLLBACK TO grp");
  }

  /** Queues `job` for the next group; resolves with its result once that group has committed. */
  run<T>(job: GroupJob<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ job: job as GroupJob<unknown>, resolve: resolve as (v: unknown) => void, reject });
      // A flush under way takes it in its next group (it loops while jobs are queued).
      if (!this.scheduled && !this.flushing) {
        this.scheduled = true;
        // After the I/O callbacks of this loop turn: every request parsed in this
        // turn joins the group.
        setImmediate(() => void this.flush());
      }
    });
  }

  /** Commits everything queued now (also used by tests). */
  async flush(): Promise<void> {
    this.scheduled = false;
    this.flushing = true;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, MAX_GROUP);
        try {
          await this.commit(batch);
        } catch (e) {
          // A failure before the group's own handling (the connection closed at shutdown, the
          // mutex): every job of the batch is answered with it (a settled one stays as it is), and
          // the flush, started with `void` from setImmediate, never rejects (Bun exits on that).
          for (const q of batch) q.reject(e);
        }
        // The group waited for its WAL sync (db/wal-sync.ts), a thread-pool completion: the requests
        // whose bytes arrived meanwhile are parsed in this loop turn's I/O phase. One turn for them,
        // so they join the next group instead of the one after (as a flush from setImmediate does),
        // and a short gather when fewer are queued than this group carried.
        if (this.queue.length && walSyncOf(this.client)) {
          await new Promise<void>((r) => setImmediate(r));
          if (this.queue.length < batch.length) await new Promise<void>((r) => setTimeout(r, GATHER_MS));
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /** Whether a group is waiting to run or running now: a write joining it shares its COMMIT. */
  get busy(): boolean {
    return this.scheduled || this.flushing;
  }

  private async commit(batch: Queued[]): Promise<void> {
    const c = this.client;
    // Flushed from inside a transaction body (a test): the jobs join that transaction.
    if (inTxContext(c)) return await (await this.commitLocked(batch))?.();
    const release = await acquireWrite(c);
    let answer: (() => Promise<void> | void) | null;
    try {
      answer = await this.commitLocked(batch);
    } finally {
      release();
    }
    await answer?.();
  }

  /**
   * Runs the group under the write mutex up to its COMMIT. Returns what follows once the mutex is
   * released (null: nothing, every job was answered): the wait for the WAL's sync (db/wal-sync.ts),
   * then the hooks and the answers. The flush awaits it before its next group (one group in flight).
   */
  private async commitLocked(batch: Queued[]): Promise<(() => Promise<void> | void) | null> {
    const c = this.client;
    // Someone else's transaction is open (a raw BEGIN, or the caller's own transaction):
    // run each job alone inside it rather than nesting BEGIN.
    // A transaction left open behind the machinery's back is rolled back (client.ts joinForeignTransaction).
    if (!inFrame(c) && c.inTransaction) joinForeignTransaction(c);
    const own = !c.inTransaction;
    // The group's after-commit frame: each job's savepoint hands its hooks here when it
    // is released; they run once COMMIT has returned. Inside someone else's frame the
    // hooks join theirs; inside a raw transaction they are dropped (never run early).
    const foreign = !own && !inFrame(c);
    const results: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      if (own) {
        await guardWrite(c);
        c.run("BEGIN IMMEDIATE");
      }
    } catch (e) {
      for (const q of batch) q.reject(e);
      return null;
    }
    if (own || foreign) pushFrame(c);
    const io = own ? watchForIo() : null;
    // The group's transaction context, closed when the group ends (a timer a job left behind runs outside it).
    const token = inTxContext(c) ? undefined : openToken(c);
    try {
      // One transaction context for the whole group (not one per job): every job's nested
      // writeTx joins it the same way; the token closes it when the group ends.
      await runInTx(c, () => this.runAll(batch, results), token);
      io?.check();
    } catch (e) {
      if (token) token.open = false;
      io?.stop();
      // The transaction itself broke (e.g. disk full aborts it): nothing of this group stands.
      if (own || foreign) dropFrame(c);
      if (own) {
        try {
          c.run("ROLLBACK");
        } catch {}
      }
      for (const q of batch) q.reject(e);
      return null;
    }
    if (token) token.open = false;
    io?.stop();
    this.groups++;
    this.jobs += batch.length;
    let seq = 0;
    let hooks: ReturnType<typeof releaseFrame> = [];
    if (own) {
      crashPoint(`group-commit:${this.groups}`);
      try {
        // Tests only: the group held open before its COMMIT; a throw rolls it back as a failed COMMIT does.
        if (this.holdBeforeCommit) await this.holdBeforeCommit();
        const t0 = performance.now();
        c.run("COMMIT");
        this.commitMs += performance.now() - t0;
        seq = noteCommit(c);
      } catch (e) {
        dropFrame(c);
        try {
          c.run("ROLLBACK");
        } catch {}
        for (const q of batch) q.reject(e);
        return null;
      }
      hooks = releaseFrame(c);
    } else if (foreign) dropFrame(c);
    return async () => {
      const durable = untilDurable(c, seq);
      if (durable) {
        try {
          await durable;
        } catch (e) {
          // Committed but not known to be on disk: no hook runs, every job gets the storage fault.
          for (const q of batch) q.reject(e);
          return;
        }
      }
      runHooks(hooks);
      batch.forEach((q, i) => {
        const r = results[i]!;
        if (r.ok) q.resolve(r.value);
        else q.reject(r.error);
      });
    };
  }

  private async runAll(batch: Queued[], results: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }>): Promise<void> {
    for (const q of batch) results.push(await this.runOne(q.job));
  }

  private async runOne(job: GroupJob<unknown>): Promise<{ ok: true; value: unknown } | { ok: false; error: unknown }> {
    const c = this.client;
    this.savepoint.run();
    pushFrame(c);
    try {
      const value = await job.work();
      this.release.run();
      releaseFrame(c);
      return { ok: true, value };
    } catch (error) {
      dropFrame(c);
      this.rollbackTo.run();
      if (job.recover) {
        pushFrame(c);
        try {
          await job.recover(error);
          releaseFrame(c);
        } catch {
          dropFrame(c);
          this.rollbackTo.run();
        }
      }
      this.release.run();
      return { ok: false, error };
    }
  }
}

const byClient = new WeakMap<Database, GroupCommit>();

/** What callers of the group commit use: `run` and the counters /metrics reads. */
export type GroupRunner = Pick<GroupCommit, "run" | "flush" | "groups" | "jobs" | "commitMs" | "busy">;

/**
 * PostgreSQL has no group commit (docs/postgresql.md): each job is its own transaction on a
 * pooled connection (the server's WAL flush groups concurrent commits), with the same meaning:
 * `work` commits or rolls back whole, and `recover` then runs in a transaction of its own (its
 * failure ignored in favour of the first error).
 */
class PgJobs implements GroupRunner {
  groups = 0;
  jobs = 0;
  commitMs = 0;
  /** Never: no group waits to be joined (sharedWriteTx commits alone). */
  readonly busy = false;
  constructor(private readonly db: Db) {}
  /** Nothing is ever queued: each job commits on its own. */
  async flush(): Promise<void> {}
  async run<T>(job: GroupJob<T>): Promise<T> {
    try {
      const value = job.oneStatement ? await job.work() : await writeTx(this.db, async () => await job.work());
      this.groups++;
      this.jobs++;
      return value;
    } catch (e) {
      if (job.recover) await writeTx(this.db, async () => void (await job.recover!(e))).catch(() => undefined);
      throw e;
    }
  }
}
const pgJobs = new WeakMap<object, PgJobs>();

/** The group committer of this connection (one per database handle); per-request transactions on PostgreSQL. */
export function groupCommit(db: Db): GroupRunner {
  if (isPg(db)) {
    const pool = pgState(db).pool;
    let g = pgJobs.get(pool);
    if (!g) pgJobs.set(pool, (g = new PgJobs(db)));
    return g;
  }
  let g = byClient.get(db.$client);
  if (!g) byClient.set(db.$client, (g = new GroupCommit(db.$client)));
  return g;
}

/**
 * A background write (a watcher's scanned blocks and cursor, a sandbox block) that shares a
 * commit when there is one to share: while a group is waiting or running (requests under load),
 * it is one more job of the next group, so it adds its statements to that COMMIT instead of a
 * COMMIT of its own (an fsync on the loop's thread, ~20 a second from the watchers and sandbox
 * chains, each stalling every request in flight); an idle gateway commits it alone as before.
 * Either way it is a writeTx body (stores only, no I/O), its own savepoint or transaction, and
 * it returns once its COMMIT has.
 */
export async function sharedWriteTx<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const g = groupCommit(db);
  if (!g.busy || inTxContext(db.$client)) return await writeTx(db, fn);
  return await g.run({ work: async () => await writeTx(db, fn) });
}
