// The statements of ops/store.ts (the counts the alert conditions and the metrics read), shared by
// its SQLite side and its PostgreSQL side (store.pg.ts drops the INDEXED BY); the SQL constants are
// the ones src/db/query-plans.test.ts reads (src/testing/engine-queries.ts).
import { notStatusSql, statusSql } from "../db/status-sql";
import { GAVE_UP, UNDELIVERED } from "../callbacks/state";
import { AWAITING_FINALITY, BALANCE_MISMATCH, FAILED } from "../payout/state";
import { TRANSFER_REVERTED } from "../watcher/state";
import { OPEN_TOPUP } from "../chains/common/store";

// Counts from indexed windows (issue 23), each through a partial index whose rows a create never
// writes: the last hour of failed callbacks and payouts, not every failure ever; open unmatched
// deposits, not every resolved one. src/db/query-plans.test.ts keeps them seeks. The callback,
// payout, transfer and balance-check statuses come from callbacks/state.ts, payout/state.ts and
// watcher/state.ts (ops/store.test.ts holds the text).
export const FAILED_CALLBACKS = `SELECT count(*) AS n FROM callbacks INDEXED BY callbacks_failed WHERE ${statusSql("state", GAVE_UP)} AND updated_at >= ?`;
export const FAILED_PAYOUTS = `SELECT order_no FROM payout_orders INDEXED BY payout_failed WHERE ${statusSql("status", FAILED)} AND failed_at >= ? ORDER BY failed_at DESC`;
// Broadcast payouts whose transaction sits at gas_price_cap with no replacement left (payout/executor.ts): few rows, the open ones only.
export const STUCK_PAYOUTS = `SELECT chain, order_no FROM payout_orders INDEXED BY payout_broadcasted WHERE ${statusSql("status", AWAITING_FINALITY)} AND stuck_at IS NOT NULL ORDER BY chain`;
// Open gas top-ups (EVM) at gas_price_cap with no replacement left (chains/common/gas-topup.ts), with the payout each holds back: the partial index of stuck ones only.
export const STUCK_TOPUPS = `SELECT p.chain, p.order_no FROM gas_topups t INDEXED BY gas_topups_stuck JOIN payout_orders p ON p.id = t.payout_order_id WHERE t.stuck_at IS NOT NULL AND ${statusSql("t.status", OPEN_TOPUP)}`;
export const OPEN_UNMATCHED = `SELECT count(*) AS n FROM transfers INDEXED BY transfers_open_unmatched WHERE unmatched_reason IS NOT NULL AND resolution IS NULL AND ${notStatusSql("status", TRANSFER_REVERTED)}`;
export const QUEUED_CALLBACKS = `SELECT count(*) AS n FROM callbacks WHERE ${statusSql("state", UNDELIVERED)}`;
export const BALANCE_MISMATCHES = `SELECT count(*) AS n FROM balance_checks WHERE ${statusSql("status", [BALANCE_MISMATCH])}`;
// Transfers the block scan missed and the sweep recorded (DESIGN 25, alert scan_missed), per chain: the partial index of those only.
export const SWEEP_FOUND = "SELECT chain, tx_hash AS tx FROM transfers INDEXED BY transfers_found_by WHERE found_by IS NOT NULL AND seen_at >= ?";
export const UNRECORDED_BY_CHAIN = "SELECT chain, count(*) AS n, count(DISTINCT address) AS a FROM unrecorded_outgoing WHERE acknowledged_at IS NULL GROUP BY chain ORDER BY chain";

/** Credited transfers first seen since a time (detection_times, DESIGN 25), through detection_times_seen. */
export const DETECTION_SINCE = `SELECT chain, block_time AS blockTime, seen_at AS seenAt, completed_at AS completedAt, callback_at AS callbackAt
  FROM detection_times INDEXED BY detection_times_seen WHERE seen_at >= ?`;
