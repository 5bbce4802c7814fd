// A test's fixture writes (rows put in place below the services): the named, explicit way past the
// strict write check (src/testing/strict-writes.ts, docs/transactions.md "The strict write check").
// `seedRows(db, fn)` runs `fn` in a transaction of its own (writeTx): on SQLite it waits for the write
// mutex like any writer, so a seed never joins (or breaks) a group commit of the gateway under
// test; a seed inside a transaction body joins that transaction. On PostgreSQL it is a transaction
// too (the check does not apply there: every statement outside a transaction runs on a pooled
// connection of its own, nothing can join another writer's transaction).
import { writeTx, type Db, type Tx } from "../db/client";

/** Runs a test's fixture writes (stores, insertRows, testSql) in a transaction of their own. */
export async function seedRows<T>(db: Db, fn: (tx: Tx) => Promise<T> | T): Promise<T> {
  return await writeTx(db, fn);
}
