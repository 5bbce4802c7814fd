// Refunds (DESIGN 20): creating one on a paid pay-in order (API, back office) or on an unmatched
// deposit (back office), the payer's address from the refund page, and the list. A refund with an
// address is sent as an ordinary payout order (insertPayout, with refundId) from the merchant's
// addresses holding the token on that chain, the receiving address first; the payout executor
// sends it with every payout guarantee and the refund follows the payout (src/payout/refund-funnel.ts).
import { type DbOrTx, type Tx, writeTx } from "../db/client";
import type { payinOrders, transfers } from "../db/schema";
import { AppError, DomainError, invalid } from "../errors";
import type { ChainAdapter, ChainCode } from "../chains/types";
import { newOrderNo, newTimedToken } from "../lib/ids";
import { AMOUNT_PATTERN, fromBaseUnits, toBaseUnits } from "../lib/money";
import { checkNotifyUrl } from "../orders/rules";
import { currentKey } from "../merchants/service";
import { recordAudit, type Actor } from "../audit/log";
import { applyRefundEvent, insertRefund } from "./refund-funnel";
import type { RefundStatus } from "./refund-state";
import type { RefundRow } from "./refund-views";
import { insertPayout, isOwnAddress, type PayoutCtx } from "./service";
import { holdingRefundAmounts, linkRefundPayout, noteRefundError, refundById, refundByToken, refundOfOrderByNo, refundsOfDeposit, refundsOfOrder } from "./store";
import type { PayoutOrderRow } from "./views";

export { refundByRef, refundByToken, refundsOfDeposit, refundsOfOrder } from "./store";

type PayinRow = typeof payinOrders.$inferSelect;
type TransferRow = typeof transfers.$inferSelect;

/**
 * What a refund reads and resolves of the pay-in side: the order or the deposit it is made on.
 * Pay-ins rank above payouts, so payin/refundable.ts fills it (`refundPayins`) and the composition
 * root (app/context.ts) hands it over.
 */
export interface RefundPayins {
  /** The merchant's order with this orderNo. */
  orderByOrderNo(db: DbOrTx, merchantId: number, orderNo: string): Promise<PayinRow | undefined>;
  orderById(db: DbOrTx, id: number): Promise<PayinRow | undefined>;
  transferById(db: DbOrTx, id: number): Promise<TransferRow | undefined>;
  /**
   * Why the order cannot be refunded now (55002's reason), or null (payin/refundable.ts): completed,
   * risk_settled, a paid frozen_abnormal order, or one cancelled by "Refund all" (its payment still
   * the order's), once its payment is final.
   */
  whyNotRefundable(db: DbOrTx, o: PayinRow): Promise<string | null>;
  /** The unmatched deposit is resolved as refunded by this refund (its RF number). */
  resolveDepositRefunded(tx: Tx, transferId: number, refundRef: string, now: number): Promise<void>;
}

/** What the refund services read (the app context satisfies it as it is). */
export interface RefundCtx extends PayoutCtx {
  publicUrl: string;
  refundPayins: RefundPayins;
}

export interface CreateRefundInput {
  refundNo: string;
  amount: string;
  toAddress?: string;
  notifyUrl?: string;
}

export interface RefundResult {
  refund: RefundRow;
  /** The payout created for it (to attempt at once), if any. */
  payout: PayoutOrderRow | null;
  /** false: an idempotent retry returned the existing refund. */
  created: boolean;
}

/**
 * A refund refused outside the API (the payer's refund page, the back office): a code of
 * src/errors.ts DOMAIN_ERRORS with its parameters; pages show its words in their language.
 */
export class RefundRefused extends DomainError {}

function adapterOf(ctx: Pick<PayoutCtx, "chains">, chain: string): ChainAdapter {
  const a = ctx.chains.get(chain as ChainCode);
  if (!a) throw new AppError(31001, { chainCode: chain }, "Chain not enabled on this gateway");
  return a;
}

/** A refund address: valid for the chain (10001) in its canonical form, not one of the merchant's own (54003). */
export async function refundAddress(db: DbOrTx, adapter: ChainAdapter, merchantId: number, given: string, field = "toAddress"): Promise<string> {
  const raw = given.trim();
  if (!adapter.isValidAddress(raw)) throw invalid({ [field]: `not a valid ${adapter.chain} address` });
  const to = adapter.normalizeAddress(raw);
  if (await isOwnAddress(db, merchantId, adapter.chain, to)) throw new AppError(54003, { [field]: to });
  return to;
}

function units(amount: string, decimals: number): bigint {
  let u: bigint;
  try {
    u = toBaseUnits(amount, decimals);
  } catch {
    throw invalid({ amount: AMOUNT_PATTERN.test(amount) ? `has more decimal places than the token has (at most ${decimals})` : "must be a decimal amount such as 12.5" });
  }
  if (u <= 0n) throw invalid({ amount: "must be greater than 0" });
  return u;
}

/** Sum of the refunds that still count (every one not failed) of an order or a deposit. */
async function refunded(tx: DbOrTx, where: { payinOrderId: number } | { transferId: number }): Promise<bigint> {
  return (await holdingRefundAmounts(tx, where)).reduce((s, a) => s + BigInt(a), 0n);
}

/** What the order's refunds not failed add up to (awaiting the payer's address, on their way, or sent). */
export async function orderRefunded(tx: DbOrTx, payinOrderId: number): Promise<bigint> {
  return await refunded(tx, { payinOrderId });
}

/** What can still be refunded on an order: paid minus the refunds not failed (0 when not refundable). */
export async function refundableAmount(payins: RefundPayins, tx: DbOrTx, o: PayinRow): Promise<bigint> {
  if (await payins.whyNotRefundable(tx, o)) return 0n;
  const left = BigInt(o.paidAmount!) - await refunded(tx, { payinOrderId: o.id });
  return left > 0n ? left : 0n;
}

/** The unmatched deposit's refundable amount: its amount minus the refunds not failed. */
export async function depositRefundable(tx: DbOrTx, t: TransferRow): Promise<bigint> {
  const left = BigInt(t.amount) - await refunded(tx, { transferId: t.id });
  return left > 0n ? left : 0n;
}

/** The refunds of an order, oldest first (40108 when the order is not this merchant's). */
export async function listRefunds(ctx: Pick<RefundCtx, "db" | "refundPayins">, merchantId: number, orderNo: string): Promise<RefundRow[]> {
  const o = await ctx.refundPayins.orderByOrderNo(ctx.db, merchantId, orderNo);
  if (!o) throw new AppError(40108, { orderNo });
  return await refundsOfOrder(ctx.db, o.id);
}

/** Where a refund comes from: the API (its key signs the callbacks), or a back-office user (audited). */
export type RefundOrigin = { source: "api"; apiKeyId: string } | { source: "backoffice"; actor: Actor };

interface NewRefund {
  merchantId: number;
  refundNo: string;
  order: PayinRow | null;
  deposit: TransferRow | null;
  chain: string;
  token: string;
  decimals: number;
  units: bigint;
  to: string | null;
  addressBy: "merchant" | "operator" | null;
  notifyUrl: string | null;
  apiKeyId: string | null;
  source: "api" | "backoffice";
  /** Tried first as the source: the receiving address. */
  receivingAddressId: string | null;
}

/**
 * The refund row, and with an address its payout (the refund then starts at submitted), in the
 * caller's transaction. Balance, limit and fee errors are the payout's (53003, 53005, 51002, 51004).
 */
async function addRefund(ctx: RefundCtx, tx: Tx, r: NewRefund, now: number): Promise<RefundResult> {
  const adapter = adapterOf(ctx, r.chain);
  const refundRef = newOrderNo("RF", now);
  // Every refund has a page (the payer's page of a cancelled order links it, issue 36); only one
  // waiting for the payer's address hands it out as refundUrl, where the payer gives it.
  const pageToken = newTimedToken(now);
  const values = {
    refundRef,
    refundNo: r.refundNo,
    merchantId: r.merchantId,
    payinOrderId: r.order?.id ?? null,
    orderNo: r.order?.orderNo ?? null,
    transferId: r.deposit?.id ?? null,
    chain: r.chain,
    token: r.token,
    decimals: r.decimals,
    amount: r.units.toString(),
    toAddress: r.to,
    addressBy: r.addressBy,
    status: (r.to === null ? "awaiting_address" : "submitted") as RefundStatus,
    pageToken,
    refundUrl: r.to === null ? `${ctx.publicUrl}/refund/${pageToken}` : null,
    notifyUrl: r.notifyUrl,
    apiKeyId: r.apiKeyId,
    source: r.source,
    createdAt: now,
    updatedAt: now,
  };
  let payout: PayoutOrderRow | null = null;
  const refund = await insertRefund(tx, values, now, async (row) => {
    if (r.to === null) return row;
    const token = adapter.tokens.find((t) => t.symbol === r.token) ?? { symbol: r.token, decimals: r.decimals };
    payout = await insertPayout(tx, adapter, token, r.merchantId, await payoutKey(tx, r), { merchantOrderNo: refundRef, units: r.units, to: r.to, preferAddressId: r.receivingAddressId ?? undefined, deleteSource: false, notifyUrl: null, refundId: row.id }, now);
    return await linkRefundPayout(tx, row.id, payout);
  });
  return { refund, payout, created: true };
}

/** The payout row needs a key id; its own callback is never sent (the refund's is). */
async function payoutKey(tx: DbOrTx, r: Pick<NewRefund, "apiKeyId" | "merchantId" | "order">): Promise<string> {
  return r.apiKeyId ?? (await currentKey(tx, r.merchantId))?.id ?? r.order?.apiKeyId ?? "none";
}

/** Idempotent retry: the same body returns the refund, another is 55003. */
function sameRefund(r: RefundRow, x: { units: bigint; to: string | null; notifyUrl: string | null }): RefundRow {
  const diff: string[] = [];
  if (BigInt(r.amount) !== x.units) diff.push("amount");
  if (x.to !== null ? r.addressBy !== "merchant" || r.toAddress !== x.to : r.addressBy === "merchant") diff.push("toAddress");
  if ((r.notifyUrl ?? null) !== x.notifyUrl) diff.push("notifyUrl");
  if (diff.length) throw new AppError(55003, { refundNo: r.refundNo, fields: diff });
  return r;
}

/**
 * POST /openapi/payin/orders/{orderNo}/refunds (and the back office's "Refund" on an order): 40108
 * unknown order, 55002 not refundable, 55001 over the refundable amount, 55003 refundNo reused with
 * another body, 54003 to the merchant's own address; nothing is written on any of them.
 */
export async function createRefund(ctx: RefundCtx, merchantId: number, orderNo: string, input: CreateRefundInput, origin: RefundOrigin): Promise<RefundResult> {
  const o = await ctx.refundPayins.orderByOrderNo(ctx.db, merchantId, orderNo);
  if (!o) throw new AppError(40108, { orderNo });
  const u = units(input.amount, o.decimals);
  const adapter = adapterOf(ctx, o.chain);
  const given = input.toAddress !== undefined ? input.toAddress.trim() : null;
  if (given !== null && !adapter.isValidAddress(given)) throw invalid({ toAddress: `not a valid ${adapter.chain} address` });
  const to = given !== null ? adapter.normalizeAddress(given) : null;
  if (input.notifyUrl !== undefined) checkNotifyUrl(ctx, input.notifyUrl);
  const notifyUrl = input.notifyUrl ?? null;
  const now = ctx.clock.now();
  return await writeTx(ctx.db, async (tx) => {
    const existing = await refundOfOrderByNo(tx, o.id, input.refundNo);
    if (existing) return { refund: sameRefund(existing, { units: u, to, notifyUrl }), payout: null, created: false };
    const fresh = (await ctx.refundPayins.orderById(tx, o.id))!;
    const why = await ctx.refundPayins.whyNotRefundable(tx, fresh);
    if (why) throw new AppError(55002, { orderNo, status: fresh.status, reason: why });
    const left = await refundableAmount(ctx.refundPayins, tx, fresh);
    if (u > left) throw new AppError(55001, { orderNo, refundable: amountText(left, o.decimals) });
    if (to !== null && await isOwnAddress(tx, merchantId, o.chain, to)) throw new AppError(54003, { toAddress: to });
    const apiKeyId = origin.source === "api" ? origin.apiKeyId : ((await currentKey(tx, merchantId))?.id ?? o.apiKeyId);
    const res = await addRefund(ctx, tx, {
      merchantId, refundNo: input.refundNo, order: fresh, deposit: null, chain: o.chain, token: o.token, decimals: o.decimals, units: u, to,
      addressBy: to === null ? null : origin.source === "api" ? "merchant" : "operator", notifyUrl, apiKeyId, source: origin.source, receivingAddressId: o.addressId,
    }, now);
    if (origin.source === "backoffice") {
      await recordAudit(tx, { ...origin.actor, at: now, action: "refund.create", target: `payin:${o.orderNo}`, before: { refundable: amountText(left, o.decimals) }, after: auditView(res.refund) });
    }
    return res;
  });
}

const amountText = (units: bigint, decimals: number) => fromBaseUnits(units, decimals, 6);

function auditView(r: RefundRow) {
  return { refundRef: r.refundRef, refundNo: r.refundNo, orderNo: r.orderNo, depositId: r.transferId, amount: r.amount, toAddress: r.toAddress, status: r.status, payoutOrderNo: r.payoutOrderNo, refundUrl: r.refundUrl };
}

/**
 * The back office's "Refund" on an unmatched deposit (replaces "Mark refunded"): the whole deposit
 * or part of it, to the payer's address or through a refund link. The deposit is resolved as
 * refunded (its resolutionRef is the refund's RF number). No callback: the merchant had no order.
 */
export async function refundDeposit(
  ctx: RefundCtx,
  depositId: number,
  input: { amount: string; toAddress?: string },
  actor: Actor,
  scope: { merchantId?: number } = {},
): Promise<RefundResult> {
  const now = ctx.clock.now();
  return await writeTx(ctx.db, async (tx) => {
    const t = await ctx.refundPayins.transferById(tx, depositId);
    const merchantId = t?.merchantId ?? null;
    if (!t || t.unmatchedReason === null || merchantId === null || (scope.merchantId !== undefined && merchantId !== scope.merchantId)) throw new RefundRefused("deposit.unknown", { depositId });
    if (t.resolution && t.resolution !== "refunded") throw new RefundRefused("deposit.resolved", { depositId, resolution: t.resolution });
    if (t.unmatchedReason === "counterfeit_token") throw new RefundRefused("refund.deposit_counterfeit", { depositId, token: t.token });
    if (t.status !== "confirmed") throw new RefundRefused("deposit.not_final", { depositId, status: t.status });
    const adapter = adapterOf(ctx, t.chain);
    const decimals = adapter.tokens.find((x) => x.symbol === t.token)?.decimals ?? 6;
    const u = units(input.amount, decimals);
    const left = await depositRefundable(tx, t);
    if (u > left) throw new AppError(55001, { depositId, refundable: amountText(left, decimals) });
    const to = input.toAddress !== undefined && input.toAddress.trim() !== "" ? await refundAddress(tx, adapter, merchantId, input.toAddress) : null;
    const n = (await refundsOfDeposit(tx, t.id)).length + 1;
    const res = await addRefund(ctx, tx, {
      merchantId, refundNo: `deposit-${t.id}-${n}`, order: null, deposit: t, chain: t.chain, token: t.token, decimals, units: u, to,
      addressBy: to === null ? null : "operator", notifyUrl: null, apiKeyId: null, source: "backoffice", receivingAddressId: t.addressId,
    }, now);
    await ctx.refundPayins.resolveDepositRefunded(tx, t.id, res.refund.refundRef, now);
    await recordAudit(tx, { ...actor, at: now, action: "deposit.refund", target: `deposit:${depositId}`, before: { resolution: t.resolution, refundable: amountText(left, decimals) }, after: auditView(res.refund) });
    return res;
  });
}

/**
 * The payer's address from the refund page: validated for the chain, not the merchant's own; the
 * payout is created and the refund moves to submitted (with its callback). A balance the merchant
 * lacks right now keeps the refund waiting (lastError says why) and is a RefundRefused.
 */
export async function giveRefundAddress(ctx: RefundCtx, pageToken: string, address: string): Promise<RefundResult> {
  const now = ctx.clock.now();
  const r0 = await refundByToken(ctx.db, pageToken);
  if (!r0) throw new RefundRefused("refund.unknown");
  const adapter = adapterOf(ctx, r0.chain);
  try {
    return await writeTx(ctx.db, async (tx) => {
      const r = (await refundById(tx, r0.id))!;
      if (r.status !== "awaiting_address") throw new RefundRefused("refund.has_address");
      const to = await refundAddress(tx, adapter, r.merchantId, address, "address");
      const order = r.payinOrderId !== null ? (await ctx.refundPayins.orderById(tx, r.payinOrderId) ?? null) : null;
      const receiving = order?.addressId ?? (r.transferId !== null ? ((await ctx.refundPayins.transferById(tx, r.transferId))?.addressId ?? null) : null);
      const token = adapter.tokens.find((t) => t.symbol === r.token) ?? { symbol: r.token, decimals: r.decimals };
      const payout = await insertPayout(tx, adapter, token, r.merchantId, await payoutKey(tx, { apiKeyId: r.apiKeyId, merchantId: r.merchantId, order }), {
        merchantOrderNo: r.refundRef, units: BigInt(r.amount), to, preferAddressId: receiving ?? undefined, deleteSource: false, notifyUrl: null, refundId: r.id,
      }, now);
      const refund = await applyRefundEvent(tx, r, { type: "address_given" }, { toAddress: to, addressBy: "payer", payoutOrderId: payout.id, payoutOrderNo: payout.orderNo, lastError: null }, now);
      return { refund, payout, created: true };
    });
  } catch (e) {
    if (e instanceof AppError && [53003, 53005, 51002, 51004].includes(e.code)) {
      await writeTx(ctx.db, async (tx) => await noteRefundError(tx, r0.id, e.message, now));
      throw new RefundRefused("refund.cannot_send");
    }
    throw e;
  }
}
