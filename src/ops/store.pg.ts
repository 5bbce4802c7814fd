// ops/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
import { sql } from "drizzle-orm";
import type { PgQ } from "../db/engine";

/** The liveness ping: one round trip to the server. */
export async function ping(db: PgQ): Promise<void> {
  await db.execute(sql`SELECT 1`);
}
