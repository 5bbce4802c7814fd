// The pay-in domain's storage: the hand-tuned statements of creation and matching, named by what
// they do (docs/architecture.md "Data access"). Each is raw SQL built once per connection with
// `prepared` (db/client.ts), with the INDEXED BY and status lists the partial indexes spell
// (state.ts statusSql); src/db/query-plans.test.ts and the engine plan tests
// (testing/engine-queries.ts) check the SQL constants below stay seeks.
import { prepared, type Tx } from "../db/client";
import { AWAITING_PAYMENT, SETTLING_STATUSES, statusSql } from "./state";
import type { PayinOrderRow } from "./views";

/**
 * The merchant's first pool address (by derivation index) where this amount is
 * not open: the pool in addresses_merchant's order (merchant, chain, kind,
 * derivation_index), per address one probe of payin_open_amount (waiting orders,
 * unique) and one of payin_settling_amount (detected, confirming): open orders
 * only, so a round amount repeated a million times costs what a new one does.
 * No ORDER BY: in bun's SQLite an ORDER BY cost ~10 µs per create even when
 * this index satisfied it (scripts/bench-inproc.ts); INDEXED BY keeps the scan
 * in index order.
 */
export const FREE_SHARED_ADDRESS = `SELECT a.id, a.address FROM addresses a INDEXED BY addresses_merchant
  WHERE a.merchant_id = ?1 AND a.chain = ?2 AND a.kind = 'shared' AND a.deleted_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM payin_orders p INDEXED BY payin_open_amount
                    WHERE p.address_id = a.id AND p.token = ?3 AND p.amount = ?4 AND p.mode = 'shared' AND ${statusSql("p.status", AWAITING_PAYMENT)})
    AND NOT EXISTS (SELECT 1 FROM payin_orders p INDEXED BY payin_settling_amount
                    WHERE p.address_id = a.id AND p.token = ?3 AND p.amount = ?4 AND p.mode = 'shared' AND ${statusSql("p.status", SETTLING_STATUSES)})
  LIMIT 1`;

export function freeSharedAddress(tx: Tx, merchantId: number, chain: string, token: string, units: bigint): { id: string; address: string } | undefined {
  return prepared(tx, "freeSharedAddress", (d) => d.$client.prepare<{ id: string; address: string }, [number, string, string, string]>(FREE_SHARED_ADDRESS)).get(
    merchantId, chain, token, units.toString(),
  ) ?? undefined;
}

/**
 * A new shared-address order, unless the merchant already has one with this merchantOrderNo (the
 * idempotency check is the insert itself, ON CONFLICT on payin_merchant_order): its new id, or null.
 * Plain bun:sqlite statement, no RETURNING: the row is what was written (the other columns start
 * NULL, confirmations 0), its id is the new rowid.
 */
export function insertSharedPayin(tx: Tx, row: PayinOrderRow, now: number): number | null {
  const insert = prepared(tx, "insertSharedPayin", (d) =>
    d.$client.prepare(
      `INSERT INTO payin_orders (order_no, merchant_id, merchant_order_no, mode, chain, token, decimals, amount, address_id, address,
                                 notify_url, redirect_url, api_key_id, status, checkout_token, expire_at, created_at, updated_at)
       VALUES (?, ?, ?, 'shared', ?, ?, ?, ?, ?, ?, ?, ?, ?, 'waiting_payment', ?, ?, ?, ?)
       ON CONFLICT (merchant_id, merchant_order_no) DO NOTHING`,
    ),
  );
  const res = insert.run(
    row.orderNo, row.merchantId, row.merchantOrderNo, row.chain, row.token, row.decimals, row.amount, row.addressId, row.address,
    row.notifyUrl, row.redirectUrl, row.apiKeyId, row.checkoutToken, row.expireAt, now, now,
  );
  return res.changes === 0 ? null : Number(res.lastInsertRowid);
}

/** How many pay-in orders an invoice has had (the next one's attempt number is this plus one). */
export function invoicePayinCount(tx: Tx, invoiceId: number): number {
  return tx.$client.query<{ n: number }, [number]>("SELECT count(*) AS n FROM payin_orders WHERE invoice_id = ?").get(invoiceId)!.n;
}

// The watcher's queries read open and recent orders only (issue 23): a round amount paid
// on a pool address for the millionth time costs what the first did. Each returns ids,
// read back through orderById; src/db/query-plans.test.ts checks they stay seeks.

/** Unpaid orders of this address, token and amount that a transfer may pay: the waiting one
 * (payin_open_amount) and those expired within the late window (payin_expired_unpaid). */
export const MATCH_CANDIDATES = `SELECT id FROM payin_orders INDEXED BY payin_open_amount
  WHERE address_id = ?1 AND token = ?2 AND amount = ?3 AND mode = 'shared' AND status = 'waiting_payment' AND transfer_id IS NULL AND created_at <= ?4
  UNION ALL
  SELECT id FROM payin_orders INDEXED BY payin_expired_unpaid
  WHERE address_id = ?1 AND token = ?2 AND amount = ?3 AND expire_at >= ?5 AND mode = 'shared' AND status = 'expired' AND transfer_id IS NULL AND created_at <= ?4`;

/** Is there an unpaid order of this amount that expired before the late window? (the unmatched reason only) */
export const EXPIRED_BEFORE_WINDOW = `SELECT 1 FROM payin_orders INDEXED BY payin_expired_unpaid
  WHERE address_id = ?1 AND token = ?2 AND amount = ?3 AND expire_at < ?5 AND mode = 'shared' AND status = 'expired' AND transfer_id IS NULL AND created_at <= ?4
  LIMIT 1`;

/** Open orders of the address and token (any amount) whose window covers the block time, at most 2:
 * waiting (payin_open_amount), being confirmed (payin_settling_amount), expired since the block (payin_status). */
export const COVERING_ORDERS = `SELECT id FROM (
    SELECT id FROM payin_orders INDEXED BY payin_open_amount
    WHERE address_id = ?1 AND token = ?2 AND mode = 'shared' AND status = 'waiting_payment' AND created_at <= ?3 AND expire_at >= ?4
    UNION ALL
    SELECT id FROM payin_orders INDEXED BY payin_settling_amount
    WHERE address_id = ?1 AND token = ?2 AND mode = 'shared' AND status IN ('detected', 'confirming') AND created_at <= ?3 AND expire_at >= ?4
    UNION ALL
    SELECT id FROM payin_orders INDEXED BY payin_status
    WHERE status = 'expired' AND expire_at >= ?4 AND address_id = ?1 AND token = ?2 AND mode = 'shared' AND created_at <= ?3
  ) LIMIT 2`;

/** What the matching queries ask of a transfer: where it went, what, how much. */
export interface MatchKey {
  addressId: string;
  token: string;
  amount: string;
}

/** Ids of the unpaid orders created by `createdBy` that may take the transfer (MATCH_CANDIDATES), expired ones back to `expiredSince`. */
export function matchCandidateIds(tx: Tx, t: MatchKey, createdBy: number, expiredSince: number): number[] {
  return prepared(tx, "matchCandidates", (d) => d.$client.prepare<{ id: number }, [string, string, string, number, number]>(MATCH_CANDIDATES))
    .all(t.addressId, t.token, t.amount, createdBy, expiredSince)
    .map((r) => r.id);
}

/** Whether an unpaid order of this amount expired before `expiredSince` (EXPIRED_BEFORE_WINDOW). */
export function expiredBefore(tx: Tx, t: MatchKey, createdBy: number, expiredSince: number): boolean {
  return !!prepared(tx, "expiredBeforeWindow", (d) => d.$client.prepare<{ 1: number }, [string, string, string, number, number]>(EXPIRED_BEFORE_WINDOW)).get(
    t.addressId, t.token, t.amount, createdBy, expiredSince,
  );
}

/** Ids of at most two open orders of the address and token whose window covers `at` (COVERING_ORDERS). */
export function coveringOrderIds(tx: Tx, addressId: string, token: string, createdBy: number, at: number): number[] {
  return prepared(tx, "coveringOrders", (d) => d.$client.prepare<{ id: number }, [string, string, number, number]>(COVERING_ORDERS))
    .all(addressId, token, createdBy, at)
    .map((r) => r.id);
}

/** The displayed confirmation counts of a chain's pending transfers and their orders: two set-based statements. */
export function showConfirmations(tx: Tx, chain: string, latest: number, now: number): void {
  prepared(tx, "displayTransferConfs", (d) =>
    d.$client.prepare(
      `UPDATE transfers SET confirmations = ?1 - block_number + 1
       WHERE chain = ?2 AND status = 'pending' AND block_number >= 0 AND block_number <= ?1 AND confirmations <> ?1 - block_number + 1`,
    ),
  ).run(latest, chain);
  prepared(tx, "displayOrderConfs", (d) =>
    d.$client.prepare(
      `UPDATE payin_orders SET confirmations = (SELECT t.confirmations FROM transfers t WHERE t.id = payin_orders.transfer_id), updated_at = ?2
       WHERE id IN (SELECT payin_order_id FROM transfers WHERE chain = ?1 AND status = 'pending' AND block_number >= 0 AND payin_order_id IS NOT NULL)
         AND confirmations <> (SELECT t.confirmations FROM transfers t WHERE t.id = payin_orders.transfer_id AND t.status = 'pending')`,
    ),
  ).run(chain, now);
}
