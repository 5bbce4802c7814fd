// auth/rate-store.ts on PostgreSQL: one upsert takes a token under the bucket row's lock, so two
// gateways taking from one bucket at once are served one after the other and never hand out more
// than the limit between them. Its transaction commits without waiting for the WAL flush (the row
// is locked for the statement only, not through a flush per request).
import { sql } from "drizzle-orm";
import type { PgQ } from "../db/engine";
import { retryAfter, TOKEN } from "./bucket";
import { pgSendUnflushed } from "../db/tx-pg";

export async function takeToken(db: PgQ, key: string, perMinute: number, now: number): Promise<number | null> {
  const cap = perMinute * TOKEN;
  const taken = await pgSendUnflushed(db, TAKE, [key, cap, now, perMinute]);
  if (taken.length) return null;
  const b = ((await db.execute(sql`SELECT level, at FROM rate_buckets WHERE key = ${key}`)) as unknown as { level: string; at: string }[])[0];
  return retryAfter(b ? { level: Number(b.level), at: Number(b.at) } : { level: 0, at: now }, perMinute, now);
}

/**
 * $1 key, $2 the cap (perMinute tokens in 1/60000), $3 now, $4 perMinute. Sent unflushed
 * (db/tx-pg.ts pgSendUnflushed: the bucket row is every request's; a lost update after a server
 * crash gives a merchant back at most a fraction of a second's tokens), in one round trip.
 */
const REFILLED = `least($2::bigint, b.level + greatest(0, $3::bigint - b.at) * $4::bigint)`;
const TAKE = `INSERT INTO rate_buckets AS b (key, level, at) VALUES ($1::text, $2::bigint - ${TOKEN}, $3::bigint)
  ON CONFLICT (key) DO UPDATE SET level = ${REFILLED} - ${TOKEN}, at = greatest(b.at, $3::bigint)
  WHERE ${REFILLED} >= ${TOKEN} RETURNING level`;
