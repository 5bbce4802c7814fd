// "Search" (DESIGN 12): pay-ins, payouts and deposits by orderNo,
// merchantOrderNo, txHash or address, within the viewer's scope.
import { and, desc, eq, or, type SQL } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { addresses, merchants, payinOrders, payoutOrders, transfers } from "../../db/schema";
import { fromBaseUnits } from "../../lib/money";
import type { Scope } from "./filters";
import { depositRows, depositView, type DepositListRow } from "./lists";

const LIMIT = 50;

export interface SearchResult {
  payins: { orderNo: string; merchantUid: string; merchantOrderNo: string; chain: string; token: string; amount: string; status: string; createdAt: number }[];
  payouts: { orderNo: string; merchantUid: string; merchantOrderNo: string; chain: string; token: string; amount: string; status: string; createdAt: number }[];
  deposits: DepositListRow[];
}

const scoped = (scope: Scope, col: typeof payinOrders.merchantId | typeof payoutOrders.merchantId | typeof addresses.merchantId, cond: SQL | undefined) =>
  scope.merchantId === null ? cond : and(eq(col, scope.merchantId), cond);

export function search(db: DbOrTx, scope: Scope, rawQ: string, decimals: (chain: string, token: string) => number): SearchResult {
  const q = rawQ.trim().slice(0, 200);
  if (!q) return { payins: [], payouts: [], deposits: [] };
  const payins = db
    .select({
      orderNo: payinOrders.orderNo,
      merchantUid: merchants.uid,
      merchantOrderNo: payinOrders.merchantOrderNo,
      chain: payinOrders.chain,
      token: payinOrders.token,
      decimals: payinOrders.decimals,
      amount: payinOrders.amount,
      status: payinOrders.status,
      createdAt: payinOrders.createdAt,
    })
    .from(payinOrders)
    .innerJoin(merchants, eq(merchants.id, payinOrders.merchantId))
    .where(scoped(scope, payinOrders.merchantId, or(eq(payinOrders.orderNo, q), eq(payinOrders.merchantOrderNo, q), eq(payinOrders.txHash, q), eq(payinOrders.address, q), eq(payinOrders.fromAddress, q))))
    .orderBy(desc(payinOrders.id))
    .limit(LIMIT)
    .all()
    .map((r) => ({ ...r, amount: fromBaseUnits(BigInt(r.amount), r.decimals, 6) }));
  const payouts = db
    .select({
      orderNo: payoutOrders.orderNo,
      merchantUid: merchants.uid,
      merchantOrderNo: payoutOrders.merchantOrderNo,
      chain: payoutOrders.chain,
      token: payoutOrders.token,
      decimals: payoutOrders.decimals,
      amount: payoutOrders.amount,
      status: payoutOrders.status,
      createdAt: payoutOrders.createdAt,
    })
    .from(payoutOrders)
    .innerJoin(merchants, eq(merchants.id, payoutOrders.merchantId))
    .where(scoped(scope, payoutOrders.merchantId, or(eq(payoutOrders.orderNo, q), eq(payoutOrders.merchantOrderNo, q), eq(payoutOrders.txHash, q), eq(payoutOrders.toAddress, q), eq(payoutOrders.fromAddress, q))))
    .orderBy(desc(payoutOrders.id))
    .limit(LIMIT)
    .all()
    .map((r) => ({ ...r, amount: fromBaseUnits(BigInt(r.amount), r.decimals, 6) }));
  const deposits = depositRows(db)
    .where(scoped(scope, addresses.merchantId, or(eq(transfers.txHash, q), eq(transfers.toAddress, q), eq(transfers.fromAddress, q))))
    .orderBy(desc(transfers.id))
    .limit(LIMIT)
    .all()
    .map((r) => depositView(r, decimals));
  return { payins, payouts, deposits };
}
