// The transaction client drizzle's bun-sql session runs a PostgreSQL transaction on (db/tx-pg.ts),
// in fewer round trips than Bun's `begin`/`savepoint` (issue 38: a create paid 8 round trips, 3 of
// them BEGIN, SAVEPOINT and RELEASE, each a wait of 0.3-1 ms on a loaded machine):
// - BEGIN, SAVEPOINT and RELEASE SAVEPOINT are sent without waiting for their answer; the next
//   statement goes out behind them on the same connection (Bun pipelines a reserved connection's
//   queries in order) and its result is only handed back once theirs came in, so an error of
//   theirs is the statement's error. BEGIN + the first statement, SAVEPOINT + the savepoint's first
//   statement are one round trip each; a RELEASE right before COMMIT is not sent at all.
// - COMMIT is awaited (durability: the answer waits for it), and checked: PostgreSQL answers COMMIT
//   of a failed transaction with the tag ROLLBACK and no error, which is reported as an error here
//   (Bun's `begin` took it for a commit).
// - On an error the transaction is rolled back (ROLLBACK, or ROLLBACK TO SAVEPOINT for a savepoint)
//   and the connection goes back to the pool; a connection whose ROLLBACK failed is closed instead.
// Bun pipelines only queries of the extended protocol: a query without parameters through
// `unsafe` goes as a simple query, which waits for everything before it and is waited for. So the
// transaction's own statements go as tagged queries (the extended protocol, prepared once per text).
// Everything else is what Bun's `begin` did: one reserved connection, the body's statements in
// order on it, READ COMMITTED.
import type { ReservedSQL, SQL } from "bun";

/** The strings of the transaction's own statements as tagged queries (a handful of texts: BEGIN, s0…sN, COMMIT). */
const OWN = new Map<string, TemplateStringsArray>();

/** A statement sent ahead and not awaited yet: resolves to its error, or null. */
type Ahead = Promise<unknown>;

export class CommitRolledBack extends Error {
  constructor() {
    super("COMMIT answered ROLLBACK: a statement of the transaction had failed, nothing of it was written");
    this.name = "CommitRolledBack";
  }
}

/** A query as drizzle's bun-sql session uses it: `unsafe(text, params)`, optionally `.values()`, then awaited. */
class PipedQuery implements PromiseLike<unknown> {
  private arrays = false;
  private started: Promise<unknown> | null = null;
  constructor(
    private readonly tx: PipedTx,
    private readonly text: string,
    private readonly params: unknown[] | undefined,
  ) {}
  values(): this {
    this.arrays = true;
    return this;
  }
  then<R1 = unknown, R2 = never>(ok?: ((v: unknown) => R1 | PromiseLike<R1>) | null, ko?: ((e: unknown) => R2 | PromiseLike<R2>) | null): Promise<R1 | R2> {
    this.started ??= this.tx.send(this.text, this.params, this.arrays);
    return this.started.then(ok, ko);
  }
}

/** One transaction on a reserved connection (the `client` drizzle's session and savepoints query through). */
export class PipedTx {
  private ahead: Ahead[] = [];
  private savepoints = 0;
  /** RELEASEs of savepoints that succeeded, sent only when another statement follows: COMMIT ends them all. */
  private releases: string[] = [];
  constructor(private readonly conn: ReservedSQL) {}

  unsafe(text: string, params?: unknown[]): PipedQuery {
    return new PipedQuery(this, text, params);
  }

  /** Sends one of the transaction's own statements now; its answer is checked with the next statement's. */
  sendAhead(text: string): void {
    this.flushReleases();
    this.pushAhead(text);
  }

  private pushAhead(text: string): void {
    // `then` starts a Bun query at once, so it is on the wire before anything sent after it.
    this.ahead.push(this.own(text).then(() => null, (e: unknown) => e ?? new Error(`${text} failed`)));
  }

  /** BEGIN, SAVEPOINT, … as a tagged query: the extended protocol, so it pipelines. */
  private own(text: string): SQL.Query<unknown> {
    let strings = OWN.get(text);
    if (!strings) OWN.set(text, (strings = Object.freeze(Object.defineProperty([text], "raw", { value: Object.freeze([text]) })) as unknown as TemplateStringsArray));
    return this.conn(strings);
  }

  /**
   * Sends a statement behind those sent ahead; its result once they and it answered (their error
   * first). The statement is on the wire when this returns (the body up to its first await runs at
   * the call), so a caller may send more behind it before awaiting it (db/tx-pg.ts `pgPipe`).
   */
  async send(text: string, params: unknown[] | undefined, arrays: boolean, own = false): Promise<unknown> {
    this.flushReleases();
    const query = own ? this.own(text) : params ? this.conn.unsafe(text, params) : this.conn.unsafe(text);
    const q = arrays ? query.values() : query;
    const ahead = this.ahead;
    this.ahead = [];
    const result = q.then((r: unknown) => ({ r }), (e: unknown) => ({ e }));
    const errors = await Promise.all(ahead);
    const settled = await result;
    const first = errors.find((e) => e !== null);
    if (first) throw first;
    if ("e" in settled) throw settled.e;
    return settled.r;
  }

  /** The RELEASEs held back, in the order their savepoints ended (inner first), ahead of what follows them. */
  private flushReleases(): void {
    if (!this.releases.length) return;
    const held = this.releases;
    this.releases = [];
    for (const r of held) this.pushAhead(r);
  }

  /**
   * drizzle's nested transaction: SAVEPOINT sent ahead, ROLLBACK TO awaited on failure. On success
   * the RELEASE is held back and goes out ahead of the transaction's next statement; when COMMIT or
   * ROLLBACK is next it is never sent (COMMIT keeps a savepoint's work whether released or not,
   * ROLLBACK drops it): a signed create's savepoint (http/signed.ts) ends right before COMMIT, so
   * that is one statement fewer per create on both sides of the wire.
   */
  async savepoint<T>(fn: (tx: PipedTx) => Promise<T>): Promise<T> {
    const name = `s${this.savepoints++}`;
    this.sendAhead(`SAVEPOINT ${name}`);
    let value: T;
    try {
      value = await fn(this);
    } catch (e) {
      // Held RELEASEs are of savepoints inside this one (entering it sent the earlier ones): the rollback ends them.
      this.releases = [];
      await this.send(`ROLLBACK TO SAVEPOINT ${name}`, undefined, false, true);
      throw e;
    }
    this.releases.push(`RELEASE SAVEPOINT ${name}`);
    return value;
  }

  async commit(): Promise<void> {
    this.releases = [];
    const r = (await this.send("COMMIT", undefined, false, true)) as { command?: string };
    if (r.command === "ROLLBACK") throw new CommitRolledBack();
  }

  /** Rolls back; false when the connection could not (it is then closed, not reused). */
  async rollback(): Promise<boolean> {
    this.releases = [];
    try {
      await this.send("ROLLBACK", undefined, false, true);
      return true;
    } catch {
      // ahead statements' errors are not the rollback's: one more try tells whether the connection works
      return await this.conn.unsafe("ROLLBACK").then(() => true, () => false);
    }
  }
}

/**
 * Bun's `sql.begin(fn)` with BEGIN, SAVEPOINT and RELEASE pipelined (above): reserves a connection,
 * runs `fn` on a PipedTx over it, commits (or rolls back on a throw) and releases the connection.
 */
export async function pipedBegin<T>(pool: SQL, fn: (tx: PipedTx) => Promise<T>): Promise<T> {
  const conn = await pool.reserve();
  const tx = new PipedTx(conn);
  let reusable = true;
  try {
    tx.sendAhead("BEGIN");
    let value: T;
    try {
      value = await fn(tx);
    } catch (e) {
      reusable = await tx.rollback();
      throw e;
    }
    await tx.commit();
    return value;
  } finally {
    if (reusable) await conn.release();
    else await conn.close({ timeout: 0 }).catch(() => undefined);
  }
}

/**
 * One statement in a transaction of its own, `settings` (`SET LOCAL …`) first, BEGIN to COMMIT in
 * one round trip: everything is on the wire before anything is awaited. Its rows; when it fails,
 * its error (COMMIT then answered ROLLBACK: nothing written). A connection left in doubt (BEGIN,
 * a setting or COMMIT failed) is closed, not reused.
 */
export async function pipedStatement<R>(pool: SQL, settings: readonly string[], text: string, params: unknown[]): Promise<R[]> {
  const conn = await pool.reserve();
  const tx = new PipedTx(conn);
  let reusable = false;
  try {
    tx.sendAhead("BEGIN");
    for (const s of settings) tx.sendAhead(s);
    const rows = tx.send(text, params, false).then((r) => ({ r }), (e: unknown) => ({ e }));
    const committed = tx.commit().then(() => null, (e: unknown) => e ?? new Error("COMMIT failed"));
    const [done, commitError] = await Promise.all([rows, committed]);
    if ("e" in done) {
      reusable = commitError instanceof CommitRolledBack;
      throw done.e;
    }
    if (commitError) throw commitError;
    reusable = true;
    return done.r as R[];
  } finally {
    if (reusable) await conn.release();
    else await conn.close({ timeout: 0 }).catch(() => undefined);
  }
}

/** The pool as drizzle's client, its `begin` pipelined (drizzle's `transaction` calls `client.begin`). */
export function pipelinedClient(pool: SQL): SQL {
  const begin = <T>(fn: (tx: PipedTx) => Promise<T>) => pipedBegin(pool, fn);
  return new Proxy(pool, {
    get(target, prop) {
      if (prop === "begin" || prop === "transaction") return begin;
      const v = Reflect.get(target, prop) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
