// auth/rate-store.ts on PostgreSQL: one upsert takes a token under the bucket row's lock, so two
// gateways taking from one bucket at once are served one after the other and never hand out more
// than the limit between them.
import { sql } from "drizzle-orm";
import type { PgQ } from "../db/engine";
import { retryAfter, TOKEN } from "./bucket";

export async function takeToken(db: PgQ, key: string, perMinute: number, now: number): Promise<number | null> {
  const cap = perMinute * TOKEN;
  const refilled = sql`least(${cap}::bigint, b.level + greatest(0, ${now}::bigint - b.at) * ${perMinute}::bigint)`;
  const taken = (await db.execute(
    sql`INSERT INTO rate_buckets AS b (key, level, at) VALUES (${key}, ${cap - TOKEN}::bigint, ${now}::bigint)
        ON CONFLICT (key) DO UPDATE SET level = ${refilled} - ${TOKEN}, at = greatest(b.at, ${now}::bigint)
        WHERE ${refilled} >= ${TOKEN} RETURNING level`,
  )) as unknown as unknown[];
  if (taken.length) return null;
  const b = ((await db.execute(sql`SELECT level, at FROM rate_buckets WHERE key = ${key}`)) as unknown as { level: string; at: string }[])[0];
  return retryAfter(b ? { level: Number(b.level), at: Number(b.at) } : { level: 0, at: now }, perMinute, now);
}
