// The engine a test runs on (docs/testing.md "Both engines"): SQLite unless SG_TEST_DB=pg, which
// scripts/test.sh sets for its PostgreSQL pass over the suites listed in scripts/pg-suites.txt.
// startTestGateway (harness.ts) defaults to it; a store's contract test opens its database here, so
// one test body checks both implementations of the store.
import { closeDb, openDb, type Db } from "../db/client";
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
