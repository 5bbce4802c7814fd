// The engine's queries on growing tables (issue 23), each with what its plan may
// contain: checked by src/db/query-plans.test.ts on a fresh database and by the
// growth bench on the large one (with its ANALYZE statistics).
import type { Db } from "../db/client";
import type { PlannedQuery, SeekOptions } from "./query-plan";
import { COVERING_ORDERS, DUE_TO_EXPIRE, EXPIRED_BEFORE_WINDOW, FREE_SHARED_ADDRESS, MATCH_CANDIDATES, SWEEP_TARGETS } from "../payin/orders-store";
import { FAILED_CALLBACKS, FAILED_PAYOUTS, OPEN_UNMATCHED, STUCK_PAYOUTS, STUCK_TOPUPS, SWEEP_FOUND } from "../ops/store";
import { fundedAddressesQuery, INFLIGHT_OUT, PENDING_IN, RECONCILE_PAGE, RESERVED, STORED_BALANCE } from "../payout/balances-store";
import { DELIVERED_BEFORE, EXPIRED_LEASES, LEASE_OWNERS } from "../callbacks/store";
import { BROADCASTED, RESERVED_FEES, SUBMITTED, USED_TODAY } from "../payout/store";
import { LAST_ORDER_BEFORE } from "../orders/id-at";
import { payoutOrders } from "../db/schema";
import { and, eq } from "drizzle-orm";
import { SANDBOX_BALANCE } from "../chains/sandbox/store";
import { ADDRESS_ROWS_AFTER, TAKE_DERIVATION_INDEX, WATCH_SET_SINCE } from "../wallet/store";

export interface CheckedQuery {
  name: string;
  query: (db: Db) => PlannedQuery;
  opts?: SeekOptions;
  /** Indexes the plan must use. */
  uses?: string[];
}

export const ENGINE_QUERIES: CheckedQuery[] = [
  { name: "watcher: addresses added since a change sequence", query: () => WATCH_SET_SINCE, uses: ["addresses_watch_seq"] },
  { name: "restore reconcile: a chain's addresses added since a change sequence", query: () => ADDRESS_ROWS_AFTER, uses: ["addresses_watch_seq"] },
  { name: "create: take a chain's next derivation index", query: () => TAKE_DERIVATION_INDEX },
  { name: "create: free pool address for an amount", query: () => FREE_SHARED_ADDRESS, uses: ["payin_open_amount", "payin_settling_amount"] },
  { name: "watcher: a transfer's candidate orders", query: () => MATCH_CANDIDATES, uses: ["payin_open_amount", "payin_expired_unpaid"] },
  { name: "watcher: an order expired before the late window", query: () => EXPIRED_BEFORE_WINDOW, uses: ["payin_expired_unpaid"] },
  { name: "expiry job: waiting orders due to expire (every second)", query: () => DUE_TO_EXPIRE, uses: ["payin_status"] },
  { name: "watcher: open orders covering a block time", query: () => COVERING_ORDERS, uses: ["payin_open_amount", "payin_settling_amount", "payin_status"] },
  { name: "alerts: failed callbacks of the last hour", query: () => FAILED_CALLBACKS, uses: ["callbacks_failed"] },
  { name: "alerts: failed payouts of the last hour", query: () => FAILED_PAYOUTS, uses: ["payout_failed"] },
  // Walks the partial index of broadcast payouts: the ones in flight only.
  { name: "alerts: payouts stuck at the gas price cap", query: () => STUCK_PAYOUTS, opts: { boundedScans: ["payout_orders"] }, uses: ["payout_broadcasted"] },
  // Walks the partial index of stuck top-ups (few, open ones only), each joined to its payout by key.
  { name: "alerts: gas top-ups stuck at the gas price cap", query: () => STUCK_TOPUPS, opts: { boundedScans: ["gas_topups"] }, uses: ["gas_topups_stuck"] },
  // Walks the whole partial index: it holds open unmatched deposits only (the operator's backlog).
  { name: "alerts: open unmatched deposits", query: () => OPEN_UNMATCHED, opts: { boundedScans: ["transfers"] }, uses: ["transfers_open_unmatched"] },
  // Walks the partial index of transfers the sweep recorded (the scan's misses: few).
  { name: "alerts: transfers the scan missed in the last hour", query: () => SWEEP_FOUND, opts: { boundedScans: ["transfers"] }, uses: ["transfers_found_by"] },
  { name: "sweep: open orders' and active exclusive addresses of a chain", query: () => SWEEP_TARGETS, opts: { boundedScans: ["addresses"] }, uses: ["payin_list_status", "addresses_chain_address|addresses_watch_seq", "transfers_address"] },
  { name: "balance of an address", query: () => STORED_BALANCE },
  { name: "reserved by unfinished payouts", query: () => `SELECT amount FROM ${RESERVED}`, uses: ["payout_source"] },
  { name: "reconcile: a page of balance rows", query: () => RECONCILE_PAGE, uses: ["address_balances_chain"] },
  { name: "reconcile: broadcast payouts in flight", query: () => `SELECT amount FROM ${INFLIGHT_OUT}`, uses: ["payout_source"] },
  { name: "reconcile: deposits not final yet", query: () => `SELECT amount FROM ${PENDING_IN}`, uses: ["transfers_pending_address"] },
  { name: "payout: funded source addresses", query: (db) => fundedAddressesQuery(db, 1, "TRON", "USDT"), uses: ["address_balances_merchant"] },
  { name: "payout: the last payout before today (daily limit)", query: () => LAST_ORDER_BEFORE("payout_orders"), uses: ["payout_orders_order_no_unique"] },
  { name: "payout: today's payouts (daily limit)", query: () => USED_TODAY, uses: ["payout_list_merchant"] },
  { name: "payout: fees reserved by unfinished payouts", query: () => RESERVED_FEES, uses: ["payout_list_merchant"] },
  {
    name: "payout executor: submitted payouts of a chain",
    query: (db) => db.select().from(payoutOrders).where(and(eq(payoutOrders.chain, "TRON"), SUBMITTED)),
    uses: ["payout_submitted"],
  },
  {
    name: "payout executor: broadcast payouts of a chain",
    query: (db) => db.select().from(payoutOrders).where(and(eq(payoutOrders.chain, "TRON"), BROADCASTED)),
    uses: ["payout_broadcasted"],
  },
  { name: "callback worker: expired leases (every poll interval)", query: () => EXPIRED_LEASES, uses: ["callbacks_due"] },
  { name: "callback worker: owners of the claims under way (start)", query: () => LEASE_OWNERS, opts: { allowTempBTree: true }, uses: ["callbacks_due"] },
  { name: "retention: delivered callbacks past the cutoff", query: () => DELIVERED_BEFORE, uses: ["callbacks_delivered"] },
  { name: "retention: their attempts", query: () => `DELETE FROM callback_attempts WHERE callback_id IN (${DELIVERED_BEFORE})`, uses: ["attempts_callback"] },
  { name: "sandbox chain: a mined balance", query: () => SANDBOX_BALANCE },
];
