// "Search" (DESIGN 12): pay-ins, payouts and deposits by orderNo,
// merchantOrderNo, txHash or address (exact), within the viewer's scope. Each
// searched column is its own index seek (newest first, at most a page each);
// the ids are merged here and the rows read by id, so a search costs the same
// at 2M orders as at 10k. (A prefix search would add arms of the same shape.)
import { chainCodes } from "../../chains/registry";
import type { DbOrTx } from "../../db/client";
import type { Scope } from "./filters";
import { type DepositListRow, depositsById, type PayinListRow, payinsById, type PayoutListRow, payoutsById } from "./lists";

const LIMIT = 50;

export interface SearchResult {
  payins: PayinListRow[];
  payouts: PayoutListRow[];
  deposits: DepositListRow[];
}

/**
 * One seek: `where` names an indexed column and `index` the index it must use (INDEXED BY:
 * with statistics, SQLite may walk the rowid order for a value it thinks common, such as a
 * pool address); the scope is checked on the rows it reaches.
 */
interface Arm {
  index?: string;
  where: string;
  params: unknown[];
  /** The index gives id order (so the newest LIMIT are read); false for a multi-value seek (few rows). */
  ordered: boolean;
}

/** `chain IN (?, ?, …)`: one seek per registered chain. */
const chainList = () => chainCodes().map(() => "?").join(", ");
const arm = (index: string | undefined, where: string, params: unknown[], ordered = true): Arm => ({ index, where, params, ordered });

/** The arms' SQL, for the query-plan tests. */
export function searchStatements(table: "payin_orders" | "payout_orders" | "transfers", arms: Arm[], scope: Scope): { sql: string; params: unknown[] }[] {
  // Checked on the rows found (`+col`: never the seek, which would walk the merchant's every row).
  const own = scope.merchantId === null ? "" : " AND +merchant_id = ?";
  const deposits = table === "transfers" ? " AND +address_id IS NOT NULL" : "";
  return arms.map((a) => ({
    sql: `SELECT id FROM ${table}${a.index ? ` INDEXED BY ${a.index}` : ""} WHERE ${a.where}${own}${deposits}${a.ordered ? " ORDER BY id DESC" : ""} LIMIT ${LIMIT}`,
    params: [...a.params, ...(scope.merchantId === null ? [] : [scope.merchantId])],
  }));
}

/** The newest LIMIT ids over every arm. */
function idsOf(db: DbOrTx, table: "payin_orders" | "payout_orders" | "transfers", arms: Arm[], scope: Scope): number[] {
  const ids = new Set<number>();
  for (const s of searchStatements(table, arms, scope)) for (const r of db.$client.query<{ id: number }, never[]>(s.sql).all(...(s.params as never[]))) ids.add(r.id);
  return [...ids].sort((a, b) => b - a).slice(0, LIMIT);
}

/** merchantOrderNo is unique per merchant: one seek per merchant (a small table) on the (merchant, merchantOrderNo) index. */
const merchantOrderArm = (q: string, index: string) => arm(index, "merchant_id IN (SELECT id FROM merchants) AND merchant_order_no = ?", [q], false);

/** Gateway addresses with this text (one per chain at most), each a seek on (chain, address). */
function addressIds(db: DbOrTx, q: string): string[] {
  return db.$client
    .query<{ id: string }, never[]>(`SELECT id FROM addresses WHERE chain IN (${chainList()}) AND address = ?`)
    .all(...([...chainCodes(), q] as never[]))
    .map((r) => r.id);
}

export function payinArms(db: DbOrTx, q: string): Arm[] {
  return [
    arm(undefined, "order_no = ?", [q], false), // unique
    merchantOrderArm(q, "payin_merchant_order"),
    arm("payin_search_tx", "tx_hash = ?", [q]),
    arm("payin_search_from", "from_address = ?", [q]),
    ...addressIds(db, q).map((id) => arm("payin_search_address", "address_id = ?", [id])),
  ];
}

export function payoutArms(q: string): Arm[] {
  return [
    arm(undefined, "order_no = ?", [q], false), // unique
    merchantOrderArm(q, "payout_merchant_order"),
    arm("payout_search_tx", "tx_hash = ?", [q]),
    arm("payout_search_to", "to_address = ?", [q]),
    arm("payout_search_from", "from_address = ?", [q]),
  ];
}

export function depositArms(q: string): Arm[] {
  return [
    // (chain, tx_hash, log_index) is unique: a transaction's few transfers.
    arm("transfers_unique", `chain IN (${chainList()}) AND tx_hash = ?`, [...chainCodes(), q], false),
    arm("transfers_search_to", "to_address = ?", [q]),
    arm("transfers_search_from", "from_address = ?", [q]),
  ];
}

export function search(db: DbOrTx, scope: Scope, rawQ: string, decimals: (chain: string, token: string) => number): SearchResult {
  const q = rawQ.trim().slice(0, 200);
  if (!q) return { payins: [], payouts: [], deposits: [] };
  const payins = payinsById(db, idsOf(db, "payin_orders", payinArms(db, q), scope));
  const payouts = payoutsById(db, idsOf(db, "payout_orders", payoutArms(q), scope));
  const deposits = depositsById(db, idsOf(db, "transfers", depositArms(q), scope), decimals);
  return { payins, payouts, deposits };
}
