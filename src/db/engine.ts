// The engine seam (DESIGN 22, docs/postgresql.md "The seam"): services pass one handle type, `Db`,
// and never know the engine. A handle carries its engine; each store dispatches on it in one line
// (`if (isPg(db)) return pg.fn(pgOf(db), …)`) to its PostgreSQL side, `<name>-store.pg.ts` beside
// the SQLite file.
//
// A PostgreSQL handle is an opaque object over the pool (drizzle's bun-sql driver on Bun's SQL
// client, schema-pg.ts). It is typed `Db` so every service, job and handler stays unchanged; at
// run time it answers only the seam: a store that was not ported to PostgreSQL yet touches the
// SQLite API on it (`db.select`, `db.$client`, `prepared(db, …)`) and gets NotOnPostgres, naming
// the store function ("payout/store.ts listPayouts is not available on PostgreSQL yet"), never a
// crash deep inside a driver.
//
// Inside a transaction (db/tx-pg.ts) `pgOf(db)` is that transaction's connection: the code awaited
// from the body belongs to it (AsyncLocalStorage), as on SQLite's one connection, so a store called
// with the outer handle from inside a body reads and writes inside the transaction.
import type { SQL } from "bun";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import type { BunSQLQueryResultHKT } from "drizzle-orm/bun-sql";
import type { PgDatabase } from "drizzle-orm/pg-core";
import type { Db } from "./client";
import type * as pgSchema from "./schema-pg";

export type Engine = "sqlite" | "pg";

/** What a PostgreSQL store function queries through: the pool, or the transaction (or savepoint) the caller runs in. */
export type PgQ = PgDatabase<BunSQLQueryResultHKT, typeof pgSchema, ExtractTablesWithRelations<typeof pgSchema>>;

/** The pool a PostgreSQL handle stands for, and where the transaction machinery finds the open transaction. */
export interface PgState {
  /** drizzle over the pool (bun-sql driver, schema-pg.ts). */
  root: PgQ & { transaction<T>(fn: (tx: PgQ) => Promise<T>, config?: { isolationLevel?: "read committed" | "repeatable read" | "serializable" }): Promise<T> };
  /** Bun's SQL client (the pool). */
  pool: SQL;
  /** The transaction open in the calling code's context, if any (db/tx-pg.ts). */
  current(): PgQ | null;
}

const PG = Symbol("stablegate.pg");

export class NotOnPostgres extends Error {
  constructor(readonly what: string) {
    super(`${what} is not available on PostgreSQL yet (docs/postgresql.md "What runs on PostgreSQL"); use SQLite ([database] path) for it`);
    this.name = "NotOnPostgres";
  }
}

/** Wraps a PostgreSQL pool's state as the `Db` handle services pass around. */
export function pgHandle(state: PgState): Db {
  const target = { [PG]: state };
  return new Proxy(target, {
    get(t, p) {
      if (p === PG) return t[PG];
      // Symbols (inspection, iteration) and `then` (awaiting a promise of the handle) read as absent.
      if (typeof p === "symbol" || p === "then" || p === "toJSON") return undefined;
      throw new NotOnPostgres(callerOfSeam());
    },
    has(t, p) {
      return p === PG;
    },
  }) as unknown as Db;
}

/** Which engine `db` runs on. */
export function engineOf(db: Db): Engine {
  return isPg(db) ? "pg" : "sqlite";
}

export function isPg(db: Db): boolean {
  return PG in (db as object);
}

/** What per-connection caches key on: the SQLite connection, or the PostgreSQL pool. */
export function connectionKey(db: Db): object {
  return isPg(db) ? pgState(db).pool : db.$client;
}

/** The pool state of a PostgreSQL handle (throws on a SQLite one: a store's dispatch line checks isPg first). */
export function pgState(db: Db): PgState {
  const s = (db as unknown as { [PG]?: PgState })[PG];
  if (!s) throw new Error("pgState: not a PostgreSQL handle");
  return s;
}

/** What a PostgreSQL store queries through: the caller's open transaction, else the pool. */
export function pgOf(db: Db): PgQ {
  const s = pgState(db);
  return s.current() ?? s.root;
}

/**
 * "<file> <function>" of the store function that touched the SQLite API on a PostgreSQL handle:
 * the first stack frame outside the storage core.
 */
function callerOfSeam(): string {
  const frames = (new Error().stack ?? "").split("\n").slice(1);
  for (const f of frames) {
    const m = /at (?:async )?([\w$.<>]+)? ?\(?(?:.*\/src\/)?([\w./-]+\.tsx?):\d+:\d+\)?/.exec(f.trim());
    if (!m) continue;
    const file = m[2]!;
    if (/^db\/(engine|client|tx-pg|group-commit)\.ts$/.test(file)) continue;
    return m[1] && m[1] !== "<anonymous>" ? `${file} ${m[1].replace(/^Object\./, "")}` : file;
  }
  return "this store function";
}

/**
 * A PostgreSQL-only module, loaded on its first use: a store's PostgreSQL side is
 * `const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));` and its dispatch
 * line reads `pg.fn(…)` as before. The module is required (synchronously) when a property is
 * first read, so a SQLite gateway never loads drizzle's pg-core, schema-pg.ts or the stores'
 * PostgreSQL sides (docs/performance.md "A SQLite gateway without the PostgreSQL side";
 * src/app/engine-isolation.test.ts). Read its members only on PostgreSQL (behind `isPg`).
 */
export function pgSide<M extends object>(load: () => M): M {
  let mod: M | undefined;
  return new Proxy({} as M, { get: (_, p) => Reflect.get((mod ??= load()), p) });
}

/** The first row of a PostgreSQL query (drizzle's `.get()` on SQLite). */
export async function firstRow<T>(rows: PromiseLike<T[]>): Promise<T | undefined> {
  return (await rows)[0];
}
