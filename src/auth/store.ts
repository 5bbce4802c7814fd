// The API-key authentication's storage: the replay nonces (docs/architecture.md "Data access").
// Both statements are raw SQL built once per connection: one runs for every signed request.
import { type Db, prepared, writing } from "../db/client";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

/** Records a nonce; false when the merchant already used it (the primary key decides between concurrent requests). */
export async function insertNonce(db: Db, merchantId: number, nonce: string, expiresAt: number): Promise<boolean> {
  if (isPg(db)) return await pg.insertNonce(pgOf(db), merchantId, nonce, expiresAt);
  return prepared(writing(db), "recordNonce", (d) => d.$client.prepare("INSERT INTO nonces (merchant_id, nonce, expires_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")).run(merchantId, nonce, expiresAt).changes === 1;
}

/**
 * Deletes the nonces before the first (in rowid order) that has not expired at `now`, among the
 * oldest `limit` rowids (rowids are dense: nonces go in in time order and leave from the oldest);
 * how many. There is no index on expires_at (a write less per signed request): the scan walks the
 * rowid order from the oldest and stops at the first live nonce or after `limit` rowids.
 */
export async function deleteExpiredNonces(db: Db, now: number, limit: number): Promise<number> {
  if (isPg(db)) return await pg.deleteExpiredNonces(pgOf(db), now, limit);
  return prepared(writing(db), "deleteExpiredNonces", (d) =>
    d.$client.prepare(
      `DELETE FROM nonces WHERE rowid < coalesce(
         (SELECT rowid FROM nonces WHERE rowid < (SELECT min(rowid) FROM nonces) + ?2 AND expires_at >= ?1 ORDER BY rowid LIMIT 1),
         (SELECT min(rowid) FROM nonces) + ?2)`,
    ),
  ).run(now, limit).changes;
}
