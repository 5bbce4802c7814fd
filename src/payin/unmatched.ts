// Unmatched deposits (DESIGN 5 "Money that does not match"): money that reached
// a gateway address and paid no order. Each keeps why it did not match, whose
// address it reached and what became of it (attached to an order, refunded by a
// payout, dismissed with a note). The operator CLI and the back office call
// these; every action is audited in the transaction that makes it.
import { withinUnderpayTolerance } from "./tolerance";
import { type DbOrTx, type Tx, writeTx } from "../db/client";
import { payoutWithOrderNo } from "../payout/store";
import { isDenied } from "./deny-list-store";
import { orderWithNo, updateOrder } from "./orders-store";
import { refundedByPayout, transferWithOwner, unmatchedPage, updateTransfer } from "./unmatched-store";
import { type TransferRow } from "../watcher/transfers-store";
import { recordAudit, type Actor } from "../audit/log";
import { defaultToken } from "../chains/registry";
import type { ChainCode } from "../chains/types";
import { fromBaseUnits } from "../lib/money";
import { iso } from "../lib/clock";
import { applyPayinEvent, type PayinCtx } from "./service";
import type { PayinOrderRow } from "./views";
import { checkText, OperatorError } from "./operator-error";

export const UNMATCHED_REASONS = {
  no_open_order: "no open order of this token on the address covers the block time",
  several_candidates: "several open orders of this token on the address: which one is ambiguous",
  order_already_paid: "the address's only open order of this token is already paid",
  after_late_window: "an order of this amount exists, but the payment came after its late window",
  deny_listed: "the sender is on the deny list",
  wrong_token: "a token the exclusive address has no binding for",
  order_cancelled: "the frozen order it paid was cancelled; the money is refundable",
  unknown_address: "not a gateway address",
  no_api_key: "the merchant has no API key to sign a deposit order",
  restore_gap: "an address handed out after the restored backup: its order or binding is unknown to this database",
  counterfeit_token: "a look-alike of the token from another issuer's contract (TON: a jetton wallet the USDT master does not assign to the address): never credited, attached or refunded",
} as const;
export type UnmatchedReason = keyof typeof UNMATCHED_REASONS;

export type DepositRow = TransferRow;

export interface DepositScope {
  /** A merchant user sees and acts on deposits to its own addresses only. */
  merchantId?: number;
}

function decimalsOf(ctx: Pick<PayinCtx, "chains">, chain: string, token: string): number {
  return (
    ctx.chains.get(chain as ChainCode)?.tokens.find((t) => t.symbol === token)?.decimals ??
    defaultToken(chain, token)?.decimals ??
    6
  );
}

export function depositView(ctx: Pick<PayinCtx, "chains">, t: DepositRow, merchantUid: string | null, orderNo: string | null = null) {
  return {
    depositId: t.id,
    merchantUid,
    chainCode: t.chain,
    tokenSymbol: t.token,
    amount: fromBaseUnits(BigInt(t.amount), decimalsOf(ctx, t.chain, t.token), 6),
    toAddress: t.toAddress,
    fromAddress: t.fromAddress,
    txHash: t.txHash,
    logIndex: t.logIndex,
    blockNumber: t.blockNumber,
    blockTime: iso(t.blockTime),
    /** pending (not final) | confirmed | reverted (gone in a reorg) */
    status: t.status,
    confirmations: t.confirmations,
    reason: t.unmatchedReason,
    reasonText: t.unmatchedReason ? (UNMATCHED_REASONS[t.unmatchedReason as UnmatchedReason] ?? t.unmatchedReason) : null,
    /** null while open; attached | refunded | dismissed */
    resolution: t.resolution,
    /** attached: the order's orderNo; refunded: the payout's orderNo. */
    resolutionRef: t.resolution === "attached" ? (orderNo ?? t.resolutionRef) : t.resolutionRef,
    resolutionNote: t.resolutionNote,
    resolvedAt: iso(t.resolvedAt),
    seenAt: iso(t.seenAt)!,
  };
}
export type DepositView = ReturnType<typeof depositView>;

export interface UnmatchedFilter extends DepositScope {
  /** open (default): not yet attached, refunded or dismissed; resolved; all. */
  state?: "open" | "resolved" | "all";
  chain?: string;
  limit?: number;
  offset?: number;
}

/** Deposits that matched no order on arrival (and those since resolved), newest first. */
export async function listUnmatched(ctx: Pick<PayinCtx, "db" | "chains">, f: UnmatchedFilter = {}): Promise<{ deposits: DepositView[]; total: number }> {
  const { rows, total } = await unmatchedPage(ctx.db, {
    state: f.state ?? "open",
    chain: f.chain,
    merchantId: f.merchantId,
    limit: Math.min(Math.max(f.limit ?? 100, 1), 1000),
    offset: Math.max(f.offset ?? 0, 0),
  });
  return { deposits: rows.map((r) => depositView(ctx, r.t, r.uid)), total };
}

async function loadDeposit(tx: DbOrTx, depositId: number, scope: DepositScope) {
  const r = await transferWithOwner(tx, depositId);
  if (!r || r.t.unmatchedReason === null || (scope.merchantId !== undefined && r.merchantId !== scope.merchantId)) {
    throw new OperatorError("deposit.unknown", { depositId });
  }
  return r;
}

async function openDeposit(tx: Tx, depositId: number, scope: DepositScope) {
  const r = await loadDeposit(tx, depositId, scope);
  if (r.t.resolution) {
    const resolution = r.t.resolution;
    throw r.t.resolutionRef ? new OperatorError("deposit.resolved_ref", { depositId, resolution, ref: r.t.resolutionRef }) : new OperatorError("deposit.resolved", { depositId, resolution });
  }
  return r;
}

function parseDepositId(raw: number | string): number {
  const s = String(raw).trim();
  if (!/^[1-9]\d{0,15}$/.test(s)) throw new OperatorError("deposit.id_invalid", { raw: JSON.stringify(String(raw)) });
  return Number(s);
}

function paidFields(t: DepositRow): Partial<PayinOrderRow> {
  return { transferId: t.id, paidAmount: t.amount, txHash: t.txHash, fromAddress: t.fromAddress, confirmations: t.confirmations };
}

/**
 * Attaches an unmatched deposit to an open or expired order of the same address
 * and token, with the rules of a match on arrival: the exact amount on time pays
 * it (completed once final), the exact amount late settles it as risk_settled once
 * final, another amount freezes it with paidAmount (released by the operator); a
 * deny-listed sender freezes it. The order's callbacks go out through the funnel.
 */
export async function attachDeposit(ctx: PayinCtx, depositIdRaw: number | string, orderNo: string, actor: Actor, scope: DepositScope = {}): Promise<PayinOrderRow> {
  const depositId = parseDepositId(depositIdRaw);
  const now = ctx.clock.now();
  return await writeTx(ctx.db, async (tx) => {
    const { t, uid } = await openDeposit(tx, depositId, scope);
    const o = await orderWithNo(tx, orderNo);
    if (!o || (scope.merchantId !== undefined && o.merchantId !== scope.merchantId)) throw new OperatorError("payin.order_unknown", { orderNo });
    if (t.status === "reverted") throw new OperatorError("deposit.reverted", { depositId });
    if (t.unmatchedReason === "counterfeit_token") throw new OperatorError("deposit.counterfeit", { depositId, token: t.token });
    if (t.addressId !== o.addressId || t.token !== o.token) {
      throw new OperatorError("deposit.other_address", { depositId, toAddress: t.toAddress, token: t.token, orderNo, address: o.address, orderToken: o.token });
    }
    if ((o.status !== "waiting_payment" && o.status !== "expired") || o.transferId !== null) {
      throw new OperatorError("deposit.order_not_open", { orderNo, status: o.status });
    }
    const denied = await isDenied(tx, t.chain, t.fromAddress);
    // Short within [payin] underpay_tolerance counts as the amount, as it would have on arrival.
    const exact = t.amount === o.amount || (o.mode === "shared" && withinUnderpayTolerance(ctx.config.payin, BigInt(o.amount), BigInt(t.amount), o.decimals));
    const late = o.expireAt !== null && t.blockTime > o.expireAt;
    const final = t.status === "confirmed";
    const paid = paidFields(t);
    let row: PayinOrderRow;
    if (!exact) {
      row = await applyPayinEvent(tx, o, { type: "wrong_amount" }, paid, now);
    } else if (!late) {
      row = await applyPayinEvent(tx, o, { type: "paid", senderDenied: denied }, paid, now);
      if (final && row.status === "detected") row = await applyPayinEvent(tx, row, { type: "confirmations", count: 1, required: 1 }, { confirmedAt: now }, now);
    } else {
      // Late: the order is (or becomes) expired and settles as risk_settled once the deposit is final.
      const expired = o.status === "waiting_payment" ? await applyPayinEvent(tx, o, { type: "expire" }, {}, now) : o;
      if (denied) row = await applyPayinEvent(tx, expired, { type: "paid", senderDenied: true }, paid, now);
      else {
        row = (await updateOrder(tx, o.id, { ...paid, updatedAt: now }))!;
        if (final) row = await applyPayinEvent(tx, row, { type: "late_confirmed" }, { confirmedAt: now }, now);
      }
    }
    const after = await updateTransfer(tx, t.id, { disposition: "attached", payinOrderId: o.id, resolution: "attached", resolutionRef: o.orderNo, resolvedAt: now });
    await recordAudit(tx, {
      ...actor,
      at: now,
      action: "deposit.attach",
      target: `deposit:${depositId}`,
      before: { deposit: depositView(ctx, t, uid), order: { orderNo: o.orderNo, status: o.status, paidAmount: o.paidAmount } },
      after: { deposit: depositView(ctx, after, uid), order: { orderNo: row.orderNo, status: row.status, paidAmount: row.paidAmount } },
    });
    return row;
  });
}

/** Records that a payout (by its orderNo) refunded the deposit to its sender. */
export async function markDepositRefunded(ctx: PayinCtx, depositIdRaw: number | string, payoutOrderNo: string, actor: Actor, scope: DepositScope = {}): Promise<DepositView> {
  const depositId = parseDepositId(depositIdRaw);
  const now = ctx.clock.now();
  return await writeTx(ctx.db, async (tx) => {
    const { t, uid, merchantId } = await openDeposit(tx, depositId, scope);
    if (t.status !== "confirmed") throw new OperatorError("deposit.not_final", { depositId, status: t.status });
    const p = await payoutWithOrderNo(tx, payoutOrderNo);
    if (!p || (merchantId !== null && p.merchantId !== merchantId)) throw new OperatorError("deposit.payout_unknown", { payoutOrderNo, depositId });
    if (p.chain !== t.chain || p.token !== t.token) throw new OperatorError("deposit.payout_other_token", { payoutOrderNo, payoutChain: p.chain, payoutToken: p.token, chain: t.chain, token: t.token });
    if (p.status === "failed") throw new OperatorError("deposit.payout_failed", { payoutOrderNo });
    const other = await refundedByPayout(tx, payoutOrderNo, t.id);
    if (other) throw new OperatorError("deposit.payout_used", { payoutOrderNo, otherId: other.id });
    const after = await updateTransfer(tx, t.id, { resolution: "refunded", resolutionRef: payoutOrderNo, resolvedAt: now });
    await recordAudit(tx, { ...actor, at: now, action: "deposit.refunded", target: `deposit:${depositId}`, before: depositView(ctx, t, uid), after: depositView(ctx, after, uid) });
    return depositView(ctx, after, uid);
  });
}

/** Closes a deposit that needs no money movement (e.g. a test transfer), with a note saying why. */
export async function dismissDeposit(ctx: PayinCtx, depositIdRaw: number | string, note: string, actor: Actor, scope: DepositScope = {}): Promise<DepositView> {
  const depositId = parseDepositId(depositIdRaw);
  const text = checkText("note", note, 500);
  const now = ctx.clock.now();
  return await writeTx(ctx.db, async (tx) => {
    const { t, uid } = await openDeposit(tx, depositId, scope);
    const after = await updateTransfer(tx, t.id, { resolution: "dismissed", resolutionNote: text, resolvedAt: now });
    await recordAudit(tx, { ...actor, at: now, action: "deposit.dismiss", target: `deposit:${depositId}`, before: depositView(ctx, t, uid), after: depositView(ctx, after, uid) });
    return depositView(ctx, after, uid);
  });
}

export async function getDeposit(ctx: Pick<PayinCtx, "db" | "chains">, depositIdRaw: number | string, scope: DepositScope = {}): Promise<DepositView> {
  const r = await loadDeposit(ctx.db, parseDepositId(depositIdRaw), scope);
  return depositView(ctx, r.t, r.uid);
}
