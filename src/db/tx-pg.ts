// Transactions on PostgreSQL (DESIGN 22, docs/transactions.md "PostgreSQL"): `writeTx(db, async (tx) => …)`
// is a transaction on one pooled connection (drizzle's bun-sql driver: Bun SQL's `begin`). The
// meaning is SQLite's:
// - the code awaited from the body runs in the transaction's context (AsyncLocalStorage), so a
//   nested writeTx joins it and a store called with the outer handle queries inside it;
// - after-commit hooks run once COMMIT returned, never on rollback; a savepoint's hooks stand or
//   fall with it;
// - compare-and-set updates report what they changed (RETURNING), so two gateways never both apply
//   one change.
// Not needed here: the write mutex and the group commit (the pool gives concurrency, and the WAL
// flush already groups concurrent commits), the I/O guard (every store await is real I/O here; the
// rule "no fetch, timer or RPC inside a body" holds all the same).
// BEGIN, SAVEPOINT and RELEASE go out without a round trip of their own, ahead of the next statement
// on the same connection (db/tx-pg-pipe.ts); COMMIT is awaited and a COMMIT the server turned into a
// ROLLBACK is an error.
// A deadlock or serialization failure (40P01, 40001) rolls the whole transaction back: the
// outermost writeTx re-runs its body (bodies await stores only and their side effects wait for
// the commit, so a re-run is safe) up to PG_TX_ATTEMPTS times, then reports PgTxConflict. A unique
// violation is re-run the same way (the row another transaction just committed is then read, not
// inserted again), then thrown as it was.
import { AsyncLocalStorage } from "node:async_hooks";
import { SQL } from "bun";
import { drizzle } from "drizzle-orm/bun-sql";
import { openPg } from "./client-pg";
import { PipedTx, pipedStatement, pipelinedClient } from "./tx-pg-pipe";
import { type PgQ, type PgState, pgHandle, pgState } from "./engine";
import { runHooks } from "./after-commit";
import type { Db, Tx } from "./client";

type Hook = () => void;
interface TxFrame {
  pool: SQL;
  tx: PgQ;
  hooks: Hook[];
  /** Set once the transaction (or savepoint) ended: code still running in its context (a stray promise) falls back to the pool. */
  done: boolean;
}

const inside = new AsyncLocalStorage<TxFrame>();

export const PG_TX_ATTEMPTS = 4;

export class PgTxConflict extends Error {
  constructor(readonly attempts: number, readonly code: string, cause: unknown) {
    super(`the transaction conflicted with a concurrent one (${code === "40P01" ? "deadlock" : "serialization failure"}) ${attempts} times; nothing of it was written`, { cause });
    this.name = "PgTxConflict";
  }
}

/**
 * Opens the PostgreSQL handle services pass around: a pool of at most `poolSize` connections to
 * `url`, through openPg so a multi-host URL (target_session_attrs) follows a failover.
 */
export function openPgDb(url: string, poolSize = 10): Db {
  const pool = openPg(url, poolSize, { connectionTimeout: 10, idleTimeout: 60 });
  return pgDbOver(pool);
}

/**
 * A handle over a pool opened elsewhere (tests, the bench). drizzle gets no schema: the stores use
 * its query builders, never its relational `query.*` API, and with a schema every transaction and
 * savepoint built a relational builder per table (61 of them: 3-4 % of a gateway's CPU per create).
 */
export function pgDbOver(pool: SQL): Db {
  const root = drizzle({ client: pipelinedClient(pool) }) as unknown as PgState["root"];
  return pgHandle({ root, pool, current: () => currentTx(pool) });
}

/** Closes the pool behind a PostgreSQL handle. */
export async function closePg(db: Db): Promise<void> {
  await pgState(db).pool.close();
}

function openFrame(pool: SQL): TxFrame | null {
  const f = inside.getStore();
  return f && f.pool === pool && !f.done ? f : null;
}

function currentTx(pool: SQL): PgQ | null {
  return openFrame(pool)?.tx ?? null;
}

/**
 * The pipelined connection under `q` when `q` is an open transaction (or savepoint) of ours, else
 * null (the pool). A statement sent through `PipedTx.send` is on the wire when the call returns, so a
 * caller may start it, send more behind it, and await its result later (a create's nonce, issue 38).
 */
export function pgPipe(q: PgQ): PipedTx | null {
  const client = (q as unknown as { session?: { client?: unknown } }).session?.client;
  return client instanceof PipedTx ? client : null;
}

/**
 * A statement of fixed text with its parameters in order ($1, $2, …), without drizzle's `sql`
 * building (for the hot statements: a create's 40 parameters cost drizzle ~5 % of a gateway's CPU
 * per create, issue 38): through the open transaction's pipe (on the wire when this returns), else
 * the pool. Rows as objects.
 */
export async function pgSend<R>(q: PgQ, text: string, params: unknown[]): Promise<R[]> {
  const pipe = pgPipe(q);
  if (pipe) return (await pipe.send(text, params, false)) as R[];
  const client = (q as unknown as { session: { client: SQL } }).session.client;
  return (await client.unsafe(text, params)) as R[];
}

/**
 * pgSend for a row that is not money and is updated by every request (a rate bucket, issue 38):
 * outside a transaction, a transaction of its own with `synchronous_commit = off`, in one round
 * trip (tx-pg-pipe.ts pipedStatement). The row's lock is held while the statement runs, not
 * through the WAL flush of its commit, so concurrent requests on every gateway do not queue on one
 * flush each; a server crash may lose the last fraction of a second of such updates (at most
 * 3 x wal_writer_delay). Inside a transaction it is the transaction's statement (its commit decides).
 */
export async function pgSendUnflushed<R>(q: PgQ, text: string, params: unknown[]): Promise<R[]> {
  if (pgPipe(q)) return await pgSend<R>(q, text, params);
  const client = (q as unknown as { session: { client: SQL } }).session.client;
  return await pipedStatement<R>(client, UNFLUSHED, text, params);
}

const UNFLUSHED = ["SET LOCAL synchronous_commit = off"] as const;

/**
 * A statement on the pool planned once per pooled connection: PostgreSQL's generic plan forced
 * (`SET LOCAL plan_cache_mode = force_generic_plan`) with index access only (`SET LOCAL
 * enable_seqscan = off`: a plan built while the table was small would otherwise scan it whole for
 * as long as the plan is kept) and without JIT (`SET LOCAL jit = off`: a generic plan's estimates
 * passed jit_above_cost, and every execution then compiled ~160 functions, 0.4 s a claim), in a
 * transaction of its own, BEGIN to COMMIT in one round trip
 * (tx-pg-pipe.ts pipedStatement). For a large prepared statement made of seeks, whose plan does not
 * depend on the parameters but which the planner would plan on every execution (the callback claim,
 * issue 38: 4-8 ms of planning against 0.4 ms of execution per claim, a claim per 20 ms per
 * gateway). The plan is rebuilt when the tables' statistics change (ANALYZE), as any cached plan.
 */
export async function pgSendGenericPlan<R>(pool: SQL, text: string, params: unknown[]): Promise<R[]> {
  return await pipedStatement<R>(pool, GENERIC_PLAN, text, params);
}

/** The settings pgSendGenericPlan runs its statement with (exported for the plan tests). */
export const GENERIC_PLAN = ["SET LOCAL plan_cache_mode = force_generic_plan", "SET LOCAL enable_seqscan = off", "SET LOCAL jit = off"] as const;

/** True when the calling code runs inside a transaction body of this handle's pool. */
export function pgInTransaction(db: Db): boolean {
  return openFrame(pgState(db).pool) !== null;
}

export async function pgWriteTx<T>(db: Db, fn: (tx: Tx) => Promise<T> | T): Promise<T> {
  const s = pgState(db);
  if (openFrame(s.pool)) return await fn(db as Tx);
  for (let attempt = 1; ; attempt++) {
    let frame: TxFrame | null = null;
    try {
      const value = await s.root.transaction(async (tx) => {
        frame = { pool: s.pool, tx, hooks: [], done: false };
        return await inside.run(frame, async () => await fn(db as Tx));
      });
      const hooks = endFrame(frame);
      runHooks(hooks);
      return value;
    } catch (e) {
      endFrame(frame);
      const code = conflictCode(e);
      if (!code) {
        // A unique violation: another transaction committed the row this one was about to make
        // (two gateways picking one amount slot, recording one transfer, creating one binding).
        // Re-run: the body reads first, so it now finds that row and takes another slot or the
        // existing row. One that violates again every time is a bug: its own error, unchanged.
        if (uniqueViolation(e) && attempt < PG_TX_ATTEMPTS) {
          await Bun.sleep(Math.floor(Math.random() * 10 * attempt));
          continue;
        }
        throw e;
      }
      if (attempt >= PG_TX_ATTEMPTS) throw new PgTxConflict(attempt, code, e);
      await Bun.sleep(Math.floor(Math.random() * 10 * attempt));
    }
  }
}

function endFrame(frame: TxFrame | null): Hook[] {
  if (!frame) return [];
  const f = frame as TxFrame;
  f.done = true;
  return f.hooks;
}

/** A savepoint of the open transaction: its writes and hooks stand or fall together; `keep` false always rolls it back. */
async function inSavepoint<T>(parent: TxFrame, db: Db, fn: (tx: Tx) => Promise<T> | T, keep: boolean): Promise<T> {
  const sp = parent.tx as PgQ & { transaction<R>(f: (tx: PgQ) => Promise<R>): Promise<R> };
  let child: TxFrame | null = null;
  let value: T | undefined;
  try {
    await sp.transaction(async (tx) => {
      child = { pool: parent.pool, tx, hooks: [], done: false };
      value = await inside.run(child, async () => await fn(db as Tx));
      if (!keep) throw ROLL_BACK;
    });
  } catch (e) {
    endFrame(child);
    if (e === ROLL_BACK) return value as T;
    throw e;
  }
  parent.hooks.push(...endFrame(child));
  return value as T;
}

const ROLL_BACK = new Error("rolled back on purpose");

export async function pgSavepoint<T>(tx: Tx, fn: (tx: Tx) => Promise<T> | T): Promise<T> {
  const frame = openFrame(pgState(tx).pool);
  if (!frame) throw new Error("savepoint called outside writeTx");
  return await inSavepoint(frame, tx, fn, true);
}

export async function pgRolledBack<T>(db: Db, fn: (tx: Tx) => Promise<T> | T): Promise<T> {
  const s = pgState(db);
  const frame = openFrame(s.pool);
  if (frame) return await inSavepoint(frame, db, fn, false);
  let value: T | undefined;
  let outer: TxFrame | null = null;
  try {
    await s.root.transaction(async (tx) => {
      outer = { pool: s.pool, tx, hooks: [], done: false };
      value = await inside.run(outer, async () => await fn(db as Tx));
      throw ROLL_BACK;
    });
  } catch (e) {
    endFrame(outer);
    if (e !== ROLL_BACK) throw e;
  }
  return value as T;
}

export function pgAfterCommit(tx: Tx, fn: Hook): void {
  const frame = openFrame(pgState(tx).pool);
  if (!frame) throw new Error("afterCommit called outside writeTx: side effects must wait for a commit");
  frame.hooks.push(fn);
}

/** A unique violation (23505) anywhere in the error's cause chain. */
export function uniqueViolation(e: unknown): boolean {
  for (let c: unknown = e, depth = 0; c && depth < 5; c = (c as { cause?: unknown }).cause, depth++) {
    const o = c as { errno?: unknown; code?: unknown };
    if (o.errno === "23505" || o.code === "23505") return true;
  }
  return false;
}

/** The SQLSTATE of a deadlock or serialization failure anywhere in the error's cause chain, else null. */
export function conflictCode(e: unknown): "40001" | "40P01" | null {
  for (let c: unknown = e, depth = 0; c && depth < 5; c = (c as { cause?: unknown }).cause, depth++) {
    const o = c as { errno?: unknown; code?: unknown };
    for (const v of [o.errno, o.code]) if (v === "40001" || v === "40P01") return v;
  }
  return null;
}
