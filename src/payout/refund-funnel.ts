// The one funnel every refund status change goes through: the status from the pure transition
// function, the timeline entry and the businessType "refund" callback, in the caller's transaction.
// followPayout is how the payout funnel (src/payout/service.ts) hands a refund's payout's changes here.
import type { Tx } from "../db/client";
import type { refunds } from "../db/schema";
import { merchantUid } from "../merchants/store";
import { enqueueCallback } from "../callbacks/outbox";
import { recordOrderEvent } from "../orders/events";
import { transition, type RefundEvent, type RefundStatus } from "./refund-state";
import { refundCallbackPayload, type RefundRow } from "./refund-views";
import { insertRefundRow, orderRefundCallbackUrl, refundById, updateRefundIf } from "./store";

/**
 * The callback of a refund; a deposit's refund (no order, no API key) has none: it lives in the back
 * office. Like every other callback it goes to the refund's notifyUrl, else the order's, else the
 * merchant's default callback URL (held until there is one).
 */
async function writeRefundCallback(tx: Tx, r: RefundRow, now: number): Promise<void> {
  if (r.apiKeyId === null || r.payinOrderId === null) return;
  const m = (await merchantUid(tx, r.merchantId))!;
  await enqueueCallback(tx, {
    merchantId: r.merchantId,
    kind: "refund",
    orderNo: r.refundRef,
    status: r.status,
    apiKeyId: r.apiKeyId,
    url: r.notifyUrl ?? await orderRefundCallbackUrl(tx, r.payinOrderId),
    payload: refundCallbackPayload(r, m.uid),
    now,
  });
}

/**
 * A new refund, its first timeline entry and its first callback; `complete` may fill in what needs
 * the row's id first (its payout) before the callback is written.
 */
export async function insertRefund(tx: Tx, values: typeof refunds.$inferInsert, now: number, complete: (r: RefundRow) => Promise<RefundRow> = async (r) => r): Promise<RefundRow> {
  const row = await complete(await insertRefundRow(tx, values));
  await recordOrderEvent(tx, { kind: "refund", orderNo: row.refundRef, from: null, to: row.status, event: { type: "created", source: row.source }, at: now });
  await writeRefundCallback(tx, row, now);
  return row;
}

/** A compare-and-set on the status `r` was read in: when another writer moved the refund first, this writes nothing and returns it as it now is. */
export async function applyRefundEvent(tx: Tx, r: RefundRow, event: RefundEvent, patch: Partial<RefundRow>, now: number): Promise<RefundRow> {
  const to = transition(r.status as RefundStatus, event);
  const row = await updateRefundIf(tx, r.id, r.status, { ...patch, status: to, updatedAt: now });
  if (!row) return (await refundById(tx, r.id))!;
  await recordOrderEvent(tx, { kind: "refund", orderNo: r.refundRef, from: r.status, to, event, at: now });
  await writeRefundCallback(tx, row, now);
  return row;
}

/**
 * Called by the payout funnel for every status change of a payout that sends a refund, in its
 * transaction; the refund follows (its txHash once broadcast). The payout's own callback is not
 * sent: the merchant hears of the refund.
 */
export async function followPayout(tx: Tx, p: { refundId: number | null; status: string; txHash: string | null; broadcastedAt: number | null; lastError: string | null }, now: number): Promise<void> {
  // A new payout starts at submitted: the refund announced that itself (created, or address_given).
  if (p.refundId === null || p.status === "submitted") return;
  const r = await refundById(tx, p.refundId);
  if (!r || r.status === p.status) return;
  const patch: Partial<RefundRow> = p.broadcastedAt !== null && p.txHash ? { txHash: p.txHash } : {};
  // A failed refund keeps why its payout failed: the back office shows it beside "Refund" offered again.
  if (p.status === "failed") patch.lastError = p.lastError;
  await applyRefundEvent(tx, r, { type: "payout", status: p.status }, patch, now);
}
