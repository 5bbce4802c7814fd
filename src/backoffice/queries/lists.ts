// The lists of pay-ins, payouts and deposits with their filters, paged by id
// (newest first). The CSV export walks the same query page by page, so it
// holds one page in memory whatever the size, and has the same rows.
import { and, count, desc, eq, gte, inArray, lt, type SQL } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { addresses, merchants, payinOrders, payoutOrders, transfers } from "../../db/schema";
import { fromBaseUnits } from "../../lib/money";
import { PAYIN_STATUSES } from "../../payin/state";
import type { ListFilter, Scope } from "./filters";

export const PAYOUT_STATUSES = ["submitted", "broadcasted", "confirmed", "failed"] as const;
export const DEPOSIT_STATUSES = ["matched", "unmatched", "attached", "payout_change", "pending", "confirmed", "reverted"] as const;
export { PAYIN_STATUSES };

export const PAGE_SIZE = 50;

const amount = (units: string | null, decimals: number) => (units === null ? "" : fromBaseUnits(BigInt(units), decimals, 6));

function merchantCond(db: DbOrTx, scope: Scope, f: ListFilter, col: typeof payinOrders.merchantId | typeof payoutOrders.merchantId | typeof addresses.merchantId): SQL | undefined {
  if (scope.merchantId !== null) return eq(col, scope.merchantId);
  if (!f.merchant) return undefined;
  const m = db.select({ id: merchants.id }).from(merchants).where(eq(merchants.uid, f.merchant)).get();
  return eq(col, m?.id ?? -1);
}

export interface Page<T> {
  rows: T[];
  /** Pass as `before` for the next page; null on the last one. */
  nextBefore: number | null;
}

// ---- pay-ins

export interface PayinListRow {
  id: number;
  orderNo: string;
  merchantUid: string;
  merchantOrderNo: string;
  chain: string;
  token: string;
  amount: string;
  paidAmount: string;
  status: string;
  txHash: string;
  address: string;
  createdAt: number;
  completedAt: number | null;
}

/** The list filters on an order table (pay-ins and payouts have the same columns for them). */
function orderWhere(db: DbOrTx, scope: Scope, f: ListFilter, t: typeof payinOrders | typeof payoutOrders): SQL[] {
  const w: (SQL | undefined)[] = [
    merchantCond(db, scope, f, t.merchantId),
    f.chain ? eq(t.chain, f.chain) : undefined,
    f.token ? eq(t.token, f.token) : undefined,
    f.status ? eq(t.status, f.status) : undefined,
    f.fromMs !== undefined ? gte(t.createdAt, f.fromMs) : undefined,
    f.toMs !== undefined ? lt(t.createdAt, f.toMs) : undefined,
  ];
  return w.filter((x): x is SQL => !!x);
}

/** One page from `limit + 1` rows fetched newest first: the extra row only says there is a next page. */
function pageOf<R, T extends { id: number }>(rows: R[], limit: number, view: (r: R) => T): Page<T> {
  const out = rows.slice(0, limit).map(view);
  return { rows: out, nextBefore: rows.length > limit ? out[out.length - 1]!.id : null };
}

export function listPayins(db: DbOrTx, scope: Scope, f: ListFilter, page: { before?: number; limit?: number } = {}): Page<PayinListRow> {
  const limit = page.limit ?? PAGE_SIZE;
  const where = orderWhere(db, scope, f, payinOrders);
  if (page.before) where.push(lt(payinOrders.id, page.before));
  const rows = db
    .select({
      id: payinOrders.id,
      orderNo: payinOrders.orderNo,
      merchantUid: merchants.uid,
      merchantOrderNo: payinOrders.merchantOrderNo,
      chain: payinOrders.chain,
      token: payinOrders.token,
      decimals: payinOrders.decimals,
      amount: payinOrders.amount,
      paidAmount: payinOrders.paidAmount,
      status: payinOrders.status,
      txHash: payinOrders.txHash,
      address: payinOrders.address,
      createdAt: payinOrders.createdAt,
      completedAt: payinOrders.completedAt,
    })
    .from(payinOrders)
    .innerJoin(merchants, eq(merchants.id, payinOrders.merchantId))
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(payinOrders.id))
    .limit(limit + 1)
    .all();
  return pageOf(rows, limit, (r) => ({ ...r, amount: amount(r.amount, r.decimals), paidAmount: amount(r.paidAmount, r.decimals), txHash: r.txHash ?? "" }));
}

export function countPayins(db: DbOrTx, scope: Scope, f: ListFilter): number {
  const where = orderWhere(db, scope, f, payinOrders);
  return db.select({ n: count() }).from(payinOrders).where(where.length ? and(...where) : undefined).get()?.n ?? 0;
}

// ---- payouts

export interface PayoutListRow {
  id: number;
  orderNo: string;
  merchantUid: string;
  merchantOrderNo: string;
  chain: string;
  token: string;
  amount: string;
  fee: string;
  status: string;
  failedStage: string;
  txHash: string;
  fromAddress: string;
  toAddress: string;
  createdAt: number;
}

export function listPayouts(db: DbOrTx, scope: Scope, f: ListFilter, page: { before?: number; limit?: number } = {}): Page<PayoutListRow> {
  const limit = page.limit ?? PAGE_SIZE;
  const where = orderWhere(db, scope, f, payoutOrders);
  if (page.before) where.push(lt(payoutOrders.id, page.before));
  const rows = db
    .select({
      id: payoutOrders.id,
      orderNo: payoutOrders.orderNo,
      merchantUid: merchants.uid,
      merchantOrderNo: payoutOrders.merchantOrderNo,
      chain: payoutOrders.chain,
      token: payoutOrders.token,
      decimals: payoutOrders.decimals,
      amount: payoutOrders.amount,
      fee: payoutOrders.fee,
      status: payoutOrders.status,
      failedStage: payoutOrders.failedStage,
      txHash: payoutOrders.txHash,
      fromAddress: payoutOrders.fromAddress,
      toAddress: payoutOrders.toAddress,
      createdAt: payoutOrders.createdAt,
    })
    .from(payoutOrders)
    .innerJoin(merchants, eq(merchants.id, payoutOrders.merchantId))
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(payoutOrders.id))
    .limit(limit + 1)
    .all();
  return pageOf(rows, limit, (r) => ({
    ...r,
    amount: amount(r.amount, r.decimals),
    fee: amount(r.fee, r.decimals),
    failedStage: r.failedStage ?? "",
    txHash: r.txHash ?? "",
  }));
}

export function countPayouts(db: DbOrTx, scope: Scope, f: ListFilter): number {
  const where = orderWhere(db, scope, f, payoutOrders);
  return db.select({ n: count() }).from(payoutOrders).where(where.length ? and(...where) : undefined).get()?.n ?? 0;
}

// ---- deposits (every incoming transfer to a gateway address)

/** Incoming transfers with their address's merchant and the order they paid (lists and search). */
export function depositRows(db: DbOrTx) {
  return db
    .select({
      id: transfers.id,
      merchantUid: merchants.uid,
      chain: transfers.chain,
      token: transfers.token,
      amount: transfers.amount,
      txHash: transfers.txHash,
      fromAddress: transfers.fromAddress,
      toAddress: transfers.toAddress,
      status: transfers.status,
      disposition: transfers.disposition,
      orderNo: payinOrders.orderNo,
      blockTime: transfers.blockTime,
    })
    .from(transfers)
    .innerJoin(addresses, eq(addresses.id, transfers.addressId))
    .leftJoin(merchants, eq(merchants.id, addresses.merchantId))
    .leftJoin(payinOrders, eq(payinOrders.id, transfers.payinOrderId));
}

type DepositRecord = ReturnType<ReturnType<typeof depositRows>["all"]>[number];
export const depositView = (r: DepositRecord, decimals: (chain: string, token: string) => number): DepositListRow => ({
  ...r,
  merchantUid: r.merchantUid ?? "",
  orderNo: r.orderNo ?? "",
  amount: amount(r.amount, decimals(r.chain, r.token)),
});

export interface DepositListRow {
  id: number;
  merchantUid: string;
  chain: string;
  token: string;
  amount: string;
  txHash: string;
  fromAddress: string;
  toAddress: string;
  status: string;
  disposition: string;
  orderNo: string;
  blockTime: number;
}

function depositWhere(db: DbOrTx, scope: Scope, f: ListFilter): SQL[] {
  const st = f.status;
  const w: (SQL | undefined)[] = [
    merchantCond(db, scope, f, addresses.merchantId),
    f.chain ? eq(transfers.chain, f.chain) : undefined,
    f.token ? eq(transfers.token, f.token) : undefined,
    st ? (["pending", "confirmed", "reverted"].includes(st) ? eq(transfers.status, st as "pending") : eq(transfers.disposition, st)) : undefined,
    f.fromMs !== undefined ? gte(transfers.blockTime, f.fromMs) : undefined,
    f.toMs !== undefined ? lt(transfers.blockTime, f.toMs) : undefined,
  ];
  return w.filter((x): x is SQL => !!x);
}

export function listDeposits(
  db: DbOrTx,
  scope: Scope,
  f: ListFilter,
  decimals: (chain: string, token: string) => number,
  page: { before?: number; limit?: number; ids?: number[] } = {},
): Page<DepositListRow> {
  const limit = page.limit ?? PAGE_SIZE;
  const where = depositWhere(db, scope, f);
  if (page.before) where.push(lt(transfers.id, page.before));
  if (page.ids) where.push(inArray(transfers.id, page.ids.length ? page.ids : [-1]));
  const rows = depositRows(db)
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(transfers.id))
    .limit(limit + 1)
    .all();
  return pageOf(rows, limit, (r) => depositView(r, decimals));
}

export function countDeposits(db: DbOrTx, scope: Scope, f: ListFilter): number {
  const where = depositWhere(db, scope, f);
  return (
    db
      .select({ n: count() })
      .from(transfers)
      .innerJoin(addresses, eq(addresses.id, transfers.addressId))
      .where(where.length ? and(...where) : undefined)
      .get()?.n ?? 0
  );
}
