// auth/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
// Nonces live in the database, so replay protection holds across every gateway of one database.
import { sql } from "drizzle-orm";
import type { PgQ } from "../db/engine";
import { pgSend } from "../db/tx-pg";

const INSERT_NONCE = "INSERT INTO nonces (merchant_id, nonce, expires_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1 AS ok";

/**
 * Inside a transaction the INSERT is on the wire when this returns (db/tx-pg.ts `pgPipe`), so a
 * caller that awaits it later pipelines the statements it sends meanwhile behind it (a signed
 * write's handler, http/signed.ts: one round trip for BEGIN, the nonce and the handler's first
 * statement). Outside one, on the pool.
 */
export async function insertNonce(db: PgQ, merchantId: number, nonce: string, expiresAt: number): Promise<boolean> {
  return (await pgSend(db, INSERT_NONCE, [merchantId, nonce, expiresAt])).length === 1;
}

/** Deletes up to `limit` expired nonces (a seek on nonces_expires when the migration made one, else a bounded scan); how many. */
export async function deleteExpiredNonces(db: PgQ, now: number, limit: number): Promise<number> {
  const rows = await db.execute(
    sql`DELETE FROM nonces WHERE ctid = ANY (ARRAY(SELECT ctid FROM nonces WHERE expires_at < ${now} LIMIT ${limit})) RETURNING 1 AS gone`,
  );
  return (rows as unknown as unknown[]).length;
}
