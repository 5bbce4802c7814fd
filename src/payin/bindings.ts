// Exclusive wallets (spec 2.2, 4.3, 4.4): a long-lived address per
// (merchant, chain, bindKey); a binding per token on it.
import { writeTx, type DbOrTx } from "../db/client";
import { AppError } from "../errors";
import { iso } from "../lib/clock";
import { newId, newToken } from "../lib/ids";
import { fromBaseUnits } from "../lib/money";
import { exclusiveAddress, addressById } from "../wallet/addresses";
import { bindingStats, ordersOfBinding, type PayinCtx } from "./service";
import { bindingByKey, insertBinding, updateBinding, type BindingRow } from "./bindings-store";
import { recentTransfersTo } from "../watcher/transfers-store";
import { chainAndToken, checkNotifyUrl } from "../orders/rules";
import { amountOf } from "../orders/amount";
import type { Static } from "@sinclair/typebox";
import type { BindingDetailView, BindingView } from "./schemas";

export type { BindingRow } from "./bindings-store";

export interface CreateBindingInput {
  chainCode: string;
  tokenSymbol: string;
  bindKey: string;
  label?: string;
  notifyUrl?: string;
}

/** Get-or-create; label and notifyUrl are updated when given. */
export async function upsertBinding(ctx: PayinCtx, merchantId: number, input: CreateBindingInput): Promise<BindingRow> {
  const { adapter, token } = chainAndToken(ctx, input.chainCode, input.tokenSymbol);
  if (input.notifyUrl !== undefined) checkNotifyUrl(ctx, input.notifyUrl);
  const now = ctx.clock.now();
  return await writeTx(ctx.db, async (tx) => {
    const existing = await bindingByKey(tx, merchantId, adapter.chain, token.symbol, input.bindKey);
    if (existing) {
      const set: Partial<BindingRow> = {};
      // Its address was retired (payout with deleteSourceAfterSuccess): the binding moves to a fresh one.
      if ((await addressById(tx, existing.addressId))?.deletedAt) set.addressId = (await exclusiveAddress(tx, adapter, ctx.seed, merchantId, input.bindKey, now)).id;
      if (input.label !== undefined) set.label = input.label;
      if (input.notifyUrl !== undefined) set.notifyUrl = input.notifyUrl;
      if (!Object.keys(set).length) return existing;
      return await updateBinding(tx, existing.id, { ...set, updatedAt: now });
    }
    const address = await exclusiveAddress(tx, adapter, ctx.seed, merchantId, input.bindKey, now);
    return await insertBinding(tx, {
      id: newId("EB"),
      merchantId,
      chain: adapter.chain,
      token: token.symbol,
      bindKey: input.bindKey,
      label: input.label ?? null,
      notifyUrl: input.notifyUrl ?? null,
      addressId: address.id,
      status: "active",
      pageToken: newToken(),
      createdAt: now,
      updatedAt: now,
    });
  });
}

export async function findBinding(ctx: PayinCtx, merchantId: number, q: { chainCode: string; tokenSymbol: string; bindKey: string }): Promise<BindingRow> {
  const { adapter, token } = chainAndToken(ctx, q.chainCode, q.tokenSymbol);
  const b = await bindingByKey(ctx.db, merchantId, adapter.chain, token.symbol, q.bindKey);
  if (!b) throw new AppError(40002, { bindKey: q.bindKey });
  return b;
}

/** The exclusive binding as OpenAPI publishes it (./schemas.ts): a field on one side only fails typecheck. */
export type BindingBody = Static<typeof BindingView>;
export type BindingDetailBody = Static<typeof BindingDetailView>;

export async function bindingView(db: DbOrTx, publicUrl: string, b: BindingRow): Promise<BindingBody> {
  const a = (await addressById(db, b.addressId))!;
  return {
    bindingId: b.id,
    chainCode: b.chain,
    tokenSymbol: b.token,
    bindKey: b.bindKey,
    label: b.label,
    addressId: a.id,
    address: a.address,
    addressType: "exclusive" as const,
    notifyUrl: b.notifyUrl,
    status: b.status,
    depositUrl: `${publicUrl}/deposit/${b.pageToken}`,
  };
}

export async function bindingDetail(ctx: PayinCtx, publicUrl: string, b: BindingRow, recentLimit: number): Promise<BindingDetailBody> {
  const decimals = ctx.chains.get(b.chain as never)?.tokens.find((t) => t.symbol === b.token)?.decimals ?? 6;
  const s = await bindingStats(ctx.db, b.id, decimals);
  const orders = await ordersOfBinding(ctx.db, b.id, recentLimit);
  const txs = await recentTransfersTo(ctx.db, b.addressId, b.token, recentLimit);
  return {
    ...await bindingView(ctx.db, publicUrl, b),
    stats: {
      totalOrders: s.totalOrders,
      completedOrders: s.completedOrders,
      totalPaidAmount: fromBaseUnits(s.total, decimals),
      completedPaidAmount: fromBaseUnits(s.completed, decimals),
      lastOrderAt: iso(s.lastOrderAt),
      lastCompletedAt: iso(s.lastCompletedAt),
    },
    recentOrders: orders.map((o) => ({
      orderNo: o.orderNo,
      merchantOrderNo: o.merchantOrderNo,
      amount: amountOf(o, o.amount),
      paidAmount: amountOf(o, o.paidAmount),
      status: o.status,
      txHash: o.txHash,
      fromAddress: o.fromAddress,
      createdAt: iso(o.createdAt),
      completedAt: iso(o.completedAt),
    })),
    recentTransactions: txs.map((t) => ({
      txHash: t.txHash,
      logIndex: t.logIndex,
      fromAddress: t.fromAddress,
      toAddress: t.toAddress,
      amount: fromBaseUnits(BigInt(t.amount), decimals),
      blockNumber: t.blockNumber,
      blockTime: iso(t.blockTime),
      confirmations: t.confirmations,
      status: t.status,
      orderNo: orders.find((o) => o.id === t.payinOrderId)?.orderNo ?? null,
    })),
  };
}
