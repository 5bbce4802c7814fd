// The lists of pay-ins, payouts and deposits with their filters, paged by id
// (newest first). The CSV export walks the same query page by page, so it
// holds one page in memory whatever the size, and has the same rows.
import { eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { isPg, pgOf, pgSide } from "../../db/engine";
import { addresses, merchants, payinOrders, payoutOrders, transfers } from "../../db/schema";
import { orderIdCeiling, orderIdFloor, type OrderTable } from "../../orders/id-at";
import { fromBaseUnits } from "../../lib/money";
import { PAYIN_STATUSES } from "../../payin/state";
import type { ListFilter, Scope } from "./filters";
import { type Arm, cond, type Cond, countCapped, firstIdAtOrAfter, type IdQuery, newestFirst, pickIds } from "./keyset";

const pg = pgSide<typeof import("./lists.pg")>(() => require("./lists.pg"));

export const PAYOUT_STATUSES = ["submitted", "broadcasted", "confirmed", "failed"] as const;
export const DEPOSIT_STATUSES = ["matched", "unmatched", "attached", "payout_change", "pending", "confirmed", "reverted"] as const;
/** A transfer's own status; the other deposit "statuses" are its disposition. */
const TRANSFER_STATUSES = ["pending", "confirmed", "reverted"] as const;
export { PAYIN_STATUSES };

export const PAGE_SIZE = 50;

const amount = (units: string | null, decimals: number) => (units === null ? "" : fromBaseUnits(BigInt(units), decimals, 6));

/** The merchant whose rows the viewer may see or asked for; -1 (nothing) for an unknown UID; null for all. */
export async function merchantOf(db: DbOrTx, scope: Scope, f: Pick<ListFilter, "merchant">): Promise<number | null> {
  if (scope.merchantId !== null) return scope.merchantId;
  if (!f.merchant) return null;
  if (isPg(db)) return (await pg.merchantIdByUid(pgOf(db), f.merchant)) ?? -1;
  return db.select({ id: merchants.id }).from(merchants).where(eq(merchants.uid, f.merchant)).get()?.id ?? -1;
}

/** A table's list indexes: (status) and (merchant_id, status). */
interface ListIndexes {
  status: string;
  merchant: string;
}
const PAYIN_INDEXES: ListIndexes = { status: "payin_list_status", merchant: "payin_list_merchant" };
const PAYOUT_INDEXES: ListIndexes = { status: "payout_status", merchant: "payout_list_merchant" };
const TRANSFER_INDEXES: ListIndexes = { status: "transfers_list_status", merchant: "transfers_list_merchant" };
const DISPOSITION_INDEXES: ListIndexes = { status: "transfers_list_disposition", merchant: "transfers_list_merchant_disposition" };

/**
 * Seeks for a merchant and a status (`column = ?`): both or one on its index, or (merchant
 * alone) one arm per status on (merchant_id, status), merged in id order; neither: the rowid.
 */
function armsOf(merchantId: number | null, status: Cond | undefined, statuses: readonly string[], ix: ListIndexes): Arm[] {
  const m = merchantId === null ? undefined : cond("merchant_id = ?", merchantId);
  if (m && !status) return statuses.map((s) => ({ index: ix.merchant, conds: [m, cond("status = ?", s)] }));
  if (m && status) return [{ index: ix.merchant, conds: [m, status] }];
  if (status) return [{ index: ix.status, conds: [status] }];
  return [{ conds: [] }];
}

/** A date range as an id range (src/orders/id-at.ts); the created_at condition keeps the rows exact. */
async function orderIdRange(db: DbOrTx, table: OrderTable, f: ListFilter): Promise<{ lo?: number; hi?: number }> {
  const r: { lo?: number; hi?: number } = {};
  if (f.fromMs !== undefined) r.lo = await orderIdFloor(db, table, f.fromMs);
  if (f.toMs !== undefined) r.hi = await orderIdCeiling(db, table, f.toMs);
  return r;
}

/** The list filters on an order table (pay-ins and payouts have the same columns for them). */
async function orderQuery(db: DbOrTx, scope: Scope, f: ListFilter, table: "payin_orders" | "payout_orders", statuses: readonly string[]): Promise<IdQuery> {
  const rest: Cond[] = [];
  if (f.chain) rest.push(cond("+chain = ?", f.chain));
  if (f.token) rest.push(cond("+token = ?", f.token));
  if (f.fromMs !== undefined) rest.push(cond("+created_at >= ?", f.fromMs));
  if (f.toMs !== undefined) rest.push(cond("+created_at < ?", f.toMs));
  return {
    table,
    arms: armsOf(await merchantOf(db, scope, f), f.status ? cond("status = ?", f.status) : undefined, statuses, table === "payin_orders" ? PAYIN_INDEXES : PAYOUT_INDEXES),
    rest,
    ...await orderIdRange(db, table, f),
  };
}

export interface Page<T> {
  rows: T[];
  /** Pass as `before` for the next page; null on the last one. */
  nextBefore: number | null;
}

/** One page from `limit + 1` ids picked newest first: the extra one only says there is a next page. */
export async function pageOf<T extends { id: number }>(ids: number[], limit: number, rowsOf: (ids: number[]) => Promise<T[]>): Promise<Page<T>> {
  const mine = ids.slice(0, limit);
  return {
    rows: await rowsOf(mine),
    nextBefore: ids.length > limit ? mine[mine.length - 1]! : null,
  };
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

/** The list rows of these pay-ins (search's too), newest first. */
export async function payinsById(db: DbOrTx, ids: number[]): Promise<PayinListRow[]> {
  if (!ids.length) return [];
  return newestFirst(
    isPg(db) ? await pg.payinRecords(pgOf(db), ids) : db
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
      .where(inArray(payinOrders.id, ids))
      .all(),
  ).map((r) => ({
    ...r,
    amount: amount(r.amount, r.decimals),
    paidAmount: amount(r.paidAmount, r.decimals),
    txHash: r.txHash ?? "",
  }));
}

export async function listPayins(db: DbOrTx, scope: Scope, f: ListFilter, page: { before?: number; limit?: number } = {}): Promise<Page<PayinListRow>> {
  const limit = page.limit ?? PAGE_SIZE;
  return await pageOf(await pickIds(db, await orderQuery(db, scope, f, "payin_orders", PAYIN_STATUSES), page.before, limit + 1), limit, async (ids) => await payinsById(db, ids));
}

/** Matching pay-ins, counted up to COUNT_CAP + 1. */
export async function countPayins(db: DbOrTx, scope: Scope, f: ListFilter): Promise<number> {
  return await countCapped(db, await orderQuery(db, scope, f, "payin_orders", PAYIN_STATUSES));
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

/** The list rows of these payouts (search's too), newest first. */
export async function payoutsById(db: DbOrTx, ids: number[]): Promise<PayoutListRow[]> {
  if (!ids.length) return [];
  return newestFirst(
    isPg(db) ? await pg.payoutRecords(pgOf(db), ids) : db
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
      .where(inArray(payoutOrders.id, ids))
      .all(),
  ).map((r) => ({
    ...r,
    amount: amount(r.amount, r.decimals),
    fee: amount(r.fee, r.decimals),
    failedStage: r.failedStage ?? "",
    txHash: r.txHash ?? "",
  }));
}

export async function listPayouts(db: DbOrTx, scope: Scope, f: ListFilter, page: { before?: number; limit?: number } = {}): Promise<Page<PayoutListRow>> {
  const limit = page.limit ?? PAGE_SIZE;
  return await pageOf(await pickIds(db, await orderQuery(db, scope, f, "payout_orders", PAYOUT_STATUSES), page.before, limit + 1), limit, async (ids) => await payoutsById(db, ids));
}

/** Matching payouts, counted up to COUNT_CAP + 1. */
export async function countPayouts(db: DbOrTx, scope: Scope, f: ListFilter): Promise<number> {
  return await countCapped(db, await orderQuery(db, scope, f, "payout_orders", PAYOUT_STATUSES));
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

/** The list rows of these deposits (search's too), newest first. */
export async function depositsById(db: DbOrTx, ids: number[], decimals: (chain: string, token: string) => number): Promise<DepositListRow[]> {
  if (!ids.length) return [];
  return newestFirst(isPg(db) ? await pg.depositRecords(pgOf(db), ids) : depositRows(db).where(inArray(transfers.id, ids)).all()).map((r) => depositView(r, decimals));
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

/**
 * Deposits are written in the order they are seen, and a block is seen after its time,
 * so a block-time range becomes an id range by the time seen (a binary search over the
 * rowid): from the first transfer seen at `from` (less an hour for a node clock ahead of
 * ours) to the first seen a day after `to`. A transfer seen later than that after its
 * block (a catch-up after an outage) is in the partial index transfers_late: one more
 * seek per arm above the range, merged in id order, so the list stays exact.
 */
const DEPOSIT_SEEN_MARGIN_MS = 3_600_000;
const LATE_MS = 86_400_000; // = the WHERE of transfers_late (migrations/0160)
export async function depositQuery(db: DbOrTx, scope: Scope, f: ListFilter): Promise<IdQuery> {
  const st = f.status;
  const own = st && (TRANSFER_STATUSES as readonly string[]).includes(st) ? cond("status = ?", st) : undefined;
  const disposition = st && !own ? cond("disposition = ?", st) : undefined;
  const merchantId = await merchantOf(db, scope, f);
  const arms = disposition ? armsOf(merchantId, disposition, [], DISPOSITION_INDEXES) : armsOf(merchantId, own, TRANSFER_STATUSES, TRANSFER_INDEXES);
  // Only transfers to a gateway address are deposits. A merchant's arms need not check it:
  // merchant_id is only ever set from the transfer's address (the trigger of migration 0160),
  // so it implies one, and the count stays on the covering index (no read of each row: 2.2 ms
  // to 0.05 ms counting to the cap on the 2M-order database).
  const rest: Cond[] = merchantId === null ? [cond("+address_id IS NOT NULL")] : [];
  if (f.chain) rest.push(cond("+chain = ?", f.chain));
  if (f.token) rest.push(cond("+token = ?", f.token));
  if (f.fromMs !== undefined) rest.push(cond("+block_time >= ?", f.fromMs));
  if (f.toMs !== undefined) rest.push(cond("+block_time < ?", f.toMs));
  const lo = f.fromMs === undefined ? undefined : (await firstIdAtOrAfter(db, "transfers", "seen_at", f.fromMs - DEPOSIT_SEEN_MARGIN_MS) ?? Number.MAX_SAFE_INTEGER);
  const hi = f.toMs === undefined ? undefined : await firstIdAtOrAfter(db, "transfers", "seen_at", f.toMs + LATE_MS);
  const late: Arm[] =
    hi === undefined ? [] : arms.map((a) => ({ index: "transfers_late", conds: [cond(`seen_at - block_time >= ${LATE_MS}`), ...a.conds], range: { lo: Math.max(hi, lo ?? 0) } }));
  return { table: "transfers", arms: [...arms, ...late], rest, lo, hi };
}

export async function listDeposits(
  db: DbOrTx,
  scope: Scope,
  f: ListFilter,
  decimals: (chain: string, token: string) => number,
  page: { before?: number; limit?: number } = {},
): Promise<Page<DepositListRow>> {
  const limit = page.limit ?? PAGE_SIZE;
  return await pageOf(await pickIds(db, await depositQuery(db, scope, f), page.before, limit + 1), limit, async (ids) => await depositsById(db, ids, decimals));
}

/** Matching deposits, counted up to COUNT_CAP + 1. */
export async function countDeposits(db: DbOrTx, scope: Scope, f: ListFilter): Promise<number> {
  return await countCapped(db, await depositQuery(db, scope, f));
}
