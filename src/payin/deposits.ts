// What happens when the watcher sees a transfer to a gateway address, when it
// gains confirmations, and when a reorg takes it away. Called inside the
// watcher's transaction; every order change goes through applyPayinEvent.
import type { Tx } from "../db/client";
import type { IncomingTransfer } from "../chains/types";
import { defaultToken } from "../chains/registry";
import type { TransferPort } from "../watcher/port";
import { findAddress } from "../wallet/addresses";
import { derivedOrderNo, newToken } from "../lib/ids";
import { currentKey } from "../merchants/service";
import { applyPayinEvent, insertOrderWithCallback, type PayinCtx } from "./service";
import type { PayinOrderRow } from "./views";
import type { UnmatchedReason } from "./unmatched";
import type { PayinEvent } from "./state";
import { withinUnderpayTolerance } from "./tolerance";
import { addDepositLedger } from "./deposit-ledger-store";
import { bindingOf } from "./bindings-store";
import { coveringOrderIds, expiredBefore, matchCandidateIds, orderById, orderNoTaken, orderWithNo, patchOrder, showConfirmations, updateOrder } from "./orders-store";
import { crossingThreshold, insertTransfer, moveTransfer, patchTransfer, pendingInBlocks, relandTransfer, revertTransferRow, transferByKey, type TransferRow } from "../watcher/transfers-store";
import { isDenied } from "./deny-list-store";
import { mapSeq } from "../lib/async-seq";

// The statements are the stores' (orders-store.ts, watcher/transfers-store.ts, …); these stay importable from here.
export { crossingThreshold, pendingInBlocks, pendingTransfers, type TransferRow } from "../watcher/transfers-store";

/** Orders created this long after a transfer's block time still match it (clock skew between chain and server). */
const CLOCK_SKEW_MS = 60_000;

function paidPatch(t: TransferRow): Partial<PayinOrderRow> {
  return { transferId: t.id, paidAmount: t.amount, txHash: t.txHash, fromAddress: t.fromAddress, confirmations: 1 };
}

/** Records a scanned transfer (idempotent per chain, tx hash and log index) and matches it. */
export async function recordTransfer(ctx: PayinCtx, tx: Tx, it: IncomingTransfer, now: number): Promise<TransferRow | null> {
  const addr = await findAddress(tx, it.chain, it.to);
  const existing = await transferByKey(tx, it.chain, it.txHash, it.logIndex);
  const block = { blockNumber: Number(it.blockNumber), blockHash: it.blockHash, blockTime: it.blockTime };
  if (existing) {
    if (existing.status === "reverted") {
      // The same transaction landed again after a reorg.
      const t = await relandTransfer(tx, existing.id, block);
      await matchTransfer(ctx, tx, t, addr?.kind, now, it.memo, it.counterfeit);
      return t;
    }
    if (existing.blockHash !== it.blockHash && existing.status === "pending") {
      await moveTransfer(tx, existing.id, block);
    }
    return null;
  }
  const values = {
    chain: it.chain,
    token: it.token,
    txHash: it.txHash,
    logIndex: it.logIndex,
    ...block,
    fromAddress: it.from,
    toAddress: it.to,
    addressId: addr?.id ?? null,
    amount: it.amount.toString(),
    status: "pending",
    confirmations: 1,
    disposition: "unmatched",
    seenAt: now,
  };
  const t = await insertTransfer(tx, values);
  await matchTransfer(ctx, tx, t, addr?.kind, now, it.memo, it.counterfeit);
  return t;
}

async function setDisposition(tx: Tx, t: TransferRow, disposition: string, orderId: number | null, reason: UnmatchedReason | null = null) {
  await patchTransfer(tx, t.id, { disposition, payinOrderId: orderId, unmatchedReason: disposition === "unmatched" ? reason : null });
}

/** Nothing received is silent: an unmatched deposit is kept with its reason and logged for the operator. */
async function keepUnmatched(ctx: PayinCtx, tx: Tx, t: TransferRow, reason: UnmatchedReason): Promise<void> {
  await setDisposition(tx, t, "unmatched", null, reason);
  ctx.logger.warn("unmatched deposit", { depositId: t.id, chain: t.chain, token: t.token, to: t.toAddress, amount: t.amount, txHash: t.txHash, reason });
}

async function matchTransfer(ctx: PayinCtx, tx: Tx, t: TransferRow, kind: string | undefined, now: number, memo?: string, counterfeit?: boolean): Promise<void> {
  // DESIGN 23: a look-alike token is kept for the operator and pays nothing, whoever's address it reached.
  if (counterfeit || t.unmatchedReason === "counterfeit_token") return await keepUnmatched(ctx, tx, t, "counterfeit_token");
  if (!t.addressId || !kind) return await keepUnmatched(ctx, tx, t, "unknown_address");
  if (kind === "gas") return await setDisposition(tx, t, "gas_funding", null);
  if (kind === "restore_gap") return await keepUnmatched(ctx, tx, t, "restore_gap");
  const denied = await isDenied(tx, t.chain, t.fromAddress);

  const onTime = (o: PayinOrderRow) => o.expireAt === null || t.blockTime <= o.expireAt;

  // A transfer that paid an order before a reorg goes back to that order (if it still lands on time).
  if (t.payinOrderId) {
    const prev = await orderById(tx, t.payinOrderId);
    if (prev && prev.transferId === null && (prev.status === "waiting_payment" || prev.status === "expired") && onTime(prev)) {
      const exact = prev.amount === t.amount || prev.mode === "exclusive";
      const tolerated = !exact && await isOnlyOpenOrder(tx, prev, t) && tolerates(ctx, prev, t);
      const event = exact || tolerated ? ({ type: "paid", senderDenied: denied } as const) : ({ type: "wrong_amount" } as const);
      const patch = { ...paidPatch(t), ...(prev.mode === "exclusive" ? { expireAt: null } : {}) };
      return await payOrder(ctx, tx, t, prev, event, patch, exact ? "matched" : tolerated ? "underpaid_tolerated" : "wrong_amount", now);
    }
    if (prev && prev.transferId === null && prev.status === "frozen_abnormal") {
      await patchOrder(tx, prev.id, { ...paidPatch(t), updatedAt: now });
      return;
    }
  }

  if (kind === "exclusive") return await depositToExclusive(ctx, tx, t, denied, now);

  // DESIGN 23: a payer's comment naming an open order of this address and token pays that order,
  // before the amount rules: the exact amount (or one short within the tolerance) pays it, another freezes it.
  const named = await orderNamedBy(tx, t, memo);
  if (named) {
    const exact = named.amount === t.amount;
    const tolerated = !exact && tolerates(ctx, named, t);
    await applyPayinEvent(tx, named, exact || tolerated ? { type: "paid", senderDenied: denied } : { type: "wrong_amount" }, paidPatch(t), now);
    return await setDisposition(tx, t, exact ? "matched" : tolerated ? "underpaid_tolerated" : "wrong_amount", named.id);
  }

  const candidates = await matchCandidates(tx, t, ctx.ms.lateWindow);
  // On time: block time no later than expireAt. An order that existed at the block wins over one
  // created after it (inside the clock-skew allowance); then an open order wins over one the
  // expiry job already closed. Candidates come newest first and the sort is stable.
  const rank = (o: PayinOrderRow) => (o.createdAt <= t.blockTime ? 0 : 2) + (o.status === "waiting_payment" ? 0 : 1);
  const paidOnTime = candidates.filter(onTime).sort((a, b) => rank(a) - rank(b))[0];
  if (paidOnTime) {
    return await payOrder(ctx, tx, t, paidOnTime, { type: "paid", senderDenied: denied }, paidPatch(t), "matched", now);
  }
  // Late: after expireAt but within the late window; settles (risk_settled) once final. The order
  // may still be waiting_payment when the expiry job has not reached it yet: block time decides.
  const late = candidates.find((o) => o.expireAt !== null && t.blockTime > o.expireAt && t.blockTime <= o.expireAt + ctx.ms.lateWindow);
  if (late) {
    const expired = late.status === "waiting_payment" ? await applyPayinEvent(tx, late, { type: "expire" }, {}, now) : late;
    // A deny-listed sender freezes a late payment too, instead of letting it settle.
    if (denied) await applyPayinEvent(tx, expired, { type: "paid", senderDenied: true }, paidPatch(t), now);
    else await patchOrder(tx, late.id, { ...paidPatch(t), updatedAt: now });
    return await setDisposition(tx, t, "late", late.id);
  }
  // Another amount (DESIGN 5): the address's only open order of this token whose window covers
  // the block time takes it and is frozen for review, so the merchant sees expectedAmount and
  // paidAmount differ. Expired orders count when the block time is inside their window.
  const covering = await coveringOrders(tx, t.addressId!, t);
  if (covering.length === 1 && covering[0].transferId === null) {
    // Short by no more than [payin] underpay_tolerance: paid (with the real paidAmount), not frozen.
    if (tolerates(ctx, covering[0], t)) {
      return await payOrder(ctx, tx, t, covering[0], { type: "paid", senderDenied: denied }, paidPatch(t), "underpaid_tolerated", now);
    }
    return await payOrder(ctx, tx, t, covering[0], { type: "wrong_amount" }, paidPatch(t), "wrong_amount", now);
  }
  const afterWindow =
    candidates.some((o) => o.expireAt !== null && t.blockTime > o.expireAt + ctx.ms.lateWindow) || await expiredBeforeWindow(tx, t, ctx.ms.lateWindow);
  const reason: UnmatchedReason = denied
    ? "deny_listed"
    : covering.length > 1
      ? "several_candidates"
      : covering.length === 1
        ? "order_already_paid"
        : afterWindow
          ? "after_late_window"
          : "no_open_order";
  await keepUnmatched(ctx, tx, t, reason);
}

/** The open, unpaid order a transfer's comment names by its orderNo, when it is this address's and token's and the payment is on time. */
async function orderNamedBy(tx: Tx, t: TransferRow, memo: string | undefined): Promise<PayinOrderRow | undefined> {
  const orderNo = memo?.trim();
  if (!orderNo || orderNo.length > 64) return undefined;
  const o = await orderWithNo(tx, orderNo);
  if (!o || o.addressId !== t.addressId || o.token !== t.token || o.transferId !== null || o.status !== "waiting_payment") return undefined;
  return o.expireAt === null || t.blockTime <= o.expireAt ? o : undefined;
}

/**
 * The transfer pays the order (its status change and callback through the funnel) and is marked
 * with `disposition`; when another writer moved the order first (the funnel's compare-and-set
 * missed) and the order holds another payment, the transfer is kept as unmatched instead.
 */
async function payOrder(ctx: PayinCtx, tx: Tx, t: TransferRow, o: PayinOrderRow, event: PayinEvent, patch: Partial<PayinOrderRow>, disposition: string, now: number): Promise<void> {
  const row = await applyPayinEvent(tx, o, event, patch, now);
  if (row.transferId !== t.id) return await keepUnmatched(ctx, tx, t, "order_already_paid");
  await setDisposition(tx, t, disposition, o.id);
}

// The watcher's queries read open and recent orders only (issue 23): the statements are the
// store's (orders-store.ts), each returns ids, read back through orderById.
const matchKey = (t: TransferRow) => ({ addressId: t.addressId!, token: t.token, amount: t.amount });

async function matchCandidates(tx: Tx, t: TransferRow, lateWindow: number): Promise<PayinOrderRow[]> {
  const ids = await matchCandidateIds(tx, matchKey(t), t.blockTime + CLOCK_SKEW_MS, t.blockTime - lateWindow);
  // Newest first (the ranking after this is a stable sort).
  return (await mapSeq(ids, async (id) => (await orderById(tx, id))!)).sort((a, b) => b.createdAt - a.createdAt);
}

async function expiredBeforeWindow(tx: Tx, t: TransferRow, lateWindow: number): Promise<boolean> {
  return await expiredBefore(tx, matchKey(t), t.blockTime + CLOCK_SKEW_MS, t.blockTime - lateWindow);
}

/**
 * The address's open orders of the transfer's token whose window covers its block time (at most
 * two: "the one open order" is what counts). Expired orders count when the block time is inside
 * their window.
 */
async function coveringOrders(tx: Tx, addressId: string, t: TransferRow): Promise<PayinOrderRow[]> {
  return await mapSeq((await coveringOrderIds(tx, addressId, t.token, t.blockTime + CLOCK_SKEW_MS, t.blockTime)), async (id) => (await orderById(tx, id))!);
}

/** DESIGN 18: an address's one open order paid less than expected, within the tolerance. */
function tolerates(ctx: PayinCtx, o: PayinOrderRow, t: TransferRow): boolean {
  return o.mode === "shared" && withinUnderpayTolerance(ctx.config.payin, BigInt(o.amount), BigInt(t.amount), o.decimals);
}

/** The order is its address's only open one of that token (the reorg path re-checks what matching checked). */
async function isOnlyOpenOrder(tx: Tx, o: PayinOrderRow, t: TransferRow): Promise<boolean> {
  const open = await coveringOrders(tx, o.addressId, t);
  return open.length === 1 && open[0]!.id === o.id;
}

async function depositToExclusive(ctx: PayinCtx, tx: Tx, t: TransferRow, denied: boolean, now: number): Promise<void> {
  const addr = await bindingOf(tx, t.addressId!, t.token);
  // On an EVM chain and on SOL one exclusive address serves every token of its bindKey: a token with no binding is kept.
  if (!addr) return await keepUnmatched(ctx, tx, t, "wrong_token");
  const key = await currentKey(tx, addr.merchantId);
  if (!key) return await keepUnmatched(ctx, tx, t, "no_api_key");
  // Its merchantOrderNo is its orderNo: skip one the merchant already used for an order of its own.
  // Derived from the transfer, so a rescan after a restore makes the same order (same orderNo, same eventIds).
  const cause = `${t.chain}:${t.txHash}:${t.logIndex}`;
  const time = t.blockTime > 0 ? t.blockTime : now;
  let orderNo = derivedOrderNo("PI", time, cause);
  const taken = async (no: string) => await orderNoTaken(tx, addr.merchantId, no);
  for (let attempt = 1; await taken(orderNo); attempt++) orderNo = derivedOrderNo("PI", time, cause, attempt);
  // The configured token (overrides included), else the registry's facts: never a guessed number of decimals.
  const token = ctx.chains.get(t.chain as never)?.tokens.find((x) => x.symbol === t.token) ?? defaultToken(t.chain, t.token);
  if (!token) throw new Error(`no token ${t.chain} ${t.token} in the registry: cannot tell its decimals`);
  const row = await insertOrderWithCallback(
    tx,
    {
      orderNo,
      merchantId: addr.merchantId,
      merchantOrderNo: orderNo,
      mode: "exclusive",
      bindingId: addr.id,
      chain: t.chain,
      token: t.token,
      decimals: token.decimals,
      amount: t.amount,
      addressId: t.addressId!,
      address: t.toAddress,
      notifyUrl: addr.notifyUrl,
      apiKeyId: key.id,
      status: denied ? "frozen_abnormal" : "detected",
      ...paidPatch(t),
      checkoutToken: newToken(),
      expireAt: null,
      createdAt: now,
      detectedAt: now,
      updatedAt: now,
    },
    now,
  );
  await setDisposition(tx, t, "matched", row.id);
}

/** The transfer's confirmation count moved; `final` once it can no longer be reorganised. */
export async function confirmTransfer(tx: Tx, t: TransferRow, c: { count: number; required: number; final: boolean }, now: number): Promise<void> {
  const { count, required, final } = c;
  await patchTransfer(tx, t.id, { confirmations: count, ...(final ? { status: "confirmed", confirmedAt: now } : {}) });
  if (final && t.addressId) {
    await addDepositLedger(tx, { addressId: t.addressId, chain: t.chain, token: t.token, amount: t.amount, refId: String(t.id), now });
  }
  if (!t.payinOrderId) return;
  const o = await orderById(tx, t.payinOrderId);
  if (!o || o.transferId !== t.id) return;
  const patch: Partial<PayinOrderRow> = { confirmations: count, ...(final ? { confirmedAt: now } : {}) };
  if (o.status === "detected" || o.status === "confirming") {
    // Completion needs finality, not only the count (TRON credits solidified blocks only).
    const effective = final ? Math.max(count, required) : Math.min(count, required - 1);
    await applyPayinEvent(tx, o, { type: "confirmations", count: effective, required }, patch, now);
  } else if (o.status === "expired" && final) {
    await applyPayinEvent(tx, o, { type: "late_confirmed" }, patch, now);
  } else {
    await updateOrder(tx, o.id, { ...patch, updatedAt: now });
  }
}

/** A reorg took the transfer away before it was final. */
export async function revertTransfer(ctx: PayinCtx, tx: Tx, t: TransferRow, now: number): Promise<void> {
  await revertTransferRow(tx, t.id);
  if (!t.payinOrderId) return;
  const o = await orderById(tx, t.payinOrderId);
  if (!o || o.transferId !== t.id) return;
  const cleared: Partial<PayinOrderRow> = { transferId: null, paidAmount: null, txHash: null, fromAddress: null, confirmations: 0, detectedAt: null };
  if (o.status === "detected" || o.status === "confirming") {
    // A deposit order has no expiry of its own: it waits one order lifetime for its
    // transaction to land again, then expires like any unpaid order.
    if (o.mode === "exclusive") cleared.expireAt = now + ctx.ms.expireAfter;
    await applyPayinEvent(tx, o, { type: "reorg", pastExpiry: o.expireAt !== null && now > o.expireAt }, cleared, now);
  } else if (o.status === "expired" || o.status === "frozen_abnormal") {
    // A frozen order stays frozen, with nothing paid: releasing it now reopens it (or expires it).
    await patchOrder(tx, o.id, { ...cleared, updatedAt: now });
  }
}

/** The pay-in module's side of the watcher's port: transfers become deposits, payments and reversals. */
export function payinTransferPort(ctx: PayinCtx): TransferPort {
  return {
    record: async (tx, t, now) => void await recordTransfer(ctx, tx, t, now),
    pendingInBlocks,
    crossingThreshold,
    confirm: confirmTransfer,
    revert: async (tx, t, now) => await revertTransfer(ctx, tx, t, now),
    // The displayed confirmation counts of pending transfers and their orders (orders-store.ts).
    showConfirmations,
  };
}
