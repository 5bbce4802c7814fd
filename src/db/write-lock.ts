// The write side of one SQLite connection, shared by writeTx, savepoint, rolledBack and the
// group commit (DESIGN 22, docs/architecture.md "Transactions").
//
// Stores return promises, so a transaction body may await: while it does, other code on
// the event loop runs. Two rules keep that safe on the one connection:
// - a write mutex: one transaction at a time. A writer that finds it held waits; nobody
//   ever opens BEGIN while another transaction's body is between two awaits;
// - a transaction context (AsyncLocalStorage): the code awaited from inside a transaction
//   body (and only that code) belongs to it, so a nested writeTx joins instead of waiting
//   for the mutex its own transaction holds.
// Awaiting real I/O inside a transaction (fetch, a timer, chain RPC) is forbidden: the
// mutex would hold every writer behind a network round trip. On SQLite a body that only
// awaits stores never gives the event loop a turn, so a macrotask that runs while the
// transaction is open is the proof of a forbidden await (see `watchForIo`).
import type { Database } from "bun:sqlite";
import { AsyncLocalStorage } from "node:async_hooks";

/**
 * One transaction of the machinery (writeTx, rolledBack, a group commit). The context
 * (AsyncLocalStorage) reaches every async resource made inside a body, a timer or a promise
 * reaction that runs after COMMIT too: it belongs to the transaction only while `open`.
 */
export interface TxToken {
  readonly client: Database;
  open: boolean;
}
const inside = new AsyncLocalStorage<TxToken>();

/** A token for a transaction about to BEGIN on `client` (close it at COMMIT/ROLLBACK). */
export function openToken(client: Database): TxToken {
  return { client, open: true };
}

/** True when the calling code runs inside a transaction body of this connection that is still open. */
export function inTxContext(client: Database): boolean {
  const t = inside.getStore();
  return t !== undefined && t.client === client && t.open;
}

/**
 * Runs `fn` as part of the transaction open on `client` (its nested writeTx calls join it):
 * the current one when the caller is inside it, else the one `token` names.
 */
export function runInTx<T>(client: Database, fn: () => T, token?: TxToken): T {
  if (inTxContext(client)) return fn();
  return inside.run(token ?? openToken(client), fn);
}

export class WriteOutsideTransactionError extends Error {
  constructor(idle = false) {
    super(
      idle
        ? "a write statement ran outside writeTx (the strict write check, SG_STRICT_WRITES=1, on in tests: while a group commit holds the connection it would join that transaction): run it inside writeTx; a test's fixture seeds through seedRows (src/testing/seed.ts)"
        : "a write statement ran outside its own transaction while another transaction was open on the connection (it would join that transaction and be lost if it rolls back): run it inside writeTx",
    );
  }
}

/**
 * The store-level check of every write statement: a write is refused when it runs outside
 * this async context's own transaction while a transaction of the machinery holds the
 * connection (it would become part of that transaction). Two property reads when the
 * writer is inside its own transaction or the connection is idle.
 */
export function assertWriting(client: Database): void {
  const held = writeHeld(client);
  if ((!held && !strict.has(client)) || inTxContext(client)) return;
  throw new WriteOutsideTransactionError(!held);
}

const strict = new WeakSet<Database>();
/**
 * The strict write check (issue 37): on this connection a store's write outside its own
 * transaction is refused also when the connection is idle (where it would autocommit alone).
 * openDb turns it on under SG_STRICT_WRITES=1, which every test process sets
 * (src/testing/strict-writes.ts); production leaves it off (docs/transactions.md).
 */
export function strictWrites(client: Database, on: boolean): void {
  if (on) strict.add(client);
  else strict.delete(client);
}

interface Lock {
  held: boolean;
  waiters: Array<() => void>;
}
const locks = new WeakMap<Database, Lock>();

function lockOf(client: Database): Lock {
  let l = locks.get(client);
  if (!l) locks.set(client, (l = { held: false, waiters: [] }));
  return l;
}

/**
 * Takes the connection's write mutex: at once when it is free (no await, so an idle
 * gateway pays nothing), else after the transactions queued before this one.
 * Returns the release function (call it exactly once, in a finally).
 */
export function acquireWrite(client: Database): Promise<() => void> | (() => void) {
  const l = lockOf(client);
  const release = () => {
    const next = l.waiters.shift();
    if (next) next();
    else l.held = false;
  };
  if (!l.held) {
    l.held = true;
    return release;
  }
  return new Promise((resolve) => l.waiters.push(() => resolve(release)));
}

/** True while a transaction of the machinery holds this connection's write mutex. */
export function writeHeld(client: Database): boolean {
  return locks.get(client)?.held ?? false;
}

export class IoInTransactionError extends Error {
  constructor() {
    super("a transaction body awaited real I/O (fetch, a timer, chain RPC): do that before BEGIN or in an after-commit hook");
  }
}

/**
 * The cheap runtime guard against I/O inside a transaction: a macrotask queued at BEGIN
 * runs only if the body let the event loop turn. `check()` before COMMIT throws
 * IoInTransactionError (the transaction is rolled back) when it did; `stop()` always.
 */
export function watchForIo(): { check(): void; stop(): void } {
  let turned = false;
  const at = immediatesRun;
  const t = setImmediate(() => {
    turned = true;
  });
  return {
    check() {
      if (turned || immediatesRun !== at) throw new IoInTransactionError();
    },
    stop() {
      clearImmediate(t);
    },
  };
}

// The guard's own immediate runs after the immediates queued before BEGIN: a body that awaits one
// of those (a group commit's flush, a yield queued by another request) resumes before it. Every
// immediate of the process is counted as it runs, so the check sees that one too. (A timer needs
// nothing more: the timers phase comes before the guard's immediate; a setTimeout(0) guard
// catches nothing the immediate does not, measured on bun 1.3.)
let immediatesRun = 0;
const realSetImmediate = globalThis.setImmediate;
if (!(realSetImmediate as { counted?: true }).counted) {
  const counted = ((cb: (...a: unknown[]) => void, ...args: unknown[]) =>
    realSetImmediate(() => {
      immediatesRun++;
      cb(...args);
    })) as unknown as typeof setImmediate & { counted?: true };
  counted.counted = true;
  globalThis.setImmediate = counted;
}
