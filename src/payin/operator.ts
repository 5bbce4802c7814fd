// Operator actions on pay-ins (CLI and back office). Each goes through the same
// transition funnel as the watcher, so each writes its callback, and each
// writes an audit entry in the same transaction. `actor` says who acted;
// `scope.merchantId` limits a merchant user to its own orders.
import { type Tx, writeTx } from "../db/client";
import { deniedSenders, type DenyRow, insertDenied, isDenied, removeDenied } from "./deny-list-store";
import { orderWithNo } from "./orders-store";
import { transferById } from "../watcher/transfers-store";
import { unlinkCancelledPayment } from "./unmatched-store";
import { recordAudit, type Actor } from "../audit/log";
import { isValidAddress, normalizeAddress } from "../wallet/hd";
import { chainModules, hasChainModule } from "../chains/registry";

/** "TRON, BSC or SOL" */
const chainList = () => chainModules().map((m) => m.code).join(", ").replace(/, ([^,]*)$/, " or $1");
import type { ChainCode } from "../chains/types";
import { applyPayinEvent, type PayinCtx } from "./service";
import { canTransition, type PayinEvent, type PayinStatus, type ReleasePaid } from "./state";
import type { PayinOrderRow } from "./views";
import { checkText, OperatorError } from "./operator-error";
import { acceptRefusal, keptOf } from "./kept";

export { OperatorError } from "./operator-error";
export { attachDeposit, dismissDeposit, markDepositRefunded } from "./unmatched";

export interface OrderScope {
  merchantId?: number;
}

const snapshot = (o: PayinOrderRow) => ({ orderNo: o.orderNo, status: o.status, amount: o.amount, paidAmount: o.paidAmount, txHash: o.txHash });

function act(
  ctx: PayinCtx,
  orderNo: string,
  scope: OrderScope,
  audit: { actor: Actor; action: string; note?: Record<string, unknown> },
  fn: (tx: Tx, o: PayinOrderRow, now: number) => PayinOrderRow,
): PayinOrderRow {
  const now = ctx.clock.now();
  return writeTx(ctx.db, (tx) => {
    const o = orderWithNo(tx, orderNo);
    if (!o || (scope.merchantId !== undefined && o.merchantId !== scope.merchantId)) throw new OperatorError("payin.order_unknown", { orderNo });
    const row = fn(tx, o, now);
    recordAudit(tx, { ...audit.actor, at: now, action: audit.action, target: `payin:${o.orderNo}`, before: snapshot(o), after: { ...snapshot(row), ...audit.note } });
    return row;
  });
}

function refuse(o: PayinOrderRow, code: "payin.cannot_freeze" | "payin.cannot_cancel", event: PayinEvent): void {
  if (!canTransition(o.status as PayinStatus, event)) throw new OperatorError(code, { orderNo: o.orderNo, status: o.status });
}

export function freezeOrder(ctx: PayinCtx, orderNo: string, reason: string, actor: Actor, scope: OrderScope = {}): PayinOrderRow {
  const why = checkText("reason", reason, 500);
  return act(ctx, orderNo, scope, { actor, action: "payin.freeze", note: { reason: why } }, (tx, o, now) => {
    refuse(o, "payin.cannot_freeze", { type: "freeze" });
    return applyPayinEvent(tx, o, { type: "freeze" }, {}, now);
  });
}

/**
 * Cancels a waiting or frozen order. What a frozen order was paid stays in the
 * ledger and becomes an unmatched deposit (reason order_cancelled): refundable. Once refunds were
 * made on the order its payment stays the order's instead, refundable there for what is left.
 */
export function cancelOrder(ctx: PayinCtx, orderNo: string, actor: Actor, scope: OrderScope = {}, opts: { refunded?: boolean } = {}): PayinOrderRow {
  return act(ctx, orderNo, scope, { actor, action: "payin.cancel", ...(opts.refunded ? { note: { refunded: true } } : {}) }, (tx, o, now) => {
    refuse(o, "payin.cannot_cancel", { type: "cancel" });
    // Refunded in the same transaction (the guided "Refund all"), or refunded in part already: the
    // payment stays the order's (refundable for what is left), never an unmatched deposit whose whole
    // amount could be refunded a second time.
    if (o.transferId !== null && !opts.refunded && keptOf(tx, o).refunded === 0n) {
      unlinkCancelledPayment(tx, o.transferId, o.id);
    }
    return applyPayinEvent(tx, o, { type: "cancel" }, {}, now);
  });
}

/**
 * Releases a frozen order (DESIGN 5): completed when it was paid at least the
 * amount on time, risk_settled when paid less or late, back to waiting_payment
 * (expired past expireAt) when nothing was paid. A payment not final yet is
 * refused: release it once it is. Refunds that leave less than the amount kept refuse it (payin/kept.ts).
 */
export function releaseOrder(ctx: PayinCtx, orderNo: string, actor: Actor, scope: OrderScope = {}): PayinOrderRow {
  return act(ctx, orderNo, scope, { actor, action: "payin.release" }, (tx, o, now) => {
    if (o.status !== "frozen_abnormal") throw new OperatorError("payin.release_not_frozen", { orderNo: o.orderNo, status: o.status });
    const t = o.transferId ? transferById(tx, o.transferId) : undefined;
    if (t && t.status === "pending") {
      throw new OperatorError("payin.release_not_final", { orderNo: o.orderNo, confirmations: t.confirmations });
    }
    const refused = acceptRefusal(o, keptOf(tx, o));
    if (refused) throw new OperatorError("payin.accept_refused", { orderNo: o.orderNo, ...refused });
    const received = t && t.status === "confirmed" ? t : undefined;
    let paid: ReleasePaid = "none";
    if (received) {
      const onTime = o.expireAt === null || received.blockTime <= o.expireAt;
      paid = onTime && BigInt(received.amount) >= BigInt(o.amount) ? "in_full" : "short_or_late";
    }
    const pastExpiry = o.expireAt !== null && now > o.expireAt;
    const patch: Partial<PayinOrderRow> = received
      ? { confirmedAt: o.confirmedAt ?? now }
      : { transferId: null, paidAmount: null, txHash: null, fromAddress: null, confirmations: 0, detectedAt: null };
    return applyPayinEvent(tx, o, { type: "release", paid, pastExpiry }, patch, now);
  });
}

export interface DenyEntry {
  chainCode: string;
  address: string;
  reason: string | null;
  createdAt: string;
}

function denyTarget(chain: string, address: string): { chain: ChainCode; address: string } {
  const c = chain.trim().toUpperCase();
  if (!hasChainModule(c)) throw new OperatorError("deny.unknown_chain", { chain: JSON.stringify(chain), chains: chainList() });
  if (!isValidAddress(c, address.trim())) throw new OperatorError("deny.invalid_address", { address: JSON.stringify(address), chain: c });
  // One canonical form (BSC checksum case) so the watcher's comparison cannot miss it.
  return { chain: c, address: normalizeAddress(c, address.trim()) };
}

const denyView = (r: DenyRow): DenyEntry => ({ chainCode: r.chain, address: r.address, reason: r.reason, createdAt: new Date(r.createdAt).toISOString() });

/** Transfers from this sender freeze the order they pay (and are kept as unmatched otherwise). */
export function denySender(ctx: Pick<PayinCtx, "db" | "clock">, chain: string, address: string, reason: string, actor: Actor): DenyEntry {
  const target = denyTarget(chain, address);
  const why = checkText("reason", reason, 500);
  const now = ctx.clock.now();
  return writeTx(ctx.db, (tx) => {
    if (isDenied(tx, target.chain, target.address)) throw new OperatorError("deny.already", { chain: target.chain, address: target.address });
    const row = insertDenied(tx, { chain: target.chain, address: target.address, reason: why, createdAt: now });
    recordAudit(tx, { ...actor, at: now, action: "denylist.add", target: `denylist:${target.chain}:${target.address}`, before: null, after: denyView(row) });
    return denyView(row);
  });
}

export function undenySender(ctx: Pick<PayinCtx, "db" | "clock">, chain: string, address: string, actor: Actor): DenyEntry {
  const target = denyTarget(chain, address);
  const now = ctx.clock.now();
  return writeTx(ctx.db, (tx) => {
    const row = removeDenied(tx, target.chain, target.address);
    if (!row) throw new OperatorError("deny.not_listed", { chain: target.chain, address: target.address });
    recordAudit(tx, { ...actor, at: now, action: "denylist.remove", target: `denylist:${target.chain}:${target.address}`, before: denyView(row), after: null });
    return denyView(row);
  });
}

export function listDenied(ctx: Pick<PayinCtx, "db">): DenyEntry[] {
  return deniedSenders(ctx.db).map(denyView);
}
