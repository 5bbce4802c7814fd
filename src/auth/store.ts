// The API-key authentication's storage: the replay nonces (docs/architecture.md "Data access").
// Both statements are raw SQL built once per connection: one runs for every signed request.
import { type Db, prepared } from "../db/client";

/** Records a nonce; false when the merchant already used it (the primary key decides between concurrent requests). */
export function insertNonce(db: Db, merchantId: number, nonce: string, expiresAt: number): boolean {
  return prepared(db, "recordNonce", (d) => d.$client.prepare("INSERT INTO nonces (merchant_id, nonce, expires_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")).run(merchantId, nonce, expiresAt).changes === 1;
}

/**
 * Deletes the nonces before the first (in rowid order) that has not expired at `now`, at most
 * `limit` of them (the oldest); how many. There is no index on expires_at (a write less per
 * signed request): rows go in in time order. Reads at most `limit` + 1 rows to find where to stop.
 */
export function deleteExpiredNonces(db: Db, now: number, limit: number): number {
  return prepared(db, "deleteExpiredNonces", (d) =>
    d.$client.prepare(
      `DELETE FROM nonces WHERE rowid < coalesce(
         (SELECT id FROM (SELECT rowid AS id, expires_at FROM nonces ORDER BY rowid LIMIT ?2) WHERE expires_at >= ?1 ORDER BY id LIMIT 1),
         (SELECT rowid FROM nonces ORDER BY rowid LIMIT 1 OFFSET ?2),
         (SELECT max(rowid) + 1 FROM nonces))`,
    ),
  ).run(now, limit).changes;
}
