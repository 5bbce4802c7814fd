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

async function act(
  ctx: PayinCtx,
  orderNo: string,
  scope: OrderScope,
  audit: { actor: Actor; action: string; note?: Record<string, unknown> },
  fn: (tx: Tx, o: PayinOrderRow, now: number) => Promise<PayinOrderRow>,
): Promise<PayinOrderRow> {
  const now = ctx.clock.now();
  return await writeTx(ctx.db, async (tx) => {
    const o = await orderWithNo(tx, orderNo);
    if (!o || (scope.merchantId !== undefined && o.merchantId !== scope.merchantId)) throw new OperatorError("payin.order_unknown", { orderNo });
    const row = await fn(tx, o, now);
    await recordAudit(tx, { ...audit.actor, at: now, action: audit.action, target: `payin:${o.orderNo}`, before: snapshot(o), after: { ...snapshot(row), ...audit.note } });
    return row;
  });
}

function refuse(o: PayinOrderRow, code: "payin.cannot_freeze" | "payin.cannot_cancel", event: PayinEvent): void {
  if (!canTransition(o.status as PayinStatus, event)) throw new OperatorError(code, { orderNo: o.orderNo, status: o.status });
}

export async function freezeOrder(ctx: PayinCtx, orderNo: string, reason: string, actor: Actor, scope: OrderScope = {}): Promise<PayinOrderRow> {
  const why = checkText("reason", reason, 500);
  return await act(ctx, orderNo, scope, { actor, action: "payin.freeze", note: { reason: why } }, async (tx, o, now) => {
    refuse(o, "payin.cannot_freeze", { type: "freeze" });
    return await applyPayinEvent(tx, o, { type: "freeze" }, {}, now);
  });
}

/**
 * Cancels a waiting or frozen order. What a frozen order was paid stays in the
 * ledger and becomes an unmatched deposit (reason order_cancelled): refundable. Once refunds were
 * made on the order its payment stays the order's instead, refundable there for what is left.
 */
export async function cancelOrder(ctx: PayinCtx, orderNo: string, actor: Actor, scope: OrderScope = {}, opts: { refunded?: boolean } = {}): Promise<PayinOrderRow> {
  return await act(ctx, orderNo, scope, { actor, action: "payin.cancel", ...(opts.refunded ? { note: { refunded: true } } : {}) }, async (tx, o, now) => {
    refuse(o, "payin.cannot_cancel", { type: "cancel" });
    // Refunded in the same transaction (the guided "Refund all"), or refunded in part already: the
    // payment stays the order's (refundable for what is left), never an unmatched deposit whose whole
    // amount could be refunded a second time.
    if (o.transferId !== null && !opts.refunded && (await keptOf(tx, o)).refunded === 0n) {
      await unlinkCancelledPayment(tx, o.transferId, o.id);
    }
    return await applyPayinEvent(tx, o, { type: "cancel" }, {}, now);
  });
}

/**
 * Releases a frozen order (DESIGN 5): completed when it was paid at least the
 * amount on time, risk_settled when paid less or late, back to waiting_payment
 * (expired past expireAt) when nothing was paid. A payment not final yet is
 * refused: release it once it is. Refunds that leave less than the amount kept refuse it (payin/kept.ts).
 */
export async function releaseOrder(ctx: PayinCtx, orderNo: string, actor: Actor, scope: OrderScope = {}): Promise<PayinOrderRow> {
  return await act(ctx, orderNo, scope, { actor, action: "payin.release" }, async (tx, o, now) => {
    if (o.status !== "frozen_abnormal") throw new OperatorError("payin.release_not_frozen", { orderNo: o.orderNo, status: o.status });
    const t = o.transferId ? await transferById(tx, o.transferId) : undefined;
    if (t && t.status === "pending") {
      throw new OperatorError("payin.release_not_final", { orderNo: o.orderNo, confirmations: t.confirmations });
    }
    const refused = acceptRefusal(o, await keptOf(tx, o));
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
    return await applyPayinEvent(tx, o, { type: "release", paid, pastExpiry }, patch, now);
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
export async function denySender(ctx: Pick<PayinCtx, "db" | "clock">, chain: string, address: string, reason: string, actor: Actor): Promise<DenyEntry> {
  const target = denyTarget(chain, address);
  const why = checkText("reason", reason, 500);
  const now = ctx.clock.now();
  return await writeTx(ctx.db, async (tx) => {
    if (await isDenied(tx, target.chain, target.address)) throw new OperatorError("deny.already", { chain: target.chain, address: target.address });
    const row = await insertDenied(tx, { chain: target.chain, address: target.address, reason: why, createdAt: now });
    await recordAudit(tx, { ...actor, at: now, action: "denylist.add", target: `denylist:${target.chain}:${target.address}`, before: null, after: denyView(row) });
    return denyView(row);
  });
}

export async function undenySender(ctx: Pick<PayinCtx, "db" | "clock">, chain: string, address: string, actor: Actor): Promise<DenyEntry> {
  const target = denyTarget(chain, address);
  const now = ctx.clock.now();
  return await writeTx(ctx.db, async (tx) => {
    const row = await removeDenied(tx, target.chain, target.address);
    if (!row) throw new OperatorError("deny.not_listed", { chain: target.chain, address: target.address });
    await recordAudit(tx, { ...actor, at: now, action: "denylist.remove", target: `denylist:${target.chain}:${target.address}`, before: denyView(row), after: null });
    return denyView(row);
  });
}

export async function listDenied(ctx: Pick<PayinCtx, "db">): Promise<DenyEntry[]> {
  return (await deniedSenders(ctx.db)).map(denyView);
}
