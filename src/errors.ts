// The one error catalog: code -> HTTP status and public message (spec 7, DESIGN 4).
export const ERRORS = {
  10000: { status: 500, message: "Internal error" },
  10001: { status: 400, message: "Request parameters invalid" },
  10002: { status: 404, message: "Not found" },
  10003: { status: 503, message: "Storage unavailable" },
  10029: { status: 429, message: "Too many requests" },
  20005: { status: 401, message: "API Key invalid" },
  20011: { status: 401, message: "Request signature invalid" },
  20012: { status: 401, message: "Signature timestamp outside the allowed window" },
  20016: { status: 401, message: "Nonce already used" },
  20020: { status: 403, message: "IP address not allowed" },
  31001: { status: 400, message: "Chain not supported" },
  31002: { status: 400, message: "Token not supported" },
  31003: { status: 400, message: "Chain and token do not match" },
  40002: { status: 404, message: "Exclusive wallet binding does not exist" },
  40105: { status: 409, message: "Shared receiving amount already occupied" },
  40108: { status: 404, message: "Pay-in order does not exist" },
  51002: { status: 403, message: "Operation restricted by merchant status, switch, limit or fee balance" },
  51004: { status: 422, message: "Fee balance insufficient" },
  53001: { status: 422, message: "Source address does not exist" },
  53002: { status: 422, message: "Source address not allowed for this operation" },
  53003: { status: 422, message: "Available balance of the token insufficient" },
  53005: { status: 422, message: "Source address balance insufficient" },
  54001: { status: 404, message: "Payout order does not exist" },
  54002: { status: 409, message: "Payout order status does not allow this operation" },
  54003: { status: 422, message: "Payment to the merchant's own address not allowed" },
  55001: { status: 422, message: "Refund exceeds the refundable amount" },
  55002: { status: 409, message: "Order status does not allow a refund" },
  55003: { status: 409, message: "refundNo reused with another body" },
  56001: { status: 422, message: "No current rate for the currency" },
  56002: { status: 404, message: "Invoice does not exist" },
} as const;

export type ErrorCode = keyof typeof ERRORS;

export class AppError extends Error {
  constructor(
    public readonly code: ErrorCode,
    public readonly data: Record<string, unknown> | null = null,
    message?: string,
  ) {
    super(message ?? ERRORS[code].message);
  }
  get status(): number {
    return ERRORS[this.code].status;
  }
}

/** 10001 naming the offending fields: data = { fields: { name: reason } }. */
export function invalid(fields: Record<string, string>, extra?: Record<string, unknown>): AppError {
  const names = Object.keys(fields);
  return new AppError(10001, { fields, ...extra }, `Request parameters invalid: ${names.join(", ")}`);
}

export interface FailureBody {
  code: number;
  message: string;
  data: Record<string, unknown> | null;
  requestId: string | null;
}

export function failureBody(e: AppError, requestId: string | null): FailureBody {
  return { code: e.code, message: e.message, data: e.data, requestId };
}

/**
 * The errors of the domain (a refused operator action, a refused setting, a user the back office
 * cannot create), by code: each code's HTTP status (what a page answers) and its English words
 * with `{name}` placeholders. The words in every language are the i18n catalog's
 * (src/i18n/catalog.ts), looked up by code and filled with the error's parameters: nothing
 * matches an error by its English wording. The English here is the CLI's and the log's message.
 */
export const DOMAIN_ERRORS = {
  // Pay-ins (payin/operator.ts)
  "payin.accept_refused": { status: 409, message: "cannot release order {orderNo}: {refunded} was already refunded, so {kept} is kept, less than the order amount of {amount}: it cannot be accepted as paid." },
  // Operator actions on pay-ins and deposits (payin/operator.ts, unmatched.ts, tx-lookup.ts, resolve.ts)
  "payin.order_unknown": { status: 404, message: "no pay-in order {orderNo}" },
  "payin.cannot_freeze": { status: 409, message: "cannot freeze order {orderNo}: it is {status}" },
  "payin.cannot_cancel": { status: 409, message: "cannot cancel order {orderNo}: it is {status}" },
  "payin.release_not_frozen": { status: 409, message: "cannot release order {orderNo}: it is {status}, not frozen_abnormal" },
  "payin.release_not_final": { status: 409, message: "cannot release order {orderNo} yet: its payment has {confirmations} confirmation(s) and is not final" },
  "text.empty": { status: 400, message: "{field} must not be empty" },
  "text.too_long": { status: 400, message: "{field} must be at most {max} characters" },
  "text.not_unicode": { status: 400, message: "{field} must be well-formed Unicode (lone surrogate)" },
  "deny.unknown_chain": { status: 400, message: "unknown chain {chain}: {chains}" },
  "deny.invalid_address": { status: 400, message: "{address} is not a valid {chain} address" },
  "deny.already": { status: 409, message: "{chain} {address} is already on the deny list" },
  "deny.not_listed": { status: 404, message: "{chain} {address} is not on the deny list" },
  "deposit.unknown": { status: 404, message: "no unmatched deposit {depositId}" },
  "deposit.resolved": { status: 409, message: "deposit {depositId} is already {resolution}" },
  "deposit.resolved_ref": { status: 409, message: "deposit {depositId} is already {resolution} ({ref})" },
  "deposit.id_invalid": { status: 400, message: "deposit id must be a positive integer, not {raw}" },
  "deposit.reverted": { status: 409, message: "deposit {depositId} was reverted by a reorg; there is nothing to attach" },
  "deposit.counterfeit": { status: 409, message: "deposit {depositId} is a look-alike {token} from another issuer: it never pays an order" },
  "deposit.other_address": { status: 409, message: "deposit {depositId} reached {toAddress} ({token}); order {orderNo} is on {address} ({orderToken})" },
  "deposit.order_not_open": { status: 409, message: "cannot attach a deposit to order {orderNo} in {status}: only an unpaid waiting_payment or expired order takes one" },
  "deposit.not_final": { status: 409, message: "deposit {depositId} is {status}, not final: only a final deposit can be refunded" },
  "deposit.payout_unknown": { status: 404, message: "no payout {payoutOrderNo} of the merchant that received deposit {depositId}" },
  "deposit.payout_other_token": { status: 409, message: "payout {payoutOrderNo} is {payoutChain} {payoutToken}; the deposit is {chain} {token}" },
  "deposit.payout_failed": { status: 409, message: "payout {payoutOrderNo} failed; it refunded nothing" },
  "deposit.payout_used": { status: 409, message: "payout {payoutOrderNo} is already recorded as the refund of deposit {otherId}" },
  "lookup.chain_unavailable": { status: 400, message: "{chain} is not enabled on this gateway, or cannot look up a transaction." },
  "lookup.not_on_chain": { status: 404, message: "That transfer is not on the chain (any more)." },
  "lookup.not_importable": { status: 422, message: "Only a transfer of a configured token to one of the gateway's addresses can be imported." },
  "resolve.note_missing": { status: 400, message: "Write a note saying why (it goes into the audit log)." },
  "resolve.note_long": { status: 400, message: "The note is longer than {max} characters." },
  "resolve.not_final": { status: 409, message: "Its payment is not final yet: resolve it once it is." },
  "resolve.not_offered": { status: 409, message: "\"{choice}\" is not a choice for order {orderNo} ({status})" },
  "resolve.accept_refused": { status: 409, message: "{refunded} was already refunded, so {kept} is kept, less than the order amount of {amount}: it cannot be accepted as paid." },
  "resolve.choose": { status: 400, message: "Choose what should happen." },
  "refund.address_missing": { status: 400, message: "Give the payer's address, or choose \"Send a refund link\"." },
  // Merchant settings (merchants/settings.ts, merchants/admin.ts)
  "merchant.name_invalid": { status: 400, message: "a merchant name is 1-{max} characters" },
  "callback_url.too_long": { status: 400, message: "default notify URL must be at most {max} characters" },
  "callback_url.not_unicode": { status: 400, message: "default notify URL must be well-formed Unicode" },
  "callback_url.not_absolute": { status: 400, message: "default notify URL must be an absolute http(s) URL" },
  "callback_url.scheme": { status: 400, message: "default notify URL must use http or https" },
  "callback_url.characters": { status: 400, message: "default notify URL must not contain spaces, control characters or backslashes" },
  "callback_url.no_host": { status: 400, message: "default notify URL must have a host" },
  "callback_url.credentials": { status: 400, message: "default notify URL must not carry credentials" },
  "callback_url.not_public": { status: 400, message: "default notify URL must be a public address" },
  "ip_allowlist.not_ip": { status: 400, message: "IP allowlist: {entry} is not an IPv4 or IPv6 address or CIDR" },
  "ip_allowlist.prefix": { status: 400, message: "IP allowlist: {entry} has an invalid prefix length (0-{max})" },
  "ip_allowlist.too_many": { status: 400, message: "IP allowlist: at most {max} entries" },
  // Refunds of deposits and the payer's refund page (payout/refunds.ts RefundRefused; deposit.* above too)
  "refund.deposit_counterfeit": { status: 409, message: "deposit {depositId} is a look-alike {token} from another issuer: refunding it would send real {token}" },
  "refund.unknown": { status: 404, message: "no such refund" },
  "refund.has_address": { status: 409, message: "this refund already has an address" },
  "refund.cannot_send": { status: 409, message: "the merchant cannot send this refund right now; please try again later" },
  // Payout controls and the fee balance (payout/controls.ts ControlsError)
  "merchant.id_unknown": { status: 404, message: "no merchant {merchantId}" },
  "controls.limit_per_tx_invalid": { status: 400, message: "payoutLimitPerTx must be a decimal string or null" },
  "controls.limit_daily_invalid": { status: 400, message: "payoutLimitDaily must be a decimal string or null" },
  "controls.fee_fixed_invalid": { status: 400, message: "payoutFeeFixed must be a decimal string" },
  "controls.fee_rate_invalid": { status: 400, message: "payoutFeeRate must be a fraction below 1 with at most 8 digits" },
  "controls.delta_invalid": { status: 400, message: "delta must be a decimal string" },
  "controls.below_reserved": { status: 409, message: "the fee balance would drop below the fees reserved by unfinished payouts" },
  // Collection (treasury/collection.ts CollectionError; merchant.id_unknown too)
  "collection.chain_unavailable": { status: 400, message: "{chain} {token}: Chain not enabled on this gateway" },
  "collection.token_unsupported": { status: 400, message: "{chain} {token}: Token not supported" },
  "collection.token_not_on_chain": { status: 400, message: "{chain} {token}: Chain and token do not match" },
  "collection.destination_invalid": { status: 400, message: "destination: not a valid {chain} address" },
  "collection.destination_own": { status: 400, message: "destination: one of the merchant's own gateway addresses (54003); collect to a wallet outside the gateway" },
  "collection.minimum_invalid": { status: 400, message: "minimum: must be a decimal amount greater than 0 with at most 6 fractional digits" },
  "collection.schedule_invalid": { status: 400, message: "schedule: not a valid cron pattern ({reason})" },
  "collection.no_destination": { status: 409, message: "no collection destination set for {chain} {token}" },
  "collection.run_unknown": { status: 404, message: "no collection run {id}" },
  // Compatibility keys (merchants/compat-keys.ts CompatKeyError)
  "compat_key.epusdt_length": { status: 400, message: "epusdt token must be 8-128 characters" },
  "compat_key.epusdt_characters": { status: 400, message: "epusdt token must be printable ASCII without spaces" },
  "compat_key.epay_length": { status: 400, message: "EPay key must be 8-128 characters" },
  "compat_key.epay_characters": { status: 400, message: "EPay key must be printable ASCII without spaces" },
  // Acknowledging unrecorded transfers after a restore (restore/reconcile.ts AckError)
  "ack.unknown_chain": { status: 400, message: "unknown chain: {chain}" },
  "ack.invalid_address": { status: 400, message: "not a {chain} address: {address}" },
  "ack.nothing_open": { status: 404, message: "no unrecorded outgoing transfer from {address} on {chain} waits for acknowledgement" },
  // The batch payout file (treasury/batch-csv.ts BatchFileError)
  "batch.empty": { status: 400, message: "the file is empty" },
  "batch.too_large": { status: 400, message: "the file is larger than {mb} MB" },
  "batch.not_utf8": { status: 400, message: "the file is not valid UTF-8 (save it as CSV UTF-8)" },
  "batch.no_header": { status: 400, message: "the file has no header line" },
  "batch.unknown_columns": { status: 400, message: "unknown column(s): {columns} (expected {expected})" },
  "batch.missing_columns": { status: 400, message: "missing column(s): {columns}" },
  "batch.duplicate_column": { status: 400, message: "column {column} appears twice" },
  "batch.no_rows": { status: 400, message: "the file has no payout rows" },
  "batch.too_many_rows": { status: 400, message: "the file has {rows} rows; at most {max} are allowed per batch" },
  // Back-office users (backoffice/users.ts)
  "user.password_short": { status: 400, message: "a password needs at least {min} characters" },
  "user.password_long": { status: 400, message: "a password may have at most {max} characters" },
  "user.username_invalid": { status: 400, message: "a username is 1-64 characters of letters, digits and . _ @ -" },
  "user.role_invalid": { status: 400, message: "role must be operator or merchant" },
  "user.merchant_missing": { status: 400, message: "a merchant user needs --merchant UID" },
  "user.merchant_unchosen": { status: 400, message: "choose the merchant this user belongs to (Merchant), or make them an operator" },
  "user.operator_bound": { status: 400, message: "an operator is not bound to a merchant" },
  "user.no_merchant": { status: 404, message: "no merchant with UID {uid}" },
  "user.exists": { status: 409, message: "user {username} already exists" },
  "user.not_found": { status: 404, message: "no user {username}" },
} as const satisfies Record<string, { status: number; message: string }>;

export type DomainCode = keyof typeof DOMAIN_ERRORS;
export type DomainParams = Readonly<Record<string, string | number | bigint>>;

/** One problem by code and parameters (an error may carry several: a settings form's fields). */
export interface DomainProblem {
  code: DomainCode;
  params: DomainParams;
}

/** `{name}` placeholders filled with their values; an unknown name stays as written. */
export const fillTemplate = (template: string, params: DomainParams): string => template.replace(/\{(\w+)\}/g, (m, k: string) => (k in params ? String(params[k]) : m));

/** A domain problem's English words (the CLI's, the log's). */
export const englishOf = (p: DomainProblem): string => fillTemplate(DOMAIN_ERRORS[p.code].message, p.params);

/**
 * An error of the domain: its problems by code and parameters; `message` is their English words
 * joined by "; ". Pages translate `problems` (src/i18n/catalog.ts), never the message.
 */
export class DomainError extends Error {
  readonly problems: readonly DomainProblem[];
  constructor(code: DomainCode | readonly DomainProblem[], params: DomainParams = {}) {
    const problems = typeof code === "string" ? [{ code, params }] : code;
    super(problems.map(englishOf).join("; "));
    this.problems = problems;
  }
  /** The first problem's code. */
  get code(): DomainCode {
    return this.problems[0]!.code;
  }
  get params(): DomainParams {
    return this.problems[0]!.params;
  }
  /** What a page answers: the first problem's status. */
  get status(): number {
    return DOMAIN_ERRORS[this.code].status;
  }
}
