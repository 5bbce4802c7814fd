// Exclusive wallets (bindings) with their deposit statistics, for the back
// office. Scoped: a merchant id limits every query to that merchant's wallets.
import { and, desc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../db/client";
import { addresses, bindings, merchants, payinOrders, transfers } from "../db/schema";

export interface WalletRow {
  id: string;
  merchantUid: string;
  chain: string;
  token: string;
  bindKey: string;
  label: string | null;
  address: string;
  status: string;
  createdAt: number;
  deposits: number;
  /** Base units of confirmed deposits. */
  received: string;
  pending: number;
  lastDepositAt: number | null;
}

export function exclusiveWallets(db: DbOrTx, scope: { merchantId?: number; q?: string; limit?: number; offset?: number }): WalletRow[] {
  const where = [];
  if (scope.merchantId !== undefined) where.push(eq(bindings.merchantId, scope.merchantId));
  if (scope.q) where.push(sql`(${bindings.bindKey} = ${scope.q} OR ${addresses.address} = ${scope.q} OR ${bindings.label} LIKE ${"%" + scope.q.replace(/[%_]/g, "") + "%"})`);
  const rows = db
    .select({
      id: bindings.id,
      merchantUid: merchants.uid,
      chain: bindings.chain,
      token: bindings.token,
      bindKey: bindings.bindKey,
      label: bindings.label,
      address: addresses.address,
      addressId: bindings.addressId,
      status: bindings.status,
      createdAt: bindings.createdAt,
    })
    .from(bindings)
    .innerJoin(addresses, eq(addresses.id, bindings.addressId))
    .innerJoin(merchants, eq(merchants.id, bindings.merchantId))
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(bindings.createdAt))
    .limit(scope.limit ?? 100)
    .offset(scope.offset ?? 0)
    .all();
  return rows.map(({ addressId, ...r }) => {
    const ts = db
      .select({ amount: transfers.amount, status: transfers.status, seenAt: transfers.seenAt })
      .from(transfers)
      .where(and(eq(transfers.addressId, addressId), eq(transfers.token, r.token)))
      .all();
    const live = ts.filter((t) => t.status !== "reverted");
    return {
      ...r,
      deposits: live.length,
      received: live.filter((t) => t.status === "confirmed").reduce((s, t) => s + BigInt(t.amount), 0n).toString(),
      pending: live.filter((t) => t.status === "pending").length,
      lastDepositAt: live.reduce<number | null>((m, t) => (m === null || t.seenAt > m ? t.seenAt : m), null),
    };
  });
}

/** One wallet and its latest deposits (newest first), or undefined when not in scope. */
export function walletWithDeposits(db: DbOrTx, id: string, scope: { merchantId?: number }, limit = 50) {
  const b = db.select().from(bindings).where(eq(bindings.id, id)).get();
  if (!b || (scope.merchantId !== undefined && b.merchantId !== scope.merchantId)) return undefined;
  const wallet = exclusiveWallets(db, { merchantId: b.merchantId, q: b.bindKey }).find((w) => w.id === id)!;
  const deposits = db
    .select({
      txHash: transfers.txHash,
      fromAddress: transfers.fromAddress,
      amount: transfers.amount,
      status: transfers.status,
      blockTime: transfers.blockTime,
      seenAt: transfers.seenAt,
      orderNo: payinOrders.orderNo,
      orderStatus: payinOrders.status,
    })
    .from(transfers)
    .leftJoin(payinOrders, eq(payinOrders.id, transfers.payinOrderId))
    .where(and(eq(transfers.addressId, b.addressId), eq(transfers.token, b.token)))
    .orderBy(desc(transfers.id))
    .limit(limit)
    .all();
  return { wallet, deposits };
}
