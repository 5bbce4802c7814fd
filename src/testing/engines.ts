// The engine a test runs on (docs/testing.md "Both engines"): SQLite unless SG_TEST_DB=pg, which
// scripts/test.sh sets for its PostgreSQL pass over the suites listed in scripts/pg-suites.txt.
// startTestGateway (harness.ts) defaults to it; a store's contract test opens its database here, so
// one test body checks both implementations of the store.
import type { SQL } from "drizzle-orm";
import { closeDb, openDb, type Db } from "../db/client";
import { isPg, pgOf } from "../db/engine";
import { migrate } from "../db/migrate";
import { openPgDb } from "../db/tx-pg";
import { createTestDatabase } from "./postgres";

export type TestEngine = "sqlite" | "pg";

/** The engine of this test process: "pg" when SG_TEST_DB=pg, else "sqlite". */
export const TEST_ENGINE: TestEngine = process.env.SG_TEST_DB === "pg" ? "pg" : "sqlite";

export interface TestDb {
  db: Db;
  engine: TestEngine;
  /** Closes the handle (and drops the PostgreSQL database). */
  close(): Promise<void>;
}

/**
 * A migrated, empty database on `engine`: SQLite in memory, or a PostgreSQL database of its own
 * cloned from the run's migrated template (src/testing/postgres.ts).
 */
export async function openTestDb(engine: TestEngine = TEST_ENGINE): Promise<TestDb> {
  if (engine === "sqlite") {
    const db = openDb(":memory:");
    await migrate(db);
    return { db, engine, close: async () => closeDb(db) };
  }
  const pg = await createTestDatabase();
  const db = openPgDb(pg.url, 4);
  return {
    db,
    engine,
    async close() {
      await closeDb(db);
      await pg.drop().catch(() => undefined);
    },
  };
}

/**
 * Runs one statement written with drizzle's `sql` (snake_case columns, portable SQL) on either
 * engine and returns its rows: for a test's set-up that no store offers (a row put in a state
 * another gateway or an earlier run would leave). Reads of what a test checks go through stores.
 */
export async function testSql<T = Record<string, unknown>>(db: Db, q: SQL): Promise<T[]> {
  if (isPg(db)) {
    try {
      return (await pgOf(db).execute(q)) as unknown as T[];
    } catch (e) {
      // drizzle's "Failed query" wrapper: the server's own error (a trigger's message) is its cause.
      throw (e as { cause?: unknown }).cause ?? e;
    }
  }
  return db.all(q) as T[];
}
