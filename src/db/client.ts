// One SQLite connection per process; pragmas set here and only here. Nothing assumes it is
// the only writer of the file: a CLI command, a backup or a second gateway may write beside
// it, so every status change is a compare-and-set (docs/design.md "No single writer").
import { Database, type Statement } from "bun:sqlite";
import { mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { and, eq, getTableColumns, getTableName, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import * as schema from "./schema";
import { dropFrame, inFrame, pushFrame, queueAfterCommit, releaseFrame, runHooks } from "./after-commit";
import { acquireWrite, assertWriting, inTxContext, openToken, runInTx, strictWrites, watchForIo } from "./write-lock";
import { isPg, pgSide } from "./engine";
import { closeWalSync, installWalSync, syncOffLoop, untilDurable, walCommitted } from "./wal-sync";

/** The PostgreSQL transaction machinery, loaded on a PostgreSQL handle's first transaction. */
const txPg = pgSide<typeof import("./tx-pg")>(() => require("./tx-pg"));

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };
declare const inWriteTx: unique symbol;
/**
 * The handle a transaction callback receives. With one connection a transaction
 * is simply "the database while BEGIN is open", so it is the same handle at run
 * time; the brand is the type-level proof that the code runs inside a write
 * transaction with an after-commit queue. Only writeTx, savepoint, rolledBack
 * and the group commit hand one out: a function that takes a Tx (it writes a
 * callback, counts a transition, wakes a worker) cannot be called with a bare Db.
 */
export type Tx = Db & { readonly [inWriteTx]: true };
/** Services take this so they compose inside a caller's transaction. */
export type DbOrTx = Db;

/** How long a connection waits for a lock another connection holds before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

export const PRAGMAS = [
  // First: every later pragma may need a lock (journal_mode reads the header, and the first
  // opener after a kill -9 recovers the WAL under an exclusive lock); another process (a
  // gateway, a backup, a CLI command) may hold one, and without a timeout the answer is an
  // immediate "database is locked".
  `PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`,
  "PRAGMA journal_mode = WAL",
  // FULL: a committed payment or payout survives power loss, not only a crash.
  "PRAGMA synchronous = FULL",
  "PRAGMA foreign_keys = ON",
  "PRAGMA temp_store = MEMORY",
];

export interface FileIdentity {
  path: string;
  dev: number;
  ino: number;
}
const identities = new WeakMap<Database, FileIdentity>();
const writeGuards = new WeakMap<Database, () => unknown>();

export function openDb(path: string): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { create: true, strict: true });
  for (const p of PRAGMAS) sqlite.run(p);
  // The WAL's fsync on the thread pool instead of inside COMMIT (db/wal-sync.ts): a commit's writer waits for it.
  if (path !== ":memory:" && syncOffLoop()) installWalSync(sqlite, path);
  if (path !== ":memory:") {
    // The file this connection opened: a file deleted or replaced under the process is told apart by it (src/ops/storage.ts).
    const st = statSync(path);
    identities.set(sqlite, { path, dev: st.dev, ino: st.ino });
  }
  const db = drizzle({ client: sqlite, schema, logger: writeCheck(sqlite) }) as Db;
  if (path !== ":memory:") withReadConnection(db, path);
  if (process.env.SG_STRICT_WRITES === "1") strictWrites(sqlite, true);
  return db;
}

// ---- The read connection (review R6, docs/transactions.md "Reads outside a transaction: the read connection") ----
//
// The write connection's open transaction (a group commit, a writeTx) is visible to every
// statement run on it, so a read that resumes while another request's group is open would see
// that group's uncommitted rows (an order whose create then rolls back). A file database gets a
// second connection, opened with the first (the same file, never one put in its place later), `query_only`: WAL gives each of its statements the
// last committed state. Reads outside a transaction of the caller's own go there; a transaction
// body (and anything it awaits) keeps the write connection and reads its own writes. The seam:
// - drizzle's one-shot statements: the write handle's session hands a read (select, or a WITH
//   without a write) made outside a transaction context to the read connection's session;
// - `prepared(db, …)`: the statement is built and cached on the connection the call routes to
//   (a write statement goes through `writing(db)`, which pins the write connection);
// - a raw read (`$client.query`) outside `prepared` routes itself: `readDb(db).$client`.
// PostgreSQL has nothing of this (each statement outside a transaction is its own pooled
// connection under READ COMMITTED).

interface ReadSide {
  path: string;
  db: Db | null;
  closed: boolean;
}
const readSides = new WeakMap<Database, ReadSide>();
/** The write-pinned twin of each routed handle (`writing(db)`): same connection, no read routing. */
const pinnedHandles = new WeakMap<Database, Db>();
const pinned = new WeakSet<object>();

interface OneTimeSession {
  prepareOneTimeQuery(query: { sql: string }, ...rest: unknown[]): unknown;
}

function withReadConnection(db: Db, path: string): void {
  const client = db.$client;
  const side: ReadSide = { path, db: null, closed: false };
  openReadSide(side);
  readSides.set(client, side);
  const session = (db as unknown as { session: OneTimeSession }).session;
  const own = session.prepareOneTimeQuery.bind(session);
  session.prepareOneTimeQuery = (query, ...rest) => {
    const r = isReadSql(query.sql) ? routedRead(client) : null;
    return r ? (r as unknown as { session: OneTimeSession }).session.prepareOneTimeQuery(query, ...rest) : own(query, ...rest);
  };
}

/** A statement that only reads: SELECT, or a WITH that holds no write. */
function isReadSql(text: string): boolean {
  const ch = text.trimStart().charCodeAt(0) | 0x20;
  return ch === 115 || (ch === 119 && !/\b(insert|update|delete|replace)\b/i.test(text));
}

/** The read connection's handle when a read from here goes there (outside the caller's own transaction), else null. */
function routedRead(client: Database): Db | null {
  const side = readSides.get(client);
  if (side === undefined || side.closed || inTxContext(client)) return null;
  return side.db ?? openReadSide(side);
}

function openReadSide(side: ReadSide): Db {
  // create: false: it opens the file the write connection just opened, never makes one.
  const sqlite = new Database(side.path, { strict: true, readwrite: true, create: false });
  sqlite.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  sqlite.run("PRAGMA temp_store = MEMORY");
  // It never writes: a write routed here by mistake fails instead of autocommitting beside the machinery.
  sqlite.run("PRAGMA query_only = ON");
  return (side.db = drizzle({ client: sqlite, schema }) as Db);
}

/**
 * Where a read made here goes: the read connection (committed state only) when the caller is
 * outside a transaction of its own on a file database, else `db` itself (inside a transaction
 * body: its own writes; PostgreSQL; an in-memory database, which has one connection).
 */
export function readDb(db: Db): Db {
  if (isPg(db)) return db;
  return routedRead(db.$client) ?? db;
}

/** `readDb(db)` for a statement that only reads (`text`), else `db`: where a hand-written statement runs. */
export function dbForSql(db: Db, text: string): Db {
  return isReadSql(text) ? readDb(db) : db;
}

/** Whether reads outside a transaction go to a read connection of their own (a file database on SQLite). */
export function hasReadConnection(db: Db): boolean {
  return !isPg(db) && readSides.has(db.$client);
}

/** The handle a write statement is built on: the write connection, whatever the context. */
function pinnedWrite<D extends Db>(db: D): D {
  const c = db.$client;
  if (pinned.has(db) || !readSides.has(c)) return db;
  let p = pinnedHandles.get(c);
  if (!p) {
    p = drizzle({ client: c, schema, logger: writeCheck(c) }) as Db;
    pinned.add(p);
    pinnedHandles.set(c, p);
  }
  return p as D;
}

/**
 * Has SQLite reload the planner statistics (sqlite_stat1) on both connections: a connection
 * loads them with its schema and never again on its own, so the read connection would plan with
 * the statistics of its first query forever. The read connection's reload takes the write lock
 * for a moment, so it runs under the write mutex (no transaction of the machinery open); from
 * inside a transaction body only the write connection reloads.
 */
export async function reloadStats(db: Db): Promise<void> {
  const c = db.$client;
  c.run("ANALYZE sqlite_schema");
  const side = readSides.get(c);
  if (!side?.db || side.closed || inTxContext(c)) return;
  const release = await acquireWrite(c);
  try {
    const r = side.db.$client;
    r.run("PRAGMA query_only = OFF");
    try {
      r.run("ANALYZE sqlite_schema");
    } finally {
      r.run("PRAGMA query_only = ON");
    }
  } finally {
    release();
  }
}

/**
 * Closes a SQLite handle's connections (the read connection too). `finalize`: close(true),
 * statements finalized now, the file released at once (close_v2 would keep it open until GC).
 */
export function closeSqlite(db: Db, finalize = false): void {
  const side = readSides.get(db.$client);
  if (side) {
    side.closed = true;
    side.db?.$client.close(finalize);
    side.db = null;
  }
  closeWalSync(db.$client);
  db.$client.close(finalize);
}

/**
 * Drizzle's query hook, run before every statement a store builds with drizzle: a write
 * (insert, update, delete, replace, or a WITH … that holds one) goes through `assertWriting`
 * (db/write-lock.ts). One character compared for a read.
 */
function writeCheck(client: Database) {
  return {
    logQuery(query: string): void {
      const ch = query.charCodeAt(0) | 0x20;
      // i(nsert) u(pdate) d(elete) r(eplace) w(ith)
      if (ch === 105 || ch === 117 || ch === 100 || ch === 114 || (ch === 119 && /\b(insert|update|delete)\b/i.test(query))) assertWriting(client);
    },
  };
}

/**
 * The handle a store's raw write statement (`$client.run`, a prepared INSERT/UPDATE/DELETE)
 * goes through: refuses it outside its own transaction while another one is open
 * (db/write-lock.ts `assertWriting`). Drizzle-built writes are checked by openDb's hook.
 */
export function writing<D extends Db>(db: D): D {
  assertWriting(db.$client);
  return pinnedWrite(db);
}

/**
 * Runs `fn` (reads) on committed state only: never while a transaction of the machinery is
 * open on the one connection (its uncommitted rows would be visible). It takes the write
 * mutex for the reads (at once when it is free), so writers wait the few statements it
 * takes. Inside a transaction body it is refused: the body's own uncommitted rows would be
 * read (a watch-set watermark must never pass a row that can still roll back).
 */
export async function readCommitted<T>(db: Db, fn: (db: Db) => Promise<T>): Promise<T> {
  // PostgreSQL: every statement outside a transaction reads committed state on a pooled connection.
  if (isPg(db)) {
    if (txPg.pgInTransaction(db)) throw new Error("readCommitted inside a transaction body: it would read the body's uncommitted rows");
    return await fn(db);
  }
  const c = db.$client;
  if (inTxContext(c)) throw new Error("readCommitted inside a transaction body: it would read the body's uncommitted rows");
  // Its reads go to the read connection (committed state only): no need to keep writers out.
  if (readSides.has(c)) return await fn(db);
  const release = await acquireWrite(c);
  try {
    return await fn(db);
  } finally {
    release();
  }
}

/** Closes the handle's connection (SQLite) or pool (PostgreSQL). */
export async function closeDb(db: Db): Promise<void> {
  if (isPg(db)) return await txPg.closePg(db);
  closeSqlite(db);
}

/** A Db over a connection opened elsewhere (restore's private copy of a backup), with the schema's tables. */
export function dbOver(client: Database): Db {
  return drizzle({ client, schema }) as Db;
}

/** A read-only connection (checks that must not touch the file, e.g. a master key before use). */
export function openReadonlyDb(path: string): Db {
  const sqlite = new Database(path, { readonly: true, strict: true });
  sqlite.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return drizzle({ client: sqlite, schema }) as Db;
}

/** The database file as it was when the connection opened (null for :memory:). */
export function fileIdentityAtOpen(db: Db): FileIdentity | null {
  return identities.get(db.$client) ?? null;
}

/**
 * A check run before each outermost write transaction and group commit (the
 * storage monitor's cheap file-identity check); it may make the connection
 * read-only, so the write that follows fails as a storage fault.
 */
export function setWriteGuard(db: Db, guard: (() => unknown) | null): void {
  if (guard) writeGuards.set(db.$client, guard);
  else writeGuards.delete(db.$client);
}

/** Runs the connection's write guard (awaited: it may read through a store). */
export async function guardWrite(client: Database): Promise<void> {
  const g = writeGuards.get(client);
  if (g) await g();
}

const commitCounts = new WeakMap<Database, number>();
/** Commits this process made on the connection through writeTx and the group commit (caches that
 * skip a version read between commits compare it: src/merchants/key-cache.ts). */
export function ownCommits(db: Db): number {
  if (isPg(db)) return 0;
  return commitCounts.get(db.$client) ?? 0;
}
/** Whether a transaction is open on the connection (a group, writeTx, or someone's BEGIN). */
export function inTransaction(db: Db): boolean {
  if (isPg(db)) return txPg.pgInTransaction(db);
  return db.$client.inTransaction;
}
/** Counts a commit whose COMMIT just returned; its number for `untilDurable` (0: COMMIT synced it itself). */
export function noteCommit(client: Database): number {
  commitCounts.set(client, (commitCounts.get(client) ?? 0) + 1);
  return walCommitted(client);
}


/** BEGIN IMMEDIATE / COMMIT / ROLLBACK, built once per connection. */
function txStatements(c: Database) {
  let s = txCache.get(c);
  if (!s) txCache.set(c, (s = { begin: c.prepare("BEGIN IMMEDIATE"), commit: c.prepare("COMMIT"), rollback: c.prepare("ROLLBACK") }));
  return s;
}
const txCache = new WeakMap<Database, { begin: Statement; commit: Statement; rollback: Statement }>();

const foreignAllowed = new WeakSet<Database>();
let leakedTransactions = 0;
let reportLeak: (message: string) => void = (m) => console.error(m);

/** Tests that open a raw BEGIN and call stores inside it: their writes join it (hooks dropped, never run early). */
export function allowForeignTransactions(db: Db): void {
  foreignAllowed.add(db.$client);
}

/** Where a leaked transaction is reported (the app's logger, src/app/context.ts). */
export function onLeakedTransaction(fn: (message: string) => void): void {
  reportLeak = fn;
}

/** Transactions found open behind the machinery's back and rolled back, since start (tests, metrics). */
export function leakedTransactionCount(): number {
  return leakedTransactions;
}

/**
 * With the write mutex held and no transaction context, an open transaction was left behind (a
 * ROLLBACK that failed, a raw BEGIN that was never ended). Joining it would report success for
 * writes that are never committed, so it is rolled back and reported, and the caller gets a
 * transaction of its own; only a connection a test allowed (`allowForeignTransactions`) joins.
 * True: join the open transaction. A ROLLBACK that fails leaves a storage fault for the caller.
 */
export function joinForeignTransaction(c: Database): boolean {
  if (!c.inTransaction) return false;
  if (foreignAllowed.has(c)) return true;
  leakedTransactions++;
  txStatements(c).rollback.run();
  reportLeak("a transaction left open on the database connection was rolled back: its writes were never committed (a failed ROLLBACK or a raw BEGIN outside writeTx)");
  return false;
}

function rollbackQuietly(c: Database): void {
  try {
    if (c.inTransaction) txStatements(c).rollback.run();
  } catch {}
}

/**
 * A write transaction that takes the write lock up front (no upgrade deadlocks).
 * Writers of one connection are serialised by its write mutex (db/write-lock.ts): the body
 * may await stores, and no other transaction opens until it has committed or rolled back.
 * Called from inside a transaction body (e.g. a request that records its nonce and its
 * order in one commit) it joins that transaction instead of nesting. The body must not
 * await real I/O (fetch, timers, chain RPC): the transaction then fails before COMMIT.
 */
export async function writeTx<T>(db: Db, fn: (tx: Tx) => Promise<T> | T): Promise<T> {
  if (isPg(db)) return await txPg.pgWriteTx(db, fn);
  const c = db.$client;
  const tx = db as Tx;
  if (inTxContext(c)) return joinTx(c, tx, fn);
  const release = await acquireWrite(c);
  let value: T;
  let seq: number;
  let hooks: ReturnType<typeof releaseFrame>;
  try {
    // A transaction opened behind the machinery's back: rolled back, unless a test allowed joining it.
    if (joinForeignTransaction(c)) return await joinTx(c, tx, fn);
    await guardWrite(c);
    const io = watchForIo();
    const token = openToken(c);
    pushFrame(c);
    try {
      txStatements(c).begin.run();
      value = await runInTx(c, () => fn(tx), token);
      io.check();
      txStatements(c).commit.run();
      seq = noteCommit(c);
    } catch (e) {
      dropFrame(c);
      rollbackQuietly(c);
      throw e;
    } finally {
      // What the body left behind (a timer, a promise reaction) runs outside any transaction.
      token.open = false;
      io.stop();
    }
    hooks = releaseFrame(c);
  } finally {
    release();
  }
  // Durable first (db/wal-sync.ts; the mutex is free meanwhile): then the hooks and the caller.
  const durable = untilDurable(c, seq);
  if (durable) await durable;
  runHooks(hooks);
  return value;
}

/**
 * Joining an open transaction: the hooks go to the enclosing frame. A transaction opened
 * behind the machinery's back (raw BEGIN) gets a frame of its own that runs nothing:
 * without knowing whether it commits, its side effects are dropped, never run early.
 */
async function joinTx<T>(c: Database, tx: Tx, fn: (tx: Tx) => Promise<T> | T): Promise<T> {
  if (inFrame(c)) return await runInTx(c, () => fn(tx));
  pushFrame(c);
  const token = openToken(c);
  try {
    return await runInTx(c, () => fn(tx), token);
  } finally {
    token.open = false;
    dropFrame(c);
  }
}

let savepoints = 0;

/** Runs `fn` in a SAVEPOINT of the open transaction; a throw (or `keep` false) rolls it back. */
async function inSavepoint<T>(c: Database, tx: Tx, fn: (tx: Tx) => Promise<T> | T, keep: boolean): Promise<T> {
  const name = `sp${++savepoints}`;
  c.run(`SAVEPOINT ${name}`);
  pushFrame(c);
  let value: T;
  try {
    value = await runInTx(c, () => fn(tx));
  } catch (e) {
    dropFrame(c);
    c.run(`ROLLBACK TO ${name}`);
    c.run(`RELEASE ${name}`);
    throw e;
  }
  if (!keep) {
    dropFrame(c);
    c.run(`ROLLBACK TO ${name}`);
    c.run(`RELEASE ${name}`);
    return value;
  }
  try {
    c.run(`RELEASE ${name}`);
  } catch (e) {
    // The transaction was aborted under the savepoint (disk full, I/O error): its frame goes
    // with it, or every later transaction's hooks would be handed to a dead frame.
    dropFrame(c);
    throw e;
  }
  runHooks(releaseFrame(c));
  return value;
}

/**
 * A nested savepoint: its writes and its after-commit hooks stand or fall
 * together; a throw rolls back both and rethrows.
 */
export async function savepoint<T>(tx: Tx, fn: (tx: Tx) => Promise<T> | T): Promise<T> {
  if (isPg(tx)) return await txPg.pgSavepoint(tx, fn);
  return inSavepoint(tx.$client, tx, fn, true);
}

/**
 * Runs `fn` in a transaction (a savepoint when one is open) that is always
 * rolled back, hooks included (dry runs: the batch preview). Returns fn's value.
 */
export async function rolledBack<T>(db: Db, fn: (tx: Tx) => Promise<T> | T): Promise<T> {
  if (isPg(db)) return await txPg.pgRolledBack(db, fn);
  const c = db.$client;
  const tx = db as Tx;
  if (inTxContext(c)) return inSavepoint(c, tx, fn, false);
  const release = await acquireWrite(c);
  try {
    if (joinForeignTransaction(c)) return await inSavepoint(c, tx, fn, false);
    const io = watchForIo();
    const token = openToken(c);
    pushFrame(c);
    try {
      txStatements(c).begin.run();
      const value = await runInTx(c, () => fn(tx), token);
      // Rolled back either way, but a body that awaited I/O held every writer behind it.
      io.check();
      return value;
    } finally {
      token.open = false;
      io.stop();
      dropFrame(c);
      rollbackQuietly(c);
    }
  } finally {
    release();
  }
}

/** Runs `fn` once the transaction `tx` belongs to has committed; never when it rolls back. */
export function afterCommit(tx: Tx, fn: () => void): void {
  if (isPg(tx)) return txPg.pgAfterCommit(tx, fn);
  queueAfterCommit(tx.$client, fn);
}

const preparedCache = new WeakMap<Database, Map<string, unknown>>();

/**
 * A statement built once per connection (hot paths: drizzle builds SQL on every call otherwise).
 *
 * Built once is not always run as built: bun's SQLite (3.54) marks a statement to be prepared
 * again whenever a parameter it looked at while planning is bound, and it looks at a bare `?` in
 * LIMIT, and at one in an equality that an ORDER BY, GROUP BY or DISTINCT rests on. Such a
 * statement is parsed and planned on every run (20-30 µs, more for a big one; measured with
 * `?` against `+?` on the same rows, scripts in docs/performance.md "Statements prepared on
 * every run"). Write `+?` there: same value, same affinity (none), same plan, no re-prepare.
 */
export function prepared<T>(db: Db, name: string, build: (db: Db) => T): T {
  // A read outside the caller's own transaction is built and run on the read connection; a write
  // statement comes pinned to the write connection (`writing(db)`).
  const d = pinned.has(db) ? db : (routedRead(db.$client) ?? db);
  let m = preparedCache.get(d.$client);
  if (!m) preparedCache.set(d.$client, (m = new Map()));
  let s = m.get(name) as T | undefined;
  if (s === undefined) m.set(name, (s = build(d)));
  return s;
}

/**
 * Every column of `table` as its drizzle field name (`order_no AS "orderNo", …`): a plain
 * bun:sqlite statement selecting this returns the row object drizzle's select would, without
 * drizzle's per-row mapping (hot reads: the signed GET). Only for tables whose columns are plain
 * text/integer/real (no JSON, boolean or timestamp modes).
 */
export function rowColumns(table: SQLiteTable, alias?: string): string {
  const p = alias ? `${alias}.` : "";
  return Object.entries(getTableColumns(table))
    .map(([field, col]) => `${p}"${(col as SQLiteColumn).name}" AS "${field}"`)
    .join(", ");
}

/**
 * UPDATE … SET <the columns of `set`> WHERE id = ? RETURNING *, as a statement
 * built once per (table, set of columns): the funnels that patch rows with
 * varying columns (status changes) skip drizzle's query building per call.
 */
export async function updateById<Row>(db: Db, table: SQLiteTable & { id: SQLiteColumn }, id: number | string, set: Record<string, unknown>): Promise<Row | undefined> {
  return updateWhere<Row>(db, table, id, null, set);
}

/**
 * The compare-and-set of a status change: UPDATE … SET … WHERE id = ? AND status = ?
 * RETURNING *, built once per (table, set of columns). Undefined when no row was in
 * `expected` any more: another writer (a second gateway, a CLI command, a job racing a
 * request) changed it first and wrote that change's callback; the caller re-reads and
 * writes nothing else (docs/design.md "No single writer").
 */
export async function updateByIdIf<Row>(
  db: Db,
  table: SQLiteTable & { id: SQLiteColumn; status: SQLiteColumn },
  id: number | string,
  expected: string,
  set: Record<string, unknown>,
): Promise<Row | undefined> {
  return updateWhere<Row>(db, table, id, { column: table.status, value: expected }, set);
}

function updateWhere<Row>(db: Db, table: SQLiteTable & { id: SQLiteColumn }, id: number | string, guard: { column: SQLiteColumn; value: string } | null, set: Record<string, unknown>): Row | undefined {
  const keys = Object.keys(set).filter((k) => set[k] !== undefined).sort();
  const name = `updateById:${getTableName(table)}:${keys.join(",")}${guard ? `:if:${guard.column.name}` : ""}`;
  const stmt = prepared(pinnedWrite(db), name, (d) => {
    const byId = eq(table.id, sql.placeholder("__id"));
    return d
      .update(table)
      .set(Object.fromEntries(keys.map((k) => [k, sql.placeholder(k)])) as never)
      .where(guard ? and(byId, eq(guard.column, sql.placeholder("__expected"))) : byId)
      .returning()
      .prepare();
  });
  assertWriting(db.$client);
  const params: Record<string, unknown> = { __id: id };
  if (guard) params.__expected = guard.value;
  for (const k of keys) params[k] = set[k];
  return (stmt as unknown as { get(p: Record<string, unknown>): Row | undefined }).get(params);
}
