// Leases for work every gateway shares (DESIGN 22): a claim takes up to n due rows that no live
// lease holds, with `FOR UPDATE SKIP LOCKED` so concurrent claimers on one database never wait for
// each other nor take the same row, and stamps them with the claimer (owner) and an expiry. A
// claimer that dies leaves its rows to come back when the lease ends; every write that ends a
// claim names its owner, so no gateway releases another's. Times are ms since epoch, as every
// time column is: the caller's clock when it passes `now`, else the database's (one clock for
// every gateway, whatever their skew).
//
// The callbacks outbox is the first user (CALLBACK_LEASES: the same columns and states as the
// SQLite worker's claim in src/callbacks/store.ts: pending → delivering with lease_owner and
// lease_until; an expired 'delivering' row is due again).
import type { SQL } from "bun";

/** A table whose rows are claimed with leases. Column names and conditions are code, never input. */
export interface LeaseTable {
  table: string;
  /** The key column claims and releases name rows by. */
  key: string;
  ownerColumn: string;
  untilColumn: string;
  /**
   * SQL condition (on alias `t`) of a row that may be claimed, leases aside: `$1` is now (ms).
   * A row whose lease has ended is claimable whatever this says when `expiredDue` also holds.
   */
  due: string;
  /** SQL condition (on alias `t`) of a row held by a lease (its lease may have ended), e.g. `t.state = 'delivering'`. */
  leased: string;
  /** ORDER BY of the claim (on alias `t`): which due rows go first. */
  order: string;
  /** Extra assignments when claimed; `$1` is now. */
  onClaim?: string;
  /** Extra assignments when released by its owner. */
  onRelease?: string;
  /** Columns the claim returns (on the updated table, unaliased). */
  returning: string;
}

const DB_NOW_MS = "(extract(epoch FROM statement_timestamp()) * 1000)::bigint";

/** The statements of one claimer (one gateway) on one table. */
export function leaseClaimer<Row = Record<string, unknown>>(sql: Pick<SQL, "unsafe">, t: LeaseTable, owner: string) {
  const now = `COALESCE($1::bigint, ${DB_NOW_MS})`;
  const claimable = `((${t.due}) AND NOT (${t.leased})) OR ((${t.leased}) AND t.${t.untilColumn} <= ${now})`;
  const claimSql = `
    UPDATE ${t.table} SET ${t.ownerColumn} = $2::text, ${t.untilColumn} = ${now} + $3::bigint${t.onClaim ? `, ${t.onClaim}` : ""}
    WHERE ${t.key} IN (
      SELECT t.${t.key} FROM ${t.table} t
      WHERE ${claimable}
      ORDER BY ${t.order} LIMIT $4::int FOR UPDATE SKIP LOCKED)
    RETURNING ${t.returning}`;
  return {
    owner,
    /** Up to `limit` due rows, leased to this owner for `leaseMs`; none that another claimer holds. */
    claim: async (limit: number, leaseMs: number, at: number | null = null): Promise<Row[]> =>
      (await sql.unsafe(claimSql, [at, owner, leaseMs, limit])) as Row[],
    /** Extends this owner's leases on `keys` (a long delivery); how many it still held. */
    renew: async (keys: readonly (string | number)[], leaseMs: number, at: number | null = null): Promise<number> =>
      countOf(
        await sql.unsafe(
          `UPDATE ${t.table} t SET ${t.untilColumn} = ${now} + $3::bigint WHERE t.${t.key}::text = ANY($2::text[]) AND t.${t.ownerColumn} = $4::text AND (${t.leased}) RETURNING 1`,
          [at, keys.map(String), leaseMs, owner],
        ),
      ),
    /** This owner's leases on `keys` given back (the rows are due again at once); another owner's stay. How many. */
    release: async (keys: readonly (string | number)[]): Promise<number> =>
      countOf(
        await sql.unsafe(
          `UPDATE ${t.table} t SET ${t.ownerColumn} = NULL, ${t.untilColumn} = NULL${t.onRelease ? `, ${t.onRelease}` : ""}
           WHERE t.${t.key}::text = ANY($1::text[]) AND t.${t.ownerColumn} = $2::text AND (${t.leased}) RETURNING 1`,
          [keys.map(String), owner],
        ),
      ),
    /** Every lease this owner holds given back (a clean shutdown). How many. */
    releaseAll: async (): Promise<number> =>
      countOf(
        await sql.unsafe(
          `UPDATE ${t.table} t SET ${t.ownerColumn} = NULL, ${t.untilColumn} = NULL${t.onRelease ? `, ${t.onRelease}` : ""} WHERE t.${t.ownerColumn} = $1::text AND (${t.leased}) RETURNING 1`,
          [owner],
        ),
      ),
  };
}

export type LeaseClaimer<Row = Record<string, unknown>> = ReturnType<typeof leaseClaimer<Row>>;

function countOf(rows: unknown): number {
  return (rows as unknown[]).length;
}

/**
 * The callbacks outbox on PostgreSQL, with the SQLite worker's semantics (src/callbacks/store.ts):
 * a pending row due (next_attempt_at reached) and not behind an earlier unfinished event of its
 * order is claimed into 'delivering' with lease_owner and lease_until; a 'delivering' row whose
 * lease ended (its owner died) is claimable again; a release puts the owner's row back to pending.
 * PostgreSQL has no rowid: `seq` (migrations/pg/0431, an identity taken at INSERT in the event's
 * transaction) orders the events of an order, also two written in one millisecond (a deep first
 * sighting: detected then completed in one transaction), and the due rows. The order rule's
 * NOT EXISTS keeps `OFFSET 0`, so it stays a probe of `callbacks_order_seq` per candidate row and is
 * never turned into an anti join (a cached generic plan of the claim, planned while the table was
 * small, hashed every pending row of the table per claim: callbacks/store.pg.ts CLAIM_SQL).
 */
export const CALLBACK_LEASES: LeaseTable = {
  table: "callbacks",
  key: "id",
  ownerColumn: "lease_owner",
  untilColumn: "lease_until",
  due: `t.state = 'pending' AND t.next_attempt_at <= COALESCE($1::bigint, ${DB_NOW_MS})
        AND NOT EXISTS (SELECT 1 FROM callbacks p WHERE p.order_no = t.order_no AND p.seq < t.seq
                        AND p.state IN ('pending', 'delivering') OFFSET 0)`,
  leased: `t.state = 'delivering'`,
  order: "t.next_attempt_at, t.seq",
  onClaim: `state = 'delivering', updated_at = COALESCE($1::bigint, ${DB_NOW_MS})`,
  onRelease: "state = 'pending'",
  returning: `id, kind, merchant_id AS "merchantId", order_no AS "orderNo", api_key_id AS "apiKeyId", payload, attempts, lease_owner AS "leaseOwner", lease_until AS "leaseUntil"`,
};
