// The PostgreSQL twin of src/db/schema.ts (DESIGN 22): the same tables, columns and row types
// (src/db/schema-pg.test.ts compares them). Times are bigint ms since epoch read as numbers; token
// amounts stay TEXT holding bigint base units, exactly as on SQLite, so the code reads one type.
import { sql } from "drizzle-orm";
import { bigint, boolean, index, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";

/**
 * A key column that is another table's id: SQLite's INTEGER PRIMARY KEY makes it optional on
 * insert (a rowid would be taken), so the row types say optional; here omitting it is a bug, said so.
 */
function alwaysGiven(column: string): () => number {
  return () => {
    throw new Error(`${column} is another row's id: give it on insert`);
  };
}

/** Key/value settings: the encrypted wallet seed, the demo-merchant marker, ... */
export const settings = pgTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
});

/** One row /readyz rewrites and commits: a write that reaches the disk (src/ops/storage.ts). */
export const storageProbe = pgTable("storage_probe", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
  at: bigint("at", { mode: "number" }).notNull(),
  probes: bigint("probes", { mode: "number" }).notNull(),
});

export const merchants = pgTable("merchants", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
  uid: text("uid").notNull().unique(),
  name: text("name").notNull(),
  status: text("status", { enum: ["active", "disabled"] }).notNull().default("active"),
  /** Callback target for orders and bindings created without notifyUrl (spec 6.1); `merchant set --default-notify-url`. */
  defaultCallbackUrl: text("default_callback_url"),
  /** JSON array of CIDRs allowed to call /openapi; null = any address. */
  ipAllowlist: text("ip_allowlist"),
  // Payout controls (DESIGN 6; back office edits them). Amounts are decimal strings; null = no limit.
  payoutsEnabled: boolean("payouts_enabled").notNull().default(true),
  payoutLimitPerTx: text("payout_limit_per_tx"),
  payoutLimitDaily: text("payout_limit_daily"),
  payoutFeeFixed: text("payout_fee_fixed").notNull().default("0"),
  payoutFeeRate: text("payout_fee_rate").notNull().default("0"),
  feeBalance: text("fee_balance").notNull().default("0"),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  /** DESIGN 19: the epusdt API token and the EPay key (encrypted with the master key); null = that protocol is off. */
  epusdtTokenEnc: text("epusdt_token_enc"),
  epayKeyEnc: text("epay_key_enc"),
});

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    merchantId: bigint("merchant_id", { mode: "number" }).notNull().references(() => merchants.id),
    /** Keyed hash (HMAC with the master key) used to look a key up without decrypting. */
    lookupHash: text("lookup_hash").notNull().unique(),
    /** AES-256-GCM ciphertext of the key, needed to verify request HMACs and sign callbacks. */
    secretEnc: text("secret_enc").notNull(),
    /** Masked form for display: mch_abcd…wxyz. */
    hint: text("hint").notNull(),
    validFrom: bigint("valid_from", { mode: "number" }).notNull(),
    /** null while current; after rotation, the end of the grace period for signing requests. */
    validUntil: bigint("valid_until", { mode: "number" }),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [index("api_keys_merchant").on(t.merchantId)],
);

export const nonces = pgTable(
  "nonces",
  {
    merchantId: bigint("merchant_id", { mode: "number" }).notNull(),
    nonce: text("nonce").notNull(),
    expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
  },
  // No index on expires_at (one b-tree write less per signed request): rows are inserted in
  // time order, so pruning walks the rowid order from the start (auth/verify.ts pruneNonces).
  (t) => [primaryKey({ columns: [t.merchantId, t.nonce] })],
);

/** HD-derived gateway addresses. merchantId null for the per-chain gas wallet. */
export const addresses = pgTable(
  "addresses",
  {
    id: text("id").primaryKey(),
    merchantId: bigint("merchant_id", { mode: "number" }).references(() => merchants.id),
    chain: text("chain").notNull(),
    /** restore_gap: an index a restore skipped (src/restore/gap-addresses.ts): watched, never handed out. */
    kind: text("kind", { enum: ["shared", "exclusive", "gas", "restore_gap"] }).notNull(),
    derivationIndex: bigint("derivation_index", { mode: "number" }).notNull(),
    address: text("address").notNull(),
    bindKey: text("bind_key"),
    deletedAt: bigint("deleted_at", { mode: "number" }),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    /** The insert's change sequence, set by the trigger addresses_watch_seq from address_watch_seq (migrations/0312). */
    watchSeq: bigint("watch_seq", { mode: "number" }),
  },
  (t) => [
    uniqueIndex("addresses_chain_index").on(t.chain, t.derivationIndex),
    // The watch set's refresh: the addresses added since a sequence value (wallet/store.ts addressesSince).
    index("addresses_watch_seq").on(t.chain, t.watchSeq),
    uniqueIndex("addresses_chain_address").on(t.chain, t.address),
    // One live exclusive address per (merchant, chain, bindKey); a soft-deleted one is replaced.
    uniqueIndex("addresses_exclusive_key").on(t.merchantId, t.chain, t.bindKey).where(sql`kind = 'exclusive' AND deleted_at IS NULL`),
    // Also the create path's pool scan, in derivation order (payin/store.ts freeSharedAddress).
    index("addresses_merchant").on(t.merchantId, t.chain, t.kind, t.derivationIndex),
  ],
);

export const bindings = pgTable(
  "bindings",
  {
    id: text("id").primaryKey(),
    merchantId: bigint("merchant_id", { mode: "number" }).notNull().references(() => merchants.id),
    chain: text("chain").notNull(),
    token: text("token").notNull(),
    bindKey: text("bind_key").notNull(),
    label: text("label"),
    notifyUrl: text("notify_url"),
    addressId: text("address_id").notNull().references(() => addresses.id),
    status: text("status", { enum: ["active", "disabled"] }).notNull().default("active"),
    /** Public link token for the deposit page. */
    pageToken: text("page_token").notNull().unique(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [
    uniqueIndex("bindings_key").on(t.merchantId, t.chain, t.token, t.bindKey),
    index("bindings_list").on(t.createdAt),
    index("bindings_list_merchant").on(t.merchantId, t.createdAt),
  ],
);

export const payinOrders = pgTable(
  "payin_orders",
  {
    // No AUTOINCREMENT (it writes sqlite_sequence on every create): orders are never deleted,
    // so the next rowid is max + 1 all the same.
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    orderNo: text("order_no").notNull().unique(),
    merchantId: bigint("merchant_id", { mode: "number" }).notNull().references(() => merchants.id),
    merchantOrderNo: text("merchant_order_no").notNull(),
    mode: text("mode", { enum: ["shared", "exclusive"] }).notNull(),
    bindingId: text("binding_id").references(() => bindings.id),
    chain: text("chain").notNull(),
    token: text("token").notNull(),
    decimals: bigint("decimals", { mode: "number" }).notNull(),
    amount: text("amount").notNull(),
    paidAmount: text("paid_amount"),
    addressId: text("address_id").notNull().references(() => addresses.id),
    address: text("address").notNull(),
    notifyUrl: text("notify_url"),
    /** Optional: where the paid checkout page's "Return to …" link goes. */
    redirectUrl: text("redirect_url"),
    /** The API key in force at creation: it signs this order's callbacks. */
    apiKeyId: text("api_key_id").notNull(),
    status: text("status").notNull(),
    transferId: bigint("transfer_id", { mode: "number" }),
    txHash: text("tx_hash"),
    fromAddress: text("from_address"),
    confirmations: bigint("confirmations", { mode: "number" }).notNull().default(0),
    checkoutToken: text("checkout_token").notNull().unique(),
    expireAt: bigint("expire_at", { mode: "number" }),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    detectedAt: bigint("detected_at", { mode: "number" }),
    confirmedAt: bigint("confirmed_at", { mode: "number" }),
    completedAt: bigint("completed_at", { mode: "number" }),
    expiredAt: bigint("expired_at", { mode: "number" }),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
    /** The invoice this order pays (DESIGN 18): its status follows into the invoice, which sends the callbacks. */
    invoiceId: bigint("invoice_id", { mode: "number" }),
    /** Invoice orders: the rate locked when the payer chose this network (currency units per token). */
    invoiceRate: text("invoice_rate"),
    /** DESIGN 19: "epusdt" | "epay" for an order a shop plugin created (its shop side: compat_orders); null otherwise. */
    compat: text("compat"),
  },
  (t) => [
    index("payin_invoice").on(t.invoiceId).where(sql`invoice_id IS NOT NULL`),
    uniqueIndex("payin_merchant_order").on(t.merchantId, t.merchantOrderNo),
    // Amount uniqueness on a shared address among waiting orders. Not over every open state: an
    // expired order whose on-time payment is seen late is paid (DESIGN 5) even when a new order of
    // the same amount took the slot meanwhile; the create path still checks all open states.
    uniqueIndex("payin_open_amount")
      .on(t.addressId, t.token, t.amount)
      .where(sql`mode = 'shared' AND status = 'waiting_payment'`),
    index("payin_status").on(t.status, t.expireAt),
    // (No index over every order by (address, token, amount): migrations/*/0410 dropped it; a create
    // wrote it at a random page and no query reads it: matching and the create probe use the
    // open-order partial indexes, an address's orders payin_search_address.)
    // Partial: shared orders (no binding) write no entry; `binding_id = ?` implies the condition.
    index("payin_binding").on(t.bindingId, t.createdAt).where(sql`binding_id IS NOT NULL`),
    // Back-office lists and search (migrations/0160; pg/0450 puts id last): each a seek in id order.
    index("payin_list_status").on(t.status, t.id),
    index("payin_list_merchant").on(t.merchantId, t.status, t.id),
    index("payin_search_address").on(t.addressId, t.id),
    index("payin_search_tx").on(t.txHash).where(sql`tx_hash IS NOT NULL`),
    index("payin_search_from").on(t.fromAddress, t.id).where(sql`from_address IS NOT NULL`),
    // Open-order probes that never read past orders (issue 23), partial so a create writes no entry:
    // orders being confirmed, and expired unpaid ones by expiry (late payments' candidates).
    index("payin_settling_amount").on(t.addressId, t.token, t.amount).where(sql`mode = 'shared' AND status IN ('detected', 'confirming')`),
    index("payin_expired_unpaid").on(t.addressId, t.token, t.amount, t.expireAt).where(sql`mode = 'shared' AND status = 'expired' AND transfer_id IS NULL`),
  ],
);

/** Every incoming token transfer the watchers saw to a gateway address; nothing received is dropped. */
export const transfers = pgTable(
  "transfers",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    chain: text("chain").notNull(),
    token: text("token").notNull(),
    txHash: text("tx_hash").notNull(),
    logIndex: bigint("log_index", { mode: "number" }).notNull(),
    blockNumber: bigint("block_number", { mode: "number" }).notNull(),
    blockHash: text("block_hash").notNull(),
    blockTime: bigint("block_time", { mode: "number" }).notNull(),
    fromAddress: text("from_address").notNull(),
    toAddress: text("to_address").notNull(),
    addressId: text("address_id").references(() => addresses.id),
    amount: text("amount").notNull(),
    /** pending (not final yet) | confirmed | reverted (gone in a reorg). */
    status: text("status", { enum: ["pending", "confirmed", "reverted"] }).notNull(),
    confirmations: bigint("confirmations", { mode: "number" }).notNull().default(0),
    /** The order it paid, or null: an unmatched deposit kept for the operator. */
    payinOrderId: bigint("payin_order_id", { mode: "number" }),
    /** matched | unmatched | attached (operator) | payout_change (own payout source) */
    disposition: text("disposition").notNull(),
    /** Why an unmatched deposit matched nothing (src/payin/unmatched.ts UNMATCHED_REASONS). */
    unmatchedReason: text("unmatched_reason"),
    /** What became of an unmatched deposit: attached | refunded | dismissed; null while open. */
    resolution: text("resolution"),
    /** The order it was attached to, or the payout orderNo that refunded it. */
    resolutionRef: text("resolution_ref"),
    resolutionNote: text("resolution_note"),
    resolvedAt: bigint("resolved_at", { mode: "number" }),
    seenAt: bigint("seen_at", { mode: "number" }).notNull(),
    confirmedAt: bigint("confirmed_at", { mode: "number" }),
    /** The receiving address's merchant (set by a trigger from address_id), for the back office's filters. */
    merchantId: bigint("merchant_id", { mode: "number" }),
    /** "sweep": the block scan missed it and the sweep recorded it (DESIGN 25, alert scan_missed); null: the scan saw it. */
    foundBy: text("found_by"),
  },
  (t) => [
    uniqueIndex("transfers_unique").on(t.chain, t.txHash, t.logIndex),
    index("transfers_found_by").on(t.seenAt).where(sql`found_by IS NOT NULL`),
    index("transfers_unmatched").on(t.seenAt).where(sql`unmatched_reason IS NOT NULL`),
    // The watcher's confirmation tracking: pending transfers of a chain by block height.
    index("transfers_pending").on(t.chain, t.status, t.blockNumber),
    index("transfers_address").on(t.addressId, t.token),
    index("transfers_list_status").on(t.status, t.id),
    index("transfers_list_disposition").on(t.disposition, t.id),
    index("transfers_list_merchant").on(t.merchantId, t.status, t.id).where(sql`merchant_id IS NOT NULL`),
    index("transfers_list_merchant_disposition").on(t.merchantId, t.disposition, t.id).where(sql`merchant_id IS NOT NULL`),
    // Open unmatched deposits (dashboard, exceptions, the alerts' and metrics' count; resolved ones accumulate).
    index("transfers_open_unmatched").on(t.resolution, t.seenAt).where(sql`unmatched_reason IS NOT NULL`),
    index("transfers_late").on(t.id).where(sql`seen_at - block_time >= 86400000`),
    index("transfers_order").on(t.payinOrderId).where(sql`payin_order_id IS NOT NULL`),
    index("transfers_search_to").on(t.toAddress, t.id),
    index("transfers_search_from").on(t.fromAddress, t.id),
    // Reconcile's deposits not final yet, per address (a transfer is pending for minutes).
    index("transfers_pending_address").on(t.addressId, t.token).where(sql`status = 'pending'`),
  ],
);

/** Durable scan position per chain. */
export const chainCursors = pgTable("chain_cursors", {
  chain: text("chain").primaryKey(),
  blockNumber: bigint("block_number", { mode: "number" }).notNull(),
  blockHash: text("block_hash").notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
});

export const payoutOrders = pgTable(
  "payout_orders",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    orderNo: text("order_no").notNull().unique(),
    merchantId: bigint("merchant_id", { mode: "number" }).notNull().references(() => merchants.id),
    merchantOrderNo: text("merchant_order_no").notNull(),
    chain: text("chain").notNull(),
    token: text("token").notNull(),
    decimals: bigint("decimals", { mode: "number" }).notNull(),
    fromAddressId: text("from_address_id").notNull().references(() => addresses.id),
    fromAddress: text("from_address").notNull(),
    toAddress: text("to_address").notNull(),
    amount: text("amount").notNull(),
    fee: text("fee").notNull().default("0"),
    deleteSourceAfterSuccess: boolean("delete_source").notNull(),
    notifyUrl: text("notify_url"),
    apiKeyId: text("api_key_id").notNull(),
    status: text("status", { enum: ["submitted", "broadcasted", "confirmed", "failed"] }).notNull(),
    failedStage: text("failed_stage"),
    lastError: text("last_error"),
    remark: text("remark"),
    txHash: text("tx_hash"),
    /** Signed transaction, stored before it is ever broadcast. */
    signedTx: text("signed_tx"),
    signedMeta: text("signed_meta"),
    attempts: bigint("attempts", { mode: "number" }).notNull().default(0),
    /** A transient failure that clears by itself (e.g. a gas top-up still pending): the job retries at this time. */
    retryAt: bigint("retry_at", { mode: "number" }),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    submittedAt: bigint("submitted_at", { mode: "number" }),
    broadcastedAt: bigint("broadcasted_at", { mode: "number" }),
    confirmedAt: bigint("confirmed_at", { mode: "number" }),
    failedAt: bigint("failed_at", { mode: "number" }),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
    /** The refund this payout sends (DESIGN 20): the refund follows its status and sends the callbacks. */
    refundId: bigint("refund_id", { mode: "number" }),
    /** Since when the newest transaction sits at gas_price_cap with no replacement left (alert payout_stuck; migration 0260). */
    stuckAt: bigint("stuck_at", { mode: "number" }),
  },
  (t) => [
    uniqueIndex("payout_merchant_order").on(t.merchantId, t.merchantOrderNo),
    index("payout_status").on(t.status, t.id),
    index("payout_source").on(t.fromAddressId, t.status),
    // Back-office merchant lists, and the payout create's daily limit (today's payouts, an id
    // range) and reserved fees (unfinished ones) per merchant.
    index("payout_list_merchant").on(t.merchantId, t.status, t.id),
    index("payout_search_tx").on(t.txHash).where(sql`tx_hash IS NOT NULL`),
    index("payout_search_to").on(t.toAddress, t.id),
    index("payout_search_from").on(t.fromAddress, t.id),
    index("payout_failed").on(t.failedAt).where(sql`status = 'failed'`),
    // The executor's open payouts (payout/store.ts SUBMITTED, BROADCASTED).
    index("payout_submitted").on(t.chain).where(sql`status = 'submitted'`),
    index("payout_broadcasted").on(t.chain).where(sql`status = 'broadcasted'`),
  ],
);

/** Balance movements per gateway address and token (signed base units). */
export const ledgerEntries = pgTable(
  "ledger_entries",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    addressId: text("address_id").notNull().references(() => addresses.id),
    chain: text("chain").notNull(),
    token: text("token").notNull(),
    kind: text("kind", { enum: ["deposit", "deposit_reversal", "payout", "fee", "adjustment"] }).notNull(),
    amount: text("amount").notNull(),
    refType: text("ref_type").notNull(),
    refId: text("ref_id").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [uniqueIndex("ledger_ref").on(t.kind, t.refType, t.refId), index("ledger_address").on(t.addressId, t.token)],
);

/**
 * The sum of an address's ledger entries per token, kept by a trigger in the same
 * transaction as each entry (migrations/0150_growth.sql): balance = hi * 10^12 + lo,
 * 0 <= lo < 10^12 (exact beyond 64 bits). Read it with payout/balances.ts.
 */
export const addressBalances = pgTable(
  "address_balances",
  {
    addressId: text("address_id").notNull().references(() => addresses.id),
    token: text("token").notNull(),
    chain: text("chain").notNull(),
    merchantId: bigint("merchant_id", { mode: "number" }),
    hi: bigint("hi", { mode: "number" }).notNull().default(0),
    lo: bigint("lo", { mode: "number" }).notNull().default(0),
    /** How many ledger entries the sum holds. */
    entries: bigint("entries", { mode: "number" }).notNull().default(0),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.addressId, t.token] }),
    index("address_balances_chain").on(t.chain, t.addressId, t.token),
    index("address_balances_merchant").on(t.merchantId, t.chain, t.token),
  ],
);

/** Movements of a merchant's fee balance (merchants.fee_balance), in 6-decimal micro-units (signed). */
export const feeEntries = pgTable(
  "fee_entries",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    merchantId: bigint("merchant_id", { mode: "number" }).notNull().references(() => merchants.id),
    /** credit (back office top-up) | payout_fee (debited when a payout confirms) | adjustment */
    kind: text("kind", { enum: ["credit", "payout_fee", "adjustment"] }).notNull(),
    amount: text("amount").notNull(),
    balanceAfter: text("balance_after").notNull(),
    refType: text("ref_type").notNull(),
    refId: text("ref_id").notNull(),
    note: text("note"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [uniqueIndex("fee_entries_ref").on(t.kind, t.refType, t.refId), index("fee_entries_merchant").on(t.merchantId, t.createdAt)],
);

/** Latest ledger-vs-chain comparison per address and token; mismatches are reported, never written into the ledger. */
export const balanceChecks = pgTable(
  "balance_checks",
  {
    addressId: text("address_id").notNull().references(() => addresses.id),
    token: text("token").notNull(),
    chain: text("chain").notNull(),
    ledgerBalance: text("ledger_balance").notNull(),
    chainBalance: text("chain_balance").notNull(),
    /** chain - ledger, base units; 0 when the chain is inside the range in-flight movements explain. */
    difference: text("difference").notNull(),
    status: text("status", { enum: ["ok", "mismatch"] }).notNull(),
    mismatchSince: bigint("mismatch_since", { mode: "number" }),
    checkedAt: bigint("checked_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.addressId, t.token] }), index("balance_checks_status").on(t.status)],
);

/** Native-coin top-ups from the chain's gas wallet to a payout source; signed and stored before broadcast like payouts. */
export const gasTopups = pgTable(
  "gas_topups",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    chain: text("chain").notNull(),
    payoutOrderId: bigint("payout_order_id", { mode: "number" }).notNull().references(() => payoutOrders.id),
    fromAddress: text("from_address").notNull(),
    toAddress: text("to_address").notNull(),
    /** Native base units (wei). */
    amount: text("amount").notNull(),
    txHash: text("tx_hash").notNull(),
    signedTx: text("signed_tx").notNull(),
    signedMeta: text("signed_meta").notNull(),
    /** signed | broadcasted | confirmed | failed */
    status: text("status", { enum: ["signed", "broadcasted", "confirmed", "failed"] }).notNull(),
    lastError: text("last_error"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
    /** EVM: the newest transaction is at gas_price_cap with no replacement left under it (migration 0290; alert payout_stuck). */
    stuckAt: bigint("stuck_at", { mode: "number" }),
    /** When the first transaction was broadcast (migration 0290; older rows: null, created_at counts). */
    sentAt: bigint("sent_at", { mode: "number" }),
  },
  (t) => [
    index("gas_topups_payout").on(t.payoutOrderId),
    index("gas_topups_status").on(t.chain, t.fromAddress, t.status),
    index("gas_topups_stuck").on(t.payoutOrderId).where(sql`stuck_at IS NOT NULL`),
  ],
);

/** A replacement of an EVM transaction (same nonce, raised fees), stored before it is broadcast: payout_tx_attempts, gas_topup_attempts. */
const replacementColumns = () => ({
  chain: text("chain").notNull(),
  txHash: text("tx_hash").notNull(),
  signedTx: text("signed_tx").notNull(),
  signedMeta: text("signed_meta").notNull(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
});

/** Replacements of an EVM gas top-up's transaction (same nonce, raised fees), stored before broadcast (migration 0290). */
export const gasTopupAttempts = pgTable(
  "gas_topup_attempts",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    gasTopupId: bigint("gas_topup_id", { mode: "number" }).notNull().references(() => gasTopups.id),
    ...replacementColumns(),
  },
  (t) => [uniqueIndex("gas_topup_attempts_tx").on(t.chain, t.txHash), index("gas_topup_attempts_topup").on(t.gasTopupId)],
);

/** Outbox: one row per callback event; delivered by the callback worker. */
export const callbacks = pgTable(
  "callbacks",
  {
    id: text("id").primaryKey(),
    merchantId: bigint("merchant_id", { mode: "number" }).notNull(),
    kind: text("kind", { enum: ["payin", "payout", "test", "invoice", "epusdt", "epay", "refund"] }).notNull(),
    orderNo: text("order_no").notNull(),
    status: text("order_status").notNull(),
    apiKeyId: text("api_key_id").notNull(),
    url: text("url"),
    payload: text("payload").notNull(),
    /** pending | delivering | delivered | failed | held (no target yet: released when a default URL is set) */
    state: text("state").notNull(),
    attempts: bigint("attempts", { mode: "number" }).notNull().default(0),
    nextAttemptAt: bigint("next_attempt_at", { mode: "number" }).notNull(),
    leaseUntil: bigint("lease_until", { mode: "number" }),
    /** The process holding the 'delivering' claim (lib/process-id.ts PROCESS_ID; migrations/0310). */
    leaseOwner: text("lease_owner"),
    lastError: text("last_error"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
    /** The order the events were written in (migrations/pg/0431): taken at INSERT, in the event's transaction; the leased claim orders an order's events by it. */
    seq: bigint("seq", { mode: "number" }).notNull().generatedByDefaultAsIdentity(),
  },
  (t) => [
    // The claim's "an earlier unfinished event of the order" probe (migrations/pg/0431), and every
    // seek on one order's callbacks (the back office's list): 0590 dropped callbacks_order, its prefix.
    index("callbacks_order_seq").on(t.orderNo, t.seq),
    index("callbacks_test").on(t.merchantId, t.createdAt).where(sql`kind = 'test'`),
    // Partial on states reached after create: the alerts job's last-hour count, and retention.
    index("callbacks_failed").on(t.updatedAt).where(sql`state = 'failed'`),
    index("callbacks_delivered").on(t.updatedAt).where(sql`state = 'delivered'`),
    // The callbacks page (migrations/0230): seeks in rowid order per state, and per merchant and state.
    // On PostgreSQL keyed by (created_at, id) (pg/0450; no rowid): each a backward scan from a time.
    index("callbacks_list_state").on(t.state, t.createdAt, t.id),
    index("callbacks_list_merchant").on(t.merchantId, t.state, t.createdAt, t.id),
    index("callbacks_list_time").on(t.createdAt, t.id),
    // PostgreSQL's leased claim (migrations/pg/0490, callbacks/store.pg.ts): due pending rows in claim order, ended leases
    // (SQLite's callbacks_due, its per-merchant planner's index, is not kept here).
    index("callbacks_pending_due").on(t.nextAttemptAt, t.seq).where(sql`state = 'pending'`),
    index("callbacks_lease_end").on(t.leaseUntil).where(sql`state = 'delivering'`),
    index("callbacks_pending_merchant").on(t.merchantId, t.nextAttemptAt, t.seq).where(sql`state = 'pending'`),
  ],
);

/**
 * The dashboard's volume per UTC day (day = ms / 86,400,000) and merchant: completed and
 * risk_settled pay-ins at face value in micro units. Written only by triggers on
 * payin_orders (migrations/0160), in the transaction of the order change.
 */
export const payinDaily = pgTable(
  "payin_daily",
  {
    day: bigint("day", { mode: "number" }).notNull(),
    merchantId: bigint("merchant_id", { mode: "number" }).notNull(),
    micro: bigint("micro", { mode: "number" }).notNull(),
    orders: bigint("orders", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.day, t.merchantId] })],
);

/** payin_daily per token (migrations/0175): the dashboard says its volume per token, never a sum of tokens with no unit. */
export const payinDailyToken = pgTable(
  "payin_daily_token",
  {
    day: bigint("day", { mode: "number" }).notNull(),
    merchantId: bigint("merchant_id", { mode: "number" }).notNull(),
    token: text("token").notNull(),
    micro: bigint("micro", { mode: "number" }).notNull(),
    orders: bigint("orders", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.day, t.merchantId, t.token] })],
);

/** One row per delivery attempt (Svix-style). */
export const callbackAttempts = pgTable(
  "callback_attempts",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    callbackId: text("callback_id").notNull().references(() => callbacks.id),
    attemptNo: bigint("attempt_no", { mode: "number" }).notNull(),
    startedAt: bigint("started_at", { mode: "number" }).notNull(),
    durationMs: bigint("duration_ms", { mode: "number" }),
    httpStatus: bigint("http_status", { mode: "number" }),
    responseBody: text("response_body"),
    error: text("error"),
    /** Where this attempt was sent (the notifyUrl, or the merchant's default URL then); null before migrations/0230. */
    url: text("url"),
  },
  (t) => [index("attempts_callback").on(t.callbackId)],
);

/** Senders whose transfers freeze the order (frozen_abnormal). */
export const denyList = pgTable(
  "deny_list",
  {
    chain: text("chain").notNull(),
    address: text("address").notNull(),
    reason: text("reason"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.chain, t.address] })],
);

/** Sandbox chains (DESIGN 8): height per chain and the transfers in its blocks. */
export const sandboxChains = pgTable("sandbox_chains", {
  chain: text("chain").primaryKey(),
  height: bigint("height", { mode: "number" }).notNull(),
  /** JSON array of reorg cut heights: a block above a cut was re-mined and has a new hash. */
  reorgCuts: text("reorg_cuts").notNull().default("[]"),
  failNextBroadcasts: bigint("fail_next_broadcasts", { mode: "number" }).notNull().default(0),
  genesisTime: bigint("genesis_time", { mode: "number" }).notNull(),
  /** When the stored height was last set: a paced chain's head is height + floor((now - pacedAt) / block_time) (0580). */
  pacedAt: bigint("paced_at", { mode: "number" }),
});

/** Only blocks that carry transfers have a row (their time); empty blocks just move the height. */
export const sandboxBlocks = pgTable(
  "sandbox_blocks",
  {
    chain: text("chain").notNull(),
    number: bigint("number", { mode: "number" }).notNull(),
    time: bigint("time", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.chain, t.number] })],
);

export const sandboxTransfers = pgTable(
  "sandbox_transfers",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    chain: text("chain").notNull(),
    token: text("token").notNull(),
    txHash: text("tx_hash").notNull(),
    logIndex: bigint("log_index", { mode: "number" }).notNull().default(0),
    blockNumber: bigint("block_number", { mode: "number" }),
    fromAddress: text("from_address").notNull(),
    toAddress: text("to_address").notNull(),
    amount: text("amount").notNull(),
    /** Raw signed payload for payouts broadcast through the sandbox. */
    raw: text("raw"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    /** A transaction's own row (log_index 0): what it cost (TxCost as JSON, decimal strings). */
    cost: text("cost"),
    /** 1: included but failed on chain (its fee burned, nothing moved). */
    failed: bigint("failed", { mode: "number" }).notNull().default(0),
  },
  (t) => [uniqueIndex("sandbox_tx").on(t.chain, t.txHash, t.logIndex), index("sandbox_block").on(t.chain, t.blockNumber)],
);

/** What a chain's sandbox rules keep per account beyond balances (TRON: stake, delegations, energy usage), JSON. */
export const sandboxAccounts = pgTable(
  "sandbox_accounts",
  {
    chain: text("chain").notNull(),
    address: text("address").notNull(),
    state: text("state").notNull(),
  },
  (t) => [primaryKey({ columns: [t.chain, t.address] })],
);

/** Sandbox balance changes that are no transfer (fees burned, stake), by block: a reorg gives them back. */
export const sandboxAdjustments = pgTable(
  "sandbox_adjustments",
  {
    chain: text("chain").notNull(),
    blockNumber: bigint("block_number", { mode: "number" }).notNull(),
    address: text("address").notNull(),
    token: text("token").notNull(),
    /** Signed base units (decimal string). */
    delta: text("delta").notNull(),
  },
  (t) => [index("sandbox_adjustments_block").on(t.chain, t.blockNumber)],
);

/** The sandbox chain's token balances (mined transfers), kept by triggers on sandbox_transfers; hi * 10^12 + lo. */
export const sandboxBalances = pgTable(
  "sandbox_balances",
  {
    chain: text("chain").notNull(),
    address: text("address").notNull(),
    token: text("token").notNull(),
    hi: bigint("hi", { mode: "number" }).notNull().default(0),
    lo: bigint("lo", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.chain, t.address, t.token] })],
);

/**
 * A Solana receiving address's token accounts (the ATA of each configured token), created by
 * the gas wallet when the address is handed out, so payers whose tools will not create one can
 * pay. The creation transaction is stored before it is broadcast; rent and fee are recorded.
 */
export const solTokenAccounts = pgTable(
  "sol_token_accounts",
  {
    addressId: text("address_id")
      .primaryKey()
      .references(() => addresses.id),
    owner: text("owner").notNull(),
    /** pending (nothing signed) | signed | broadcasted | created (by us, final) | existed (someone else made it) */
    status: text("status", { enum: ["pending", "signed", "broadcasted", "created", "existed"] }).notNull(),
    txHash: text("tx_hash"),
    signedTx: text("signed_tx"),
    signedMeta: text("signed_meta"),
    /** Lamports the gas wallet paid: rent of the created accounts, and the fee. */
    rentLamports: text("rent_lamports").notNull().default("0"),
    feeLamports: text("fee_lamports").notNull().default("0"),
    /** Mints (sorted, comma-joined) the finished row covers; another configured set queues the row again. */
    mints: text("mints"),
    attempts: bigint("attempts", { mode: "number" }).notNull().default(0),
    lastError: text("last_error"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [index("sol_token_accounts_status").on(t.status)],
);

/**
 * Append-only record of every state-changing operator action (CLI actor `cli`,
 * back-office users). UPDATE and DELETE are refused by triggers (src/db/migrate.ts).
 */
export const auditLog = pgTable(
  "audit_log",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    at: bigint("at", { mode: "number" }).notNull(),
    actor: text("actor").notNull(),
    role: text("role").notNull(),
    ip: text("ip"),
    action: text("action").notNull(),
    target: text("target").notNull(),
    /** JSON of the affected record before/after the change (null when it did not exist). */
    before: text("before"),
    after: text("after"),
  },
  (t) => [index("audit_at").on(t.at), index("audit_target").on(t.target, t.at), index("audit_actor").on(t.actor, t.at), index("audit_action").on(t.action, t.at)],
);

/**
 * Operator alerts (DESIGN 14): one row per incident of a condition on a subject
 * (e.g. rpc_down on BSC), opened when it starts and closed when it resolves.
 * At most one open row per key, so a restart does not fire again.
 */
export const alerts = pgTable(
  "alerts",
  {
    id: text("id").primaryKey(),
    /** condition:subject, e.g. "rpc_down:BSC". */
    key: text("key").notNull(),
    condition: text("condition").notNull(),
    subject: text("subject").notNull(),
    message: text("message").notNull(),
    /** firing | resolved */
    status: text("status", { enum: ["firing", "resolved"] }).notNull(),
    firedAt: bigint("fired_at", { mode: "number" }).notNull(),
    resolvedAt: bigint("resolved_at", { mode: "number" }),
    /** Message of the latest evaluation while firing (counts change). */
    lastMessage: text("last_message").notNull(),
  },
  (t) => [index("alerts_key").on(t.key, t.status), index("alerts_fired").on(t.firedAt)],
);

/** Outbox of alert notifications: one row per (alert, event, channel). */
export const alertNotifications = pgTable(
  "alert_notifications",
  {
    id: text("id").primaryKey(),
    alertId: text("alert_id").notNull().references(() => alerts.id),
    /** fired | resolved */
    event: text("event", { enum: ["fired", "resolved"] }).notNull(),
    /** webhook | telegram */
    channel: text("channel", { enum: ["webhook", "telegram"] }).notNull(),
    /** pending | sent | failed (gave up) */
    state: text("state", { enum: ["pending", "sent", "failed"] }).notNull(),
    attempts: bigint("attempts", { mode: "number" }).notNull().default(0),
    nextAttemptAt: bigint("next_attempt_at", { mode: "number" }).notNull(),
    lastError: text("last_error"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    sentAt: bigint("sent_at", { mode: "number" }),
  },
  (t) => [index("alert_notifications_due").on(t.state, t.nextAttemptAt)],
);

/**
 * Versions of data the server caches in memory. Triggers (db/cache-version.ts)
 * bump `auth` on every change to merchants or api_keys, from any process (the
 * CLI too), so a cached key or merchant row is dropped at its next use.
 */
export const cacheVersions = pgTable("cache_versions", {
  name: text("name").primaryKey(),
  version: bigint("version", { mode: "number" }).notNull(),
});
/** Back-office users (DESIGN 12): operators see every merchant, merchant users only theirs. */
export const backofficeUsers = pgTable("backoffice_users", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
  username: text("username").notNull().unique(),
  role: text("role", { enum: ["operator", "merchant"] }).notNull(),
  merchantId: bigint("merchant_id", { mode: "number" }).references(() => merchants.id),
  /** argon2id (Bun.password). */
  passwordHash: text("password_hash").notNull(),
  status: text("status", { enum: ["active", "disabled"] }).notNull().default("active"),
  /** Encrypted TOTP secret; totpEnabledAt set once a code confirmed enrollment. */
  totpSecretEnc: text("totp_secret_enc"),
  totpEnabledAt: bigint("totp_enabled_at", { mode: "number" }),
  /** The last 30-second step a code was accepted for: a code is good once (RFC 6238 section 5.2). */
  totpLastStep: bigint("totp_last_step", { mode: "number" }),
  /** JSON array of SHA-256 hashes of the unused recovery codes. */
  recoveryCodes: text("recovery_codes").notNull().default("[]"),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  /** The password was generated and handed over: the user chooses their own before anything else. */
  mustChangePassword: boolean("must_change_password").notNull().default(false),
});

/** Server-side sessions; the cookie holds a random token, the row its SHA-256. */
export const backofficeSessions = pgTable(
  "backoffice_sessions",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull().unique(),
    userId: bigint("user_id", { mode: "number" }).notNull().references(() => backofficeUsers.id),
    /** "totp": password checked, second step pending; "full": signed in. */
    stage: text("stage", { enum: ["totp", "full"] }).notNull(),
    csrfToken: text("csrf_token").notNull(),
    ip: text("ip"),
    userAgent: text("user_agent"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    lastSeenAt: bigint("last_seen_at", { mode: "number" }).notNull(),
    /** Last time the user re-entered a password or code (money and key actions need a recent one). */
    reauthAt: bigint("reauth_at", { mode: "number" }).notNull(),
    revokedAt: bigint("revoked_at", { mode: "number" }),
  },
  (t) => [index("backoffice_sessions_user").on(t.userId)],
);

/** Failed sign-ins per username, for the 5-in-15-minutes lockout. */
export const loginFailures = pgTable(
  "login_failures",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    username: text("username").notNull(),
    ip: text("ip"),
    at: bigint("at", { mode: "number" }).notNull(),
  },
  (t) => [index("login_failures_user").on(t.username, t.at), index("login_failures_ip").on(t.ip, t.at)],
);

/** Every status change of a pay-in or payout, with its cause: the order page's timeline. */
export const orderEvents = pgTable(
  "order_events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    kind: text("kind", { enum: ["payin", "payout", "invoice", "refund"] }).notNull(),
    orderNo: text("order_no").notNull(),
    fromStatus: text("from_status"),
    toStatus: text("to_status").notNull(),
    /** The funnel event (paid, confirmations, expire, freeze, ...) and its details as JSON. */
    event: text("event").notNull(),
    at: bigint("at", { mode: "number" }).notNull(),
  },
  (t) => [index("order_events_order").on(t.orderNo, t.id)],
);

/** Batch payouts (DESIGN 13): one uploaded CSV; its rows become ordinary payout orders once confirmed. */
export const payoutBatches = pgTable(
  "payout_batches",
  {
    id: text("id").primaryKey(),
    merchantId: bigint("merchant_id", { mode: "number" }).notNull().references(() => merchants.id),
    fileName: text("file_name").notNull(),
    fileSha256: text("file_sha256").notNull(),
    /** preview (uploaded, not confirmed) | running (creating orders) | done (every row handled) | discarded */
    status: text("status", { enum: ["preview", "running", "done", "discarded"] }).notNull(),
    rowCount: bigint("row_count", { mode: "number" }).notNull(),
    validCount: bigint("valid_count", { mode: "number" }).notNull(),
    errorCount: bigint("error_count", { mode: "number" }).notNull(),
    /** JSON: totals per chain/token and per source, estimated gas (what the preview showed). */
    summary: text("summary").notNull(),
    createdBy: text("created_by").notNull(),
    confirmedBy: text("confirmed_by"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    confirmedAt: bigint("confirmed_at", { mode: "number" }),
    finishedAt: bigint("finished_at", { mode: "number" }),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [index("payout_batches_merchant").on(t.merchantId, t.createdAt), index("payout_batches_status").on(t.status)],
);

export const payoutBatchRows = pgTable(
  "payout_batch_rows",
  {
    batchId: text("batch_id").notNull().references(() => payoutBatches.id),
    /** 1-based data row (the CSV line is rowNo + 1). */
    rowNo: bigint("row_no", { mode: "number" }).notNull(),
    /** The row as uploaded (JSON object of its columns). */
    input: text("input").notNull(),
    merchantOrderNo: text("merchant_order_no"),
    /**
     * invalid (preview found an error) | valid (to be created) | existing (an order with this
     * merchantOrderNo already exists: nothing new is paid) | created | rejected (failed when created)
     */
    state: text("state", { enum: ["invalid", "valid", "existing", "created", "rejected"] }).notNull(),
    errorCode: bigint("error_code", { mode: "number" }),
    errorMessage: text("error_message"),
    payoutOrderId: bigint("payout_order_id", { mode: "number" }).references(() => payoutOrders.id),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.batchId, t.rowNo] }), index("payout_batch_rows_state").on(t.batchId, t.state)],
);

/** Collection (DESIGN 13): where a merchant's funds of one chain and token are swept, and from what balance on. */
export const collectionSettings = pgTable(
  "collection_settings",
  {
    merchantId: bigint("merchant_id", { mode: "number" }).notNull().references(() => merchants.id),
    chain: text("chain").notNull(),
    token: text("token").notNull(),
    destination: text("destination").notNull(),
    /** Decimal string: addresses holding at least this much available are collected. */
    minimum: text("minimum").notNull(),
    /** Optional cron pattern (croner, UTC): runs unattended. */
    schedule: text("schedule"),
    /** The destination as last saved with the password (DESIGN 10): the schedule sends only when it equals `destination`. */
    confirmedDestination: text("confirmed_destination"),
    lastScheduledAt: bigint("last_scheduled_at", { mode: "number" }),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.merchantId, t.chain, t.token] })],
);

export const collectionRuns = pgTable(
  "collection_runs",
  {
    id: text("id").primaryKey(),
    merchantId: bigint("merchant_id", { mode: "number" }).notNull().references(() => merchants.id),
    chain: text("chain").notNull(),
    token: text("token").notNull(),
    destination: text("destination").notNull(),
    minimum: text("minimum").notNull(),
    /** preview | running (creating leg payouts) | done | discarded */
    status: text("status", { enum: ["preview", "running", "done", "discarded"] }).notNull(),
    trigger: text("trigger", { enum: ["manual", "schedule"] }).notNull(),
    legCount: bigint("leg_count", { mode: "number" }).notNull(),
    /** Base units. */
    total: text("total").notNull(),
    /** JSON GasEstimate. */
    gas: text("gas").notNull(),
    createdBy: text("created_by").notNull(),
    confirmedBy: text("confirmed_by"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    confirmedAt: bigint("confirmed_at", { mode: "number" }),
    finishedAt: bigint("finished_at", { mode: "number" }),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [index("collection_runs_merchant").on(t.merchantId, t.createdAt), index("collection_runs_status").on(t.status)],
);

export const collectionLegs = pgTable(
  "collection_legs",
  {
    runId: text("run_id").notNull().references(() => collectionRuns.id),
    legNo: bigint("leg_no", { mode: "number" }).notNull(),
    addressId: text("address_id").notNull().references(() => addresses.id),
    fromAddress: text("from_address").notNull(),
    /** Base units. */
    amount: text("amount").notNull(),
    /** planned | created | rejected (refused when created, e.g. the balance moved) */
    state: text("state", { enum: ["planned", "created", "rejected"] }).notNull(),
    errorCode: bigint("error_code", { mode: "number" }),
    errorMessage: text("error_message"),
    payoutOrderId: bigint("payout_order_id", { mode: "number" }).references(() => payoutOrders.id),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.legNo] }), index("collection_legs_address").on(t.addressId, t.payoutOrderId)],
);

/**
 * Restore reconcile (DESIGN 16): a chain of a restored database and the backup's scan cursor
 * on it. Outgoing transfers from a payout source after `sinceBlock` are read from the chain
 * before the source sends again. One row per chain, replaced by the next restore.
 */
export const reconcileChains = pgTable("reconcile_chains", {
  chain: text("chain").primaryKey(),
  /** The watcher's cursor the backup held; null when the chain had never been scanned. */
  sinceBlock: bigint("since_block", { mode: "number" }),
  /** HD indexes [gapFrom, gapTo) skipped by the restore: maybe handed out after the backup, so still watched (kind restore_gap). */
  gapFrom: bigint("gap_from", { mode: "number" }).notNull(),
  gapTo: bigint("gap_to", { mode: "number" }).notNull(),
  /** When every skipped index was watched and the chain rescanned from sinceBlock for them. */
  gapWatchedAt: bigint("gap_watched_at", { mode: "number" }),
  /** The generation the restore started (settings.generation). */
  generation: text("generation").notNull(),
  startedAt: bigint("started_at", { mode: "number" }).notNull(),
});

/** A payout source checked against its chain after a restore: clear, held (unrecorded transfers found) or acknowledged. */
export const reconcileAddresses = pgTable(
  "reconcile_addresses",
  {
    chain: text("chain").notNull(),
    address: text("address").notNull(),
    generation: text("generation").notNull(),
    state: text("state", { enum: ["clear", "held", "acknowledged"] }).notNull(),
    checkedAt: bigint("checked_at", { mode: "number" }).notNull(),
    acknowledgedBy: text("acknowledged_by"),
    acknowledgedAt: bigint("acknowledged_at", { mode: "number" }),
  },
  (t) => [primaryKey({ columns: [t.chain, t.address] })],
);

/** A transfer a payout source made that the (restored) database does not know; an exception until acknowledged. */
export const unrecordedOutgoing = pgTable(
  "unrecorded_outgoing",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    chain: text("chain").notNull(),
    address: text("address").notNull(),
    /** Null when the chain tells only that it happened (an EVM nonce used with no token transfer found). */
    txHash: text("tx_hash"),
    /** EVM: the nonce the transaction used. */
    nonce: bigint("nonce", { mode: "number" }),
    blockNumber: bigint("block_number", { mode: "number" }),
    toAddress: text("to_address"),
    /** Token symbol, or the native coin's. */
    asset: text("asset"),
    /** Base units. */
    amount: text("amount"),
    generation: text("generation").notNull(),
    foundAt: bigint("found_at", { mode: "number" }).notNull(),
    acknowledgedBy: text("acknowledged_by"),
    acknowledgedAt: bigint("acknowledged_at", { mode: "number" }),
  },
  (t) => [index("unrecorded_outgoing_address").on(t.chain, t.address, t.acknowledgedAt)],
);

/** The lowest HD index a chain hands out next (a restore moves it past every index the backup may have missed). */
export const derivationFloors = pgTable("derivation_floors", {
  chain: text("chain").primaryKey(),
  nextIndex: bigint("next_index", { mode: "number" }).notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
});

/** The one counter row address inserts raise (the trigger addresses_watch_seq, migrations/0312). */
export const addressWatchSeq = pgTable("address_watch_seq", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
  value: bigint("value", { mode: "number" }).notNull(),
});

/** A chain's next HD index, taken by wallet/store.ts takeDerivationIndex (migrations/0311). */
export const derivationCounters = pgTable("derivation_counters", {
  chain: text("chain").primaryKey(),
  nextIndex: bigint("next_index", { mode: "number" }).notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
});

/** Scheduled backups (src/backup/schedule.ts): the newest row decides when the next is due and whether backup_failed fires. */
export const backupRuns = pgTable(
  "backup_runs",
  {
    id: text("id").primaryKey(),
    startedAt: bigint("started_at", { mode: "number" }).notNull(),
    finishedAt: bigint("finished_at", { mode: "number" }),
    /** ok | failed */
    status: text("status", { enum: ["ok", "failed"] }).notNull(),
    /** The backup file written (kept until retention removes it). */
    file: text("file"),
    bytes: bigint("bytes", { mode: "number" }),
    /** Object key in the bucket when uploaded. */
    s3Key: text("s3_key"),
    error: text("error"),
  },
  (t) => [index("backup_runs_started").on(t.startedAt)],
);

/** Invoices (DESIGN 18): a price in a currency; the payer picks the network, which creates the pay-in. */
export const invoices = pgTable(
  "invoices",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    invoiceNo: text("invoice_no").notNull(),
    merchantId: bigint("merchant_id", { mode: "number" }).notNull().references(() => merchants.id),
    merchantOrderNo: text("merchant_order_no").notNull(),
    /** Decimal string as given (normalised), in priceCurrency. */
    priceAmount: text("price_amount").notNull(),
    priceCurrency: text("price_currency").notNull(),
    description: text("description"),
    notifyUrl: text("notify_url"),
    redirectUrl: text("redirect_url"),
    /** JSON array of "CHAIN:TOKEN" the payer may choose from. */
    payments: text("payments").notNull(),
    expireMinutes: bigint("expire_minutes", { mode: "number" }).notNull(),
    /** The API key in force at creation: it signs this invoice's callbacks. */
    apiKeyId: text("api_key_id").notNull(),
    pageToken: text("page_token").notNull(),
    /** The hosted page's URL as handed out at creation (public_url then): callbacks and views show this one. */
    invoiceUrl: text("invoice_url").notNull(),
    /** open | paid | frozen_abnormal | risk_settled | expired | cancelled */
    status: text("status").notNull(),
    /** The pay-in of the network chosen last (null until the payer chooses). */
    payinOrderId: bigint("payin_order_id", { mode: "number" }),
    /** api | backoffice (a payment link) */
    source: text("source").notNull().default("api"),
    expireAt: bigint("expire_at", { mode: "number" }).notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    paidAt: bigint("paid_at", { mode: "number" }),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [
    uniqueIndex("invoices_invoice_no").on(t.invoiceNo),
    uniqueIndex("invoices_merchant_order").on(t.merchantId, t.merchantOrderNo),
    uniqueIndex("invoices_page_token").on(t.pageToken),
    index("invoices_status").on(t.status, t.expireAt),
    index("invoices_merchant_created").on(t.merchantId, t.createdAt),
  ],
);

/** The shop's side of a compatibility order (DESIGN 19); the order itself is the pay-in `payinOrderId`. */
export const compatOrders = pgTable("compat_orders", {
  payinOrderId: bigint("payin_order_id", { mode: "number" })
    .primaryKey()
    .references(() => payinOrders.id)
    .$defaultFn(alwaysGiven("compat_orders.payin_order_id")),
  /** epusdt | epay */
  protocol: text("protocol").notNull(),
  /** The shop's amount as it sent it (EPay `money` verbatim; epusdt `amount` as its shortest decimal text), in priceCurrency. */
  priceAmount: text("price_amount").notNull(),
  priceCurrency: text("price_currency").notNull(),
  /** Units of priceCurrency per 1 token, locked at creation. */
  rate: text("rate").notNull(),
  notifyUrl: text("notify_url").notNull(),
  /** The shop's redirect_url (epusdt) or return_url (EPay). */
  returnUrl: text("return_url"),
  /** EPay `type`, `name` and `param`, echoed in its callback. */
  payType: text("pay_type"),
  name: text("name"),
  param: text("param"),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  /** null (plain epusdt / EPay) or "gmpay" (GMPay's epusdt fork: its answer and callback shape). */
  dialect: text("dialect"),
  /** GMPay's `pid` as the plugin sent it (echoed in its callback). */
  shopPid: text("shop_pid"),
});

/** Rates fetched by the rates job: units of `currency` per 1 `token` (USDT, USDC). */
export const fxRates = pgTable(
  "fx_rates",
  {
    currency: text("currency").notNull(),
    token: text("token").notNull(),
    rate: text("rate").notNull(),
    source: text("source").notNull(),
    /** When the source says the price was last updated (else when it was fetched). */
    observedAt: bigint("observed_at", { mode: "number" }).notNull(),
    fetchedAt: bigint("fetched_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.currency, t.token] })],
);

/**
 * What a transaction the gateway sent cost on chain, one row per transaction once final
 * (DESIGN 21; migration 0220). Amounts are TEXT bigints: native base units (sun, wei,
 * lamports), energy units, bandwidth bytes.
 */
export const transferCosts = pgTable(
  "transfer_costs",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    chain: text("chain").notNull(),
    txHash: text("tx_hash").notNull(),
    /** payout (payouts, collection legs, refunds) | gas_topup | delegate | reclaim | stake | token_account (SOL: token accounts of receiving addresses) */
    kind: text("kind").notNull(),
    payoutOrderId: bigint("payout_order_id", { mode: "number" }).references(() => payoutOrders.id),
    nativeBurned: text("native_burned").notNull(),
    energyDelegated: text("energy_delegated").notNull().default("0"),
    energyBurned: text("energy_burned").notNull().default("0"),
    bandwidth: text("bandwidth").notNull().default("0"),
    /** UTC day of the row (YYYY-MM-DD): the Fees page groups by it. */
    day: text("day").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [uniqueIndex("transfer_costs_tx").on(t.chain, t.txHash), index("transfer_costs_payout").on(t.payoutOrderId), index("transfer_costs_day").on(t.day, t.chain)],
);

/**
 * Replacements of a payout's transaction (same nonce, raised fees; migration 0260), each
 * stored before it is broadcast. The first transaction stays on payout_orders until one
 * confirms; whichever confirms becomes the order's tx_hash.
 */
export const payoutTxAttempts = pgTable(
  "payout_tx_attempts",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    payoutOrderId: bigint("payout_order_id", { mode: "number" }).notNull().references(() => payoutOrders.id),
    ...replacementColumns(),
  },
  (t) => [uniqueIndex("payout_tx_attempts_tx").on(t.chain, t.txHash), index("payout_tx_attempts_order").on(t.payoutOrderId)],
);

/** TRON energy delegated from the energy wallet to a payout's source (src/chains/tron/energy.ts; migration 0220). */
export const energyDelegations = pgTable(
  "energy_delegations",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    chain: text("chain").notNull(),
    payoutOrderId: bigint("payout_order_id", { mode: "number" }).notNull().references(() => payoutOrders.id),
    owner: text("owner").notNull(),
    receiver: text("receiver").notNull(),
    /** Sun of stake delegated. */
    amount: text("amount").notNull(),
    /** Energy that stake gives. */
    energy: text("energy").notNull(),
    delegateTxHash: text("delegate_tx_hash").notNull(),
    delegateSignedTx: text("delegate_signed_tx").notNull(),
    delegateMeta: text("delegate_meta").notNull(),
    reclaimTxHash: text("reclaim_tx_hash"),
    reclaimSignedTx: text("reclaim_signed_tx"),
    reclaimMeta: text("reclaim_meta"),
    /** signed | broadcasted | delegated | reclaim_signed | reclaimed | failed */
    status: text("status", { enum: ["signed", "broadcasted", "delegated", "reclaim_signed", "reclaimed", "failed"] }).notNull(),
    /** Energy the payout took from the delegation, and the sun it would have burned for it. */
    energyUsed: text("energy_used"),
    sunSaved: text("sun_saved"),
    lastError: text("last_error"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [index("energy_delegations_payout").on(t.payoutOrderId), index("energy_delegations_status").on(t.chain, t.status)],
);

/** Stake / unstake transactions of the energy wallet (`stablegate energy stake|unstake`; migration 0220). */
export const stakingTxs = pgTable(
  "staking_txs",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    chain: text("chain").notNull(),
    /** freeze | unfreeze */
    op: text("op").notNull(),
    address: text("address").notNull(),
    amount: text("amount").notNull(),
    txHash: text("tx_hash").notNull(),
    signedTx: text("signed_tx").notNull(),
    /** signed | broadcasted | confirmed | failed */
    status: text("status", { enum: ["signed", "broadcasted", "confirmed", "failed"] }).notNull(),
    lastError: text("last_error"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [index("staking_txs_status").on(t.chain, t.status)],
);

/**
 * Refunds (DESIGN 20): money of a paid pay-in (or of an unmatched deposit) sent back to the payer
 * as a payout order (payout_orders.refund_id); the refund's status follows that payout.
 */
export const refunds = pgTable(
  "refunds",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    /** The gateway's own number (RF…): the payout's merchantOrderNo and the callbacks' order_no. */
    refundRef: text("refund_ref").notNull(),
    /** The merchant's refundNo (idempotent per order). */
    refundNo: text("refund_no").notNull(),
    merchantId: bigint("merchant_id", { mode: "number" }).notNull().references(() => merchants.id),
    /** The pay-in order refunded, or null for an unmatched deposit's refund. */
    payinOrderId: bigint("payin_order_id", { mode: "number" }),
    orderNo: text("order_no"),
    /** The unmatched deposit refunded (back office), or null. */
    transferId: bigint("transfer_id", { mode: "number" }),
    chain: text("chain").notNull(),
    token: text("token").notNull(),
    decimals: bigint("decimals", { mode: "number" }).notNull(),
    /** Base units. */
    amount: text("amount").notNull(),
    toAddress: text("to_address"),
    /** Who gave toAddress: merchant (API) | payer (refund page) | operator (back office). */
    addressBy: text("address_by"),
    /** awaiting_address | submitted | broadcasted | confirmed | failed */
    status: text("status").notNull(),
    pageToken: text("page_token"),
    refundUrl: text("refund_url"),
    notifyUrl: text("notify_url"),
    /** The API key in force at creation (signs the callbacks); null: no callbacks (a deposit's refund). */
    apiKeyId: text("api_key_id"),
    payoutOrderId: bigint("payout_order_id", { mode: "number" }),
    payoutOrderNo: text("payout_order_no"),
    /** The payout's transaction, copied once it is broadcast. */
    txHash: text("tx_hash"),
    /** api | backoffice */
    source: text("source").notNull().default("api"),
    /** Why the payer's address could not be sent to yet (e.g. the balance), or why its payout failed (a failed refund: shown in the back office). */
    lastError: text("last_error"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [
    uniqueIndex("refunds_ref").on(t.refundRef),
    uniqueIndex("refunds_order_no").on(t.payinOrderId, t.refundNo).where(sql`payin_order_id IS NOT NULL`),
    uniqueIndex("refunds_deposit_no").on(t.transferId, t.refundNo).where(sql`transfer_id IS NOT NULL`),
    uniqueIndex("refunds_page_token").on(t.pageToken).where(sql`page_token IS NOT NULL`),
    uniqueIndex("refunds_payout").on(t.payoutOrderId).where(sql`payout_order_id IS NOT NULL`),
    index("refunds_merchant_created").on(t.merchantId, t.createdAt),
    index("refunds_failed").on(t.merchantId).where(sql`status = 'failed'`),
  ],
);

/**
 * One-time form tokens (issue 36, src/once/): the first POST of a token claims it and runs the
 * action; its answer is kept (body sealed) and given again to any later POST of the token.
 */
export const formSubmissions = pgTable(
  "form_submissions",
  {
    token: text("token").primaryKey(),
    /** Who may present the token, and where: `bo:<user id>:<path>`, `refund:<page token>`. */
    scope: text("scope").notNull(),
    /** running | done */
    state: text("state", { enum: ["running", "done"] }).notNull(),
    status: bigint("status", { mode: "number" }),
    /** The answer's headers as JSON (Set-Cookie never kept). */
    headers: text("headers"),
    /** The answer's body, sealed with the master key. */
    body: text("body"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    doneAt: bigint("done_at", { mode: "number" }),
  },
  (t) => [index("form_submissions_created").on(t.createdAt)],
);

/** Measured detection (DESIGN 25): per credited transfer, block time → first seen → order completed → completed callback's 2xx. */
export const detectionTimes = pgTable(
  "detection_times",
  {
    transferId: bigint("transfer_id", { mode: "number" }).primaryKey().references(() => transfers.id).$defaultFn(alwaysGiven("detection_times.transfer_id")),
    chain: text("chain").notNull(),
    orderNo: text("order_no").notNull(),
    blockTime: bigint("block_time", { mode: "number" }).notNull(),
    seenAt: bigint("seen_at", { mode: "number" }).notNull(),
    completedAt: bigint("completed_at", { mode: "number" }),
    callbackAt: bigint("callback_at", { mode: "number" }),
  },
  (t) => [index("detection_times_seen").on(t.seenAt), index("detection_times_order").on(t.orderNo)],
);

/**
 * Cluster roles (DESIGN 22, migrations/0430): one row (id 1), the leadership's epoch, raised by each
 * takeover (src/cluster/leader.ts), checked where a signed transaction is stored (assertEpoch).
 */
export const clusterLeader = pgTable("cluster_leader", {
  id: bigint("id", { mode: "number" }).primaryKey().default(1),
  epoch: bigint("epoch", { mode: "number" }).notNull(),
  /** The leading gateway's process id (lib/process-id.ts). */
  owner: text("owner").notNull(),
  /** When this epoch began (database time, ms). */
  since: bigint("since", { mode: "number" }).notNull(),
  /** The leader's last heartbeat (database time, ms). */
  heartbeat: bigint("heartbeat", { mode: "number" }).notNull(),
  /** The server process of the leader's lock connection (pg_backend_pid()). */
  backendPid: bigint("backend_pid", { mode: "number" }),
});

/** Rate-limit token buckets shared by the gateways of one database (migrations/0451, auth/rate-store.pg.ts). */
export const rateBuckets = pgTable("rate_buckets", {
  key: text("key").primaryKey(),
  /** Tokens × 60000 (a refill is elapsed ms × tokens per minute, exact). */
  level: bigint("level", { mode: "number" }).notNull(),
  at: bigint("at", { mode: "number" }).notNull(),
});
