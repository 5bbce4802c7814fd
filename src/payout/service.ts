// Payout orders: creation with every rule of spec 4.5, queries, and the one
// funnel every status change goes through (applyPayoutEvent), which writes the
// change, its callback and its ledger effects in the caller's transaction.
import type { Config } from "../config/schema";
import type { Db } from "../db/client";
import type { Clock } from "../lib/clock";
import type { Logger } from "../lib/logger";
import type { ChainCode } from "../chains/types";
import { recordOrderEvent } from "../orders/events";
import { afterCommit, type DbOrTx, type Tx, writeTx } from "../db/client";
import { AppError, invalid } from "../errors";
import { enqueueCallback } from "../callbacks/outbox";
import { countTransition } from "../lib/event-metrics";
import { newOrderNo } from "../lib/ids";
import type { ChainAdapter } from "../chains/types";
import { chainAndToken, checkAmount, checkNotifyUrl } from "../orders/rules";
import { addressById, type AddressRow } from "../wallet/addresses";
import { addressesNamed, merchantHasAddress, retireSource } from "../wallet/store";
import { merchantUid } from "../merchants/store";
import {
  addPayoutLedger,
  insertPayoutRow,
  lockMerchantPayouts,
  payoutByMerchantOrderNo,
  payoutByOrderNo,
  payoutRow,
  updatePayout,
  updatePayoutIf,
} from "./store";
import { addressBalance, fundedAddresses, unfinishedFrom } from "./balances";
import { checkFee, checkLimits, fromMicro, moveFeeBalance, toMicro } from "./controls";
import { transition, type FailedStage, type PayoutEvent, type PayoutStatus } from "./state";
import { payoutCallbackPayload, type PayoutOrderRow } from "./views";
import { followPayout } from "./refund-funnel";

/** What the payout services (and the treasury's batches and collection) read from the gateway. */
export interface PayoutCtx {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** Enabled chains only. */
  chains: ReadonlyMap<ChainCode, ChainAdapter>;
  config: Pick<Config, "chains" | "callbacks"> & Partial<Pick<Config, "collection">>;
}

export interface CreatePayoutInput {
  chainCode: string;
  tokenSymbol: string;
  fromAddress?: string;
  toAddress: string;
  amount: string;
  deleteSourceAfterSuccess?: boolean;
  merchantOrderNo: string;
  /** Omitted (batch payouts, collection legs): callbacks go to the merchant's default callback URL. */
  notifyUrl?: string;
}

export interface Created {
  order: PayoutOrderRow;
  /** false: an idempotent retry returned the existing order. */
  created: boolean;
}

export async function createPayout(ctx: PayoutCtx, merchantId: number, apiKeyId: string, input: CreatePayoutInput): Promise<Created> {
  const { adapter, token } = chainAndToken(ctx, input.chainCode, input.tokenSymbol);
  const units = checkAmount(ctx, adapter.chain, token.symbol, input.amount, token.decimals);
  if (!adapter.isValidAddress(input.toAddress)) throw invalid({ toAddress: `not a valid ${adapter.chain} address` });
  const to = adapter.normalizeAddress(input.toAddress);
  if (input.notifyUrl !== undefined) checkNotifyUrl(ctx, input.notifyUrl);
  const deleteSource = input.deleteSourceAfterSuccess ?? false;
  const now = ctx.clock.now();

  return await writeTx(ctx.db, async (tx) => {
    await lockMerchantPayouts(tx, merchantId);
    const existing = await payoutByMerchantOrderNo(tx, merchantId, input.merchantOrderNo);
    if (existing) return { order: sameOrder(existing, adapter, { chain: adapter.chain, token: token.symbol, units, to, from: input.fromAddress, deleteSource, notifyUrl: input.notifyUrl }), created: false };
    const order = await insertPayout(tx, adapter, token, merchantId, apiKeyId, { merchantOrderNo: input.merchantOrderNo, units, to, fromAddress: input.fromAddress, deleteSource, notifyUrl: input.notifyUrl ?? null }, now);
    return { order, created: true };
  });
}

export interface NewPayout {
  merchantOrderNo: string;
  units: bigint;
  /** Normalized destination. */
  to: string;
  fromAddress?: string;
  /** Tried first when no fromAddress is given and it covers the amount (a refund: the order's receiving address). */
  preferAddressId?: string;
  deleteSource: boolean;
  notifyUrl: string | null;
  /** The refund this payout sends (DESIGN 20). */
  refundId?: number;
}

/**
 * A new payout order in the caller's transaction, with every rule of creation: limits, not to the
 * merchant's own address (54003), the source (53001-53005), the fee (51004) and its first callback.
 */
export async function insertPayout(tx: Tx, adapter: ChainAdapter, token: { symbol: string; decimals: number }, merchantId: number, apiKeyId: string, p: NewPayout, now: number): Promise<PayoutOrderRow> {
  const amountMicro = toMicro(p.units, token.decimals);
  await lockMerchantPayouts(tx, merchantId);
  await checkLimits(tx, merchantId, amountMicro, now);
  if (await isOwnAddress(tx, merchantId, adapter.chain, p.to)) throw new AppError(54003, { toAddress: p.to });
  const source =
    p.fromAddress !== undefined
      ? await checkSource(tx, adapter, merchantId, p.fromAddress, token.symbol, p.units, p.deleteSource)
      : (await preferred(tx, adapter, merchantId, p.preferAddressId, token.symbol, p.units) ?? await pickSource(tx, adapter, merchantId, token.symbol, p.units, p.deleteSource));
  const feeMicro = await checkFee(tx, merchantId, amountMicro);
  const row = await insertPayoutRow(tx, {
    orderNo: newOrderNo("PO", now),
    merchantId,
    merchantOrderNo: p.merchantOrderNo,
    chain: adapter.chain,
    token: token.symbol,
    decimals: token.decimals,
    fromAddressId: source.id,
    fromAddress: source.address,
    toAddress: p.to,
    amount: p.units.toString(),
    fee: fromMicro(feeMicro, token.decimals).toString(),
    deleteSourceAfterSuccess: p.deleteSource,
    notifyUrl: p.notifyUrl,
    apiKeyId,
    status: "submitted",
    createdAt: now,
    submittedAt: now,
    updatedAt: now,
    refundId: p.refundId ?? null,
  });
  await writeCallback(tx, row, now);
  return row;
}

/** One of the merchant's (live) addresses on the chain: payouts to it are 54003. */
export async function isOwnAddress(db: DbOrTx, merchantId: number, chain: string, address: string): Promise<boolean> {
  return await merchantHasAddress(db, merchantId, chain, address);
}

/** The preferred source when it is usable and its available balance covers the amount. */
async function preferred(tx: Tx, adapter: ChainAdapter, merchantId: number, addressId: string | undefined, token: string, units: bigint): Promise<AddressRow | undefined> {
  if (addressId === undefined) return undefined;
  const a = await addressById(tx, addressId);
  if (!a || a.merchantId !== merchantId || a.kind === "gas" || await unusable(tx, a, adapter.chain, merchantId, false)) return undefined;
  return (await addressBalance(tx, a.id, token)).available >= units ? a : undefined;
}

/** Idempotent retry: same business fields return the order, any difference is 10001. */
function sameOrder(
  o: PayoutOrderRow,
  adapter: ChainAdapter,
  x: { chain: string; token: string; units: bigint; to: string; from?: string; deleteSource: boolean; notifyUrl?: string },
): PayoutOrderRow {
  const diff: Record<string, string> = {};
  const why = "differs from the existing order with this merchantOrderNo";
  if (o.chain !== x.chain) diff.chainCode = why;
  if (o.token !== x.token) diff.tokenSymbol = why;
  if (BigInt(o.amount) !== x.units) diff.amount = why;
  if (o.toAddress !== x.to) diff.toAddress = why;
  // An omitted fromAddress matches whatever the service picked the first time.
  if (x.from !== undefined && o.fromAddress !== (adapter.isValidAddress(x.from) ? adapter.normalizeAddress(x.from) : x.from)) diff.fromAddress = why;
  if (o.deleteSourceAfterSuccess !== x.deleteSource) diff.deleteSourceAfterSuccess = why;
  if (x.notifyUrl !== undefined && o.notifyUrl !== x.notifyUrl) diff.notifyUrl = why;
  if (Object.keys(diff).length) throw invalid(diff, { orderNo: o.orderNo });
  return o;
}

/** Why an address cannot be a payout source right now, or null. */
async function unusable(tx: Tx, a: AddressRow, chain: string, merchantId: number, deleteSource: boolean): Promise<string | null> {
  if (a.chain !== chain) return "address is on another chain";
  if (a.deletedAt !== null) return "address was deleted";
  const open = await unfinishedFrom(tx, a.id);
  if (open.retiring) return "address is being retired by an unfinished payout with deleteSourceAfterSuccess";
  if (deleteSource && open.count) return "deleteSourceAfterSuccess needs a source without other unfinished payouts";
  return null;
}

async function checkSource(tx: Tx, adapter: ChainAdapter, merchantId: number, given: string, token: string, units: bigint, deleteSource: boolean): Promise<AddressRow> {
  const form = adapter.isValidAddress(given) ? adapter.normalizeAddress(given) : given;
  // Another merchant's address or a gas wallet does not exist as far as this merchant can tell (DESIGN 10).
  const rows = (await addressesNamed(tx, form)).filter((r) => r.merchantId === merchantId && r.kind !== "gas");
  const a = rows.find((r) => r.chain === adapter.chain) ?? rows[0];
  if (!a) throw new AppError(53001, { fromAddress: given });
  const why = await unusable(tx, a, adapter.chain, merchantId, deleteSource);
  if (why) throw new AppError(53002, { fromAddress: given, reason: why });
  const { available } = await addressBalance(tx, a.id, token);
  if (available < units) throw new AppError(53005, { fromAddress: a.address, available: available.toString() });
  return a;
}

/** The merchant's usable address with the most available balance that covers the amount; none: 53003. */
async function pickSource(tx: Tx, adapter: ChainAdapter, merchantId: number, token: string, units: bigint, deleteSource: boolean): Promise<AddressRow> {
  let best: { a: AddressRow; available: bigint } | null = null;
  // Only addresses with a balance row (one seek each); nothing proportional to an address's history.
  for (const { address: a, available } of await fundedAddresses(tx, merchantId, adapter.chain, token)) {
    if (available < units || (best && available <= best.available)) continue;
    if (await unusable(tx, a, adapter.chain, merchantId, deleteSource)) continue;
    best = { a, available };
  }
  if (!best) throw new AppError(53003, { chainCode: adapter.chain, tokenSymbol: token });
  return best.a;
}

export async function getPayout(db: DbOrTx, merchantId: number, orderNo: string): Promise<PayoutOrderRow> {
  const o = await payoutByOrderNo(db, merchantId, orderNo);
  if (!o) throw new AppError(54001, { orderNo });
  return o;
}

export async function payoutById(db: DbOrTx, id: number): Promise<PayoutOrderRow> {
  return (await payoutRow(db, id))!;
}

/** `submit` (spec 4.7): only while submitted (else 54002); records the remark. The caller then runs an attempt. */
export async function requestSubmit(ctx: Pick<PayoutCtx, "db" | "clock">, merchantId: number, orderNo: string, remark: string | undefined): Promise<PayoutOrderRow> {
  return await writeTx(ctx.db, async (tx) => {
    const o = await getPayout(tx, merchantId, orderNo);
    if (o.status !== "submitted") throw new AppError(54002, { orderNo, status: o.status });
    if (remark === undefined) return o;
    return await updatePayout(tx, o.id, { remark, updatedAt: ctx.clock.now() });
  });
}

async function writeCallback(tx: Tx, o: PayoutOrderRow, now: number): Promise<void> {
  // A refund's payout: the refund follows it and the merchant hears of the refund instead.
  if (o.refundId !== null) {
    afterCommit(tx, () => countTransition("payout", o.chain, o.token, o.status));
    await followPayout(tx, o, now);
    return;
  }
  const m = (await merchantUid(tx, o.merchantId))!;
  afterCommit(tx, () => countTransition("payout", o.chain, o.token, o.status));
  await enqueueCallback(tx, {
    merchantId: o.merchantId,
    kind: "payout",
    orderNo: o.orderNo,
    status: o.status,
    apiKeyId: o.apiKeyId,
    url: o.notifyUrl,
    payload: payoutCallbackPayload(o, m.uid),
    now,
  });
}

function stamps(to: PayoutStatus, event: PayoutEvent, now: number): Partial<PayoutOrderRow> {
  switch (to) {
    case "broadcasted":
      return { broadcastedAt: now, lastError: null };
    case "confirmed":
      return { confirmedAt: now, lastError: null };
    case "failed":
      return { failedAt: now, failedStage: (event as { stage: FailedStage }).stage };
    default:
      return {};
  }
}

/**
 * The one funnel for status changes: the next status from the pure transition
 * function, the row patch, the callback, and on confirmed the ledger entry,
 * the fee debit and the source's soft-delete, all in the caller's transaction.
 * A compare-and-set on the status `o` was read in: when another writer moved the
 * payout first, it wrote that change (ledger, fee, callback) already, so this
 * writes nothing and returns the payout as it now is.
 */
export async function applyPayoutEvent(tx: Tx, o: PayoutOrderRow, event: PayoutEvent, patch: Partial<PayoutOrderRow>, now: number): Promise<PayoutOrderRow> {
  const to = transition(o.status as PayoutStatus, event);
  const row = await updatePayoutIf(tx, o.id, o.status, { ...patch, status: to, ...stamps(to, event, now), updatedAt: now });
  if (!row) return (await payoutById(tx, o.id))!;
  if (to === "confirmed") {
    await addPayoutLedger(tx, o, now);
    const fee = toMicro(BigInt(o.fee), o.decimals);
    if (fee > 0n) await moveFeeBalance(tx, o.merchantId, -fee, { kind: "payout_fee", refType: "payout_order", refId: o.orderNo, now });
    if (o.deleteSourceAfterSuccess) {
      await retireSource(tx, o.fromAddressId, now);
    }
  }
  await recordOrderEvent(tx, { kind: "payout", orderNo: o.orderNo, from: o.status, to, event, at: now });
  await writeCallback(tx, row, now);
  return row;
}

/** Non-status changes (stored signed tx, last error, attempts). */
export async function patchPayout(tx: Tx, id: number, patch: Partial<PayoutOrderRow>, now: number): Promise<PayoutOrderRow> {
  return await updatePayout(tx, id, { ...patch, updatedAt: now });
}
