// Pay-in orders: creation, queries, and the one funnel every status change
// goes through (applyPayinEvent), which writes the change and its callback in
// the caller's transaction.
import { recordOrderEvent } from "../orders/events";
import type { Config } from "../config/schema";
import type { Db } from "../db/client";
import { isPg } from "../db/engine";
import type { Clock } from "../lib/clock";
import type { Logger } from "../lib/logger";
import { afterCommit, type DbOrTx, type Tx, writeTx } from "../db/client";
import type { payinOrders } from "../db/schema";
import { AppError, invalid } from "../errors";
import { chainAndToken, checkAmount, checkNotifyUrl } from "../orders/rules";
import { calledBack, type CallbackEvent, callbackRow, enqueueCallback } from "../callbacks/outbox";
import { countTransition } from "../lib/event-metrics";
import { newOrderNo, newTimedToken } from "../lib/ids";
import type { ChainAdapter, ChainCode, TokenInfo, TokenSymbol } from "../chains/types";
import { addSharedAddress, sharedPool } from "../wallet/addresses";
import { noteDetection } from "./detection";
import { transition, type PayinEvent, type PayinStatus } from "./state";
import { bindingOrderFacts, dueOrders, freeSharedAddress, insertOrder, insertSharedPayin, insertSharedPayinWithCallback, orderByMerchantOrderNo, orderById, orderByOrderNo, updateOrderIf } from "./orders-store";
import { bindKeyById } from "./bindings-store";
import { compatSideOf } from "./compat-side-store";
import { merchantUid } from "../merchants/store";
import { payinCallbackPayload, type PayinOrderRow } from "./views";
import { existingKeyCache } from "../merchants/key-cache";
import { followPayin } from "../invoices/service";
import { followCompatOrder } from "../callbacks/compat";
import { OperatorError } from "./operator-error";

/** What the pay-in services read from the gateway (the app context satisfies it as it is). */
export interface PayinCtx {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** The HD seed receiving addresses are derived from. */
  seed: Uint8Array;
  /** Enabled chains only. */
  chains: ReadonlyMap<ChainCode, ChainAdapter>;
  config: Pick<Config, "payin" | "chains" | "callbacks">;
  ms: { expireAfter: number; lateWindow: number };
}

export interface CreatePayinInput {
  chainCode: string;
  tokenSymbol: string;
  merchantOrderNo: string;
  amount: string;
  notifyUrl: string;
  redirectUrl?: string;
}

export async function createPayinOrder(ctx: PayinCtx, merchantId: number, apiKeyId: string, input: CreatePayinInput): Promise<PayinOrderRow> {
  const { adapter, token } = chainAndToken(ctx, input.chainCode, input.tokenSymbol);
  const units = checkAmount(ctx, adapter.chain, token.symbol, input.amount, token.decimals);
  checkNotifyUrl(ctx, input.notifyUrl);
  if (input.redirectUrl !== undefined) checkNotifyUrl(ctx, input.redirectUrl, "redirectUrl");
  const now = ctx.clock.now();
  const redirectUrl = input.redirectUrl ?? null;
  return await writeTx(ctx.db, async (tx) => {
    const existing = async () => {
      const o = await orderByMerchantOrderNo(tx, merchantId, input.merchantOrderNo);
      return o && sameOrder(o, adapter.chain, token.symbol, units, input.notifyUrl, redirectUrl);
    };
    // The idempotency check is the insert itself (ON CONFLICT on payin_merchant_order), not a
    // read before it; only a pool that must grow (or cannot) looks for the retried order first,
    // so a retry never adds an address or answers 40105.
    // On PostgreSQL gateways create at once: the insert also meets another gateway's order with the
    // same order number (newOrderNo is unique per process only) or the same amount on the address
    // just picked (committed after this transaction read it). It then writes nothing and, when no
    // order of this merchantOrderNo is there, this create takes a new number and address.
    if (isPg(tx)) {
      const made = await createInOneStatement(ctx, tx, merchantId, apiKeyId, input, adapter.chain, token, units, redirectUrl, now);
      if (made) return made;
      // Nothing written: no free address (the pool grows below), this merchantOrderNo's order (a
      // retry), or another gateway's order number or amount (the steps below take new ones).
      const retried = await existing();
      if (retried) return retried;
    }
    for (let attempt = 1; ; attempt++) {
      const address = await freeSharedAddress(tx, merchantId, adapter.chain, token.symbol, units) ?? await existing() ?? await growSharedPool(ctx, tx, adapter, merchantId, token.symbol, units, now, existing);
      if ("orderNo" in address) return address;
      const row = newSharedOrder(ctx, merchantId, apiKeyId, input, adapter.chain, token, units, address, redirectUrl, now);
      const id = await insertSharedPayin(tx, row, now);
      if (id === null) {
        const retried = await existing();
        if (retried) return retried;
        if (attempt < CREATE_ATTEMPTS) continue;
        throw new Error(`a pay-in insert met another order ${attempt} times (order number or open amount) and no order of this merchantOrderNo`);
      }
      row.id = id;
      // The order's first event: this process's worker may take it straight from this transaction (callbacks/handoff.ts).
      await writeCallback(tx, row, now, { first: true });
      return row;
    }
  });
}

/**
 * PostgreSQL: the free pool address, the order and its callback row in one statement, one round
 * trip (issue 38; orders-store.pg.ts insertSharedPayinWithCallback); undefined when nothing was
 * written. The callback's payload is built before the address is picked: it names no address
 * (payin/views.ts payinCallbackPayload), and the row's address fields are set from what was written.
 */
async function createInOneStatement(
  ctx: PayinCtx,
  tx: Tx,
  merchantId: number,
  apiKeyId: string,
  input: CreatePayinInput,
  chain: string,
  token: TokenInfo,
  units: bigint,
  redirectUrl: string | null,
  now: number,
): Promise<PayinOrderRow | undefined> {
  const row = newSharedOrder(ctx, merchantId, apiKeyId, input, chain, token, units, { id: "", address: "" }, redirectUrl, now);
  const cb = callbackRow(await payinCallbackEvent(tx, row, now), "pending");
  const made = await insertSharedPayinWithCallback(tx, row, units, cb, now);
  if (!made) return undefined;
  row.id = made.id;
  row.addressId = made.addressId;
  row.address = made.address;
  if (!made.callback) {
    await writeCallback(tx, row, now);
    return row;
  }
  afterCommit(tx, () => countTransition("payin", row.chain, row.token, row.status));
  calledBack(tx);
  return row;
}

/** Inserts of one create that may meet another gateway's order before it gives up (see createPayinOrder). */
const CREATE_ATTEMPTS = 4;

function newSharedOrder(
  ctx: PayinCtx,
  merchantId: number,
  apiKeyId: string,
  input: CreatePayinInput,
  chain: string,
  token: { symbol: string; decimals: number },
  units: bigint,
  address: { id: string; address: string },
  redirectUrl: string | null,
  now: number,
): PayinOrderRow {
  return {
    id: 0,
    orderNo: newOrderNo("PI", now),
    merchantId,
    merchantOrderNo: input.merchantOrderNo,
    mode: "shared",
    bindingId: null,
    chain,
    token: token.symbol,
    decimals: token.decimals,
    amount: units.toString(),
    paidAmount: null,
    addressId: address.id,
    address: address.address,
    notifyUrl: input.notifyUrl,
    redirectUrl,
    apiKeyId,
    status: "waiting_payment",
    transferId: null,
    txHash: null,
    fromAddress: null,
    confirmations: 0,
    checkoutToken: newTimedToken(now),
    expireAt: now + ctx.ms.expireAfter,
    createdAt: now,
    detectedAt: null,
    confirmedAt: null,
    completedAt: null,
    expiredAt: null,
    updatedAt: now,
    invoiceId: null,
    invoiceRate: null,
    compat: null,
  };
}

/** Idempotent retry: same business fields return the order, any difference is 10001. */
function sameOrder(o: PayinOrderRow, chain: string, token: string, units: bigint, notifyUrl: string, redirectUrl: string | null): PayinOrderRow {
  const diff: Record<string, string> = {};
  if (o.chain !== chain) diff.chainCode = "differs from the existing order with this merchantOrderNo";
  if (o.token !== token) diff.tokenSymbol = "differs from the existing order with this merchantOrderNo";
  if (o.mode !== "shared" || BigInt(o.amount) !== units) diff.amount = "differs from the existing order with this merchantOrderNo";
  if (o.notifyUrl !== notifyUrl) diff.notifyUrl = "differs from the existing order with this merchantOrderNo";
  if ((o.redirectUrl ?? null) !== redirectUrl) diff.redirectUrl = "differs from the existing order with this merchantOrderNo";
  if (Object.keys(diff).length) throw invalid(diff, { orderNo: o.orderNo });
  return o;
}

/** Every pool address has this amount open: a new pool address up to the pool size; else 40105. */
/**
 * A new pool address while the pool has room; a full pool answers the retried order when it is
 * there by now (PostgreSQL, READ COMMITTED: a concurrent retry of this merchantOrderNo may have
 * committed its order and its address between this transaction's reads), else 40105.
 */
async function growSharedPool(
  ctx: PayinCtx,
  tx: Tx,
  adapter: ChainAdapter,
  merchantId: number,
  token: string,
  units: bigint,
  now: number,
  retried: () => Promise<PayinOrderRow | undefined>,
): Promise<{ id: string; address: string } | PayinOrderRow> {
  // On PostgreSQL sharedPool waits for a concurrent grower: the address it added may be free for this amount.
  const pool = await sharedPool(tx, merchantId, adapter.chain);
  const free = await freeSharedAddress(tx, merchantId, adapter.chain, token, units);
  if (free) return free;
  if (pool.length < ctx.config.payin.shared_pool_size) return await addSharedAddress(tx, adapter, ctx.seed, merchantId, now);
  const o = await retried();
  if (o) return o;
  throw new AppError(40105, { chainCode: adapter.chain, tokenSymbol: token });
}

export async function getPayinOrder(db: DbOrTx, merchantId: number, orderNo: string): Promise<PayinOrderRow> {
  const o = await orderByOrderNo(db, merchantId, orderNo);
  if (!o) throw new AppError(40108, { orderNo });
  return o;
}

export async function bindKeyOf(db: DbOrTx, o: PayinOrderRow): Promise<string | null> {
  if (!o.bindingId) return null;
  return await bindKeyById(db, o.bindingId);
}

/**
 * The order's callback; an invoice's order is announced by its invoice instead (src/invoices/service.ts),
 * a shop plugin's order only by its protocol's callback once paid (src/callbacks/compat.ts).
 */
export async function writeCallback(tx: Tx, o: PayinOrderRow, now: number, opts?: { first?: boolean }): Promise<void> {
  afterCommit(tx, () => countTransition("payin", o.chain, o.token, o.status));
  if (o.invoiceId !== null && await followPayin(tx, o, now)) return;
  if (o.compat !== null) return await followCompatOrder(tx, o, now, compatSideOf);
  await enqueueCallback(tx, await payinCallbackEvent(tx, o, now), opts);
}

/** The callback event of the order's current status. */
async function payinCallbackEvent(tx: Tx, o: PayinOrderRow, now: number): Promise<CallbackEvent> {
  const m =
    await existingKeyCache(tx)?.merchant(o.merchantId) ??
    (await merchantUid(tx, o.merchantId))!;
  return {
    merchantId: o.merchantId,
    kind: "payin",
    orderNo: o.orderNo,
    status: o.status,
    apiKeyId: o.apiKeyId,
    url: o.notifyUrl,
    payload: payinCallbackPayload(o, m.uid, await bindKeyOf(tx, o)),
    now,
  };
}

/** Stamps that go with entering a status. */
function stamps(to: PayinStatus, now: number): Partial<PayinOrderRow> {
  switch (to) {
    case "detected":
      return { detectedAt: now };
    case "completed":
      return { completedAt: now };
    case "expired":
      return { expiredAt: now };
    default:
      return {};
  }
}

/**
 * The one funnel for status changes: computes the next status with the pure
 * transition function, writes it with `patch`, and enqueues the callback.
 * Returns the updated row (unchanged status: patch only, no callback).
 *
 * The write is a compare-and-set on the status `o` was read in: when another
 * writer moved the order first (a second gateway, a job racing a request), it
 * already wrote its change and callback, so this one writes nothing and returns
 * the order as it now is (callers comparing `status` see what happened).
 */
export async function applyPayinEvent(tx: Tx, o: PayinOrderRow, event: PayinEvent, patch: Partial<PayinOrderRow>, now: number): Promise<PayinOrderRow> {
  const to = transition(o.status as PayinStatus, event);
  const set: Partial<PayinOrderRow> = { ...patch, updatedAt: now, ...(to ? { status: to, ...stamps(to, now) } : {}) };
  const row = await updateOrderIf(tx, o.id, o.status, set);
  if (!row) return (await orderById(tx, o.id))!;
  if (to) {
    await recordOrderEvent(tx, { kind: "payin", orderNo: o.orderNo, from: o.status, to, event, at: now });
    await noteDetection(tx, row, now);
    await writeCallback(tx, row, now);
  }
  return row;
}

/** Inserts an order that starts in a given status (exclusive deposits start at detected). */
export async function insertOrderWithCallback(tx: Tx, values: typeof payinOrders.$inferInsert, now: number): Promise<PayinOrderRow> {
  const row = await insertOrder(tx, values);
  await recordOrderEvent(tx, { kind: "payin", orderNo: row.orderNo, from: null, to: row.status, event: { type: "deposit" }, at: now });
  await noteDetection(tx, row, now);
  await writeCallback(tx, row, now);
  return row;
}

/** Scheduled: waiting orders past expireAt become expired. */
export async function expireDueOrders(ctx: Pick<PayinCtx, "db" | "clock">, limit = 500): Promise<number> {
  const now = ctx.clock.now();
  const due = await dueOrders(ctx.db, now, limit);
  for (const o of due) {
    await writeTx(ctx.db, async (tx) => {
      const fresh = (await orderById(tx, o.id))!;
      if (fresh.status === "waiting_payment") await applyPayinEvent(tx, fresh, { type: "expire" }, {}, now);
    });
  }
  return due.length;
}

export { ordersOfBinding } from "./orders-store";

export async function bindingStats(db: DbOrTx, bindingId: string, decimals: number) {
  const rows = await bindingOrderFacts(db, bindingId);
  let total = 0n;
  let completed = 0n;
  let completedOrders = 0;
  let lastOrderAt: number | null = null;
  let lastCompletedAt: number | null = null;
  for (const r of rows) {
    if (r.paid && r.status !== "waiting_payment" && r.status !== "cancelled") total += BigInt(r.paid);
    if (r.status === "completed") {
      completedOrders++;
      if (r.paid) completed += BigInt(r.paid);
      if (r.completedAt && (lastCompletedAt === null || r.completedAt > lastCompletedAt)) lastCompletedAt = r.completedAt;
    }
    if (lastOrderAt === null || r.createdAt > lastOrderAt) lastOrderAt = r.createdAt;
  }
  return { totalOrders: rows.length, completedOrders, total, completed, lastOrderAt, lastCompletedAt, decimals };
}

