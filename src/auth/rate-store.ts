// Token buckets in the database (DESIGN 22: rate limits hold across the gateways of one database).
// A bucket's level is in 1/60000 of a token: `perMinute` tokens a minute refill `elapsed ms ×
// perMinute`, exact in integers. One statement takes a token or answers how long until one is back.
import type { Db } from "../db/client";
import { isPg, pgOf, pgSide } from "../db/engine";
import { retryAfter, TOKEN } from "./bucket";

const pg = pgSide<typeof import("./rate-store.pg")>(() => require("./rate-store.pg"));

/** Takes a token from `key`'s bucket (full at first); null when taken, else the seconds until one is back. */
export async function takeToken(db: Db, key: string, perMinute: number, now: number): Promise<number | null> {
  if (isPg(db)) return await pg.takeToken(pgOf(db), key, perMinute, now);
  const c = db.$client;
  const cap = perMinute * TOKEN;
  const taken = c
    .query<{ level: number }, [string, number, number, number]>(
      `INSERT INTO rate_buckets (key, level, at) VALUES (?1, ?2 - ${TOKEN}, ?3)
       ON CONFLICT (key) DO UPDATE SET level = min(?2, level + max(0, ?3 - at) * ?4) - ${TOKEN}, at = max(at, ?3)
       WHERE min(?2, level + max(0, ?3 - at) * ?4) >= ${TOKEN} RETURNING level`,
    )
    .get(key, cap, now, perMinute);
  if (taken) return null;
  const b = c.query<{ level: number; at: number }, [string]>("SELECT level, at FROM rate_buckets WHERE key = ?").get(key);
  return retryAfter(b ?? { level: 0, at: now }, perMinute, now);
}
