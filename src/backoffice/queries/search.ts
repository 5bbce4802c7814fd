// "Search" (DESIGN 12): pay-ins, payouts and deposits by orderNo,
// merchantOrderNo, txHash or address (exact), within the viewer's scope. Each
// searched column is its own index seek (newest first, at most a page each);
// the ids are merged here and the rows read by id, so a search costs the same
// at 2M orders as at 10k. (A prefix search would add arms of the same shape.)
import { CHAIN_CODES } from "../../chains/types";
import type { DbOrTx } from "../../db/client";
import type { Scope } from "./filters";
import { type DepositListRow, depositsById, type PayinListRow, payinsById, type PayoutListRow, payoutsById } from "./lists";

const LIMIT = 50;

export interface SearchResult {
  payins: PayinListRow[];
  payouts: PayoutListRow[];
  deposits: DepositListRow[];
}

/** One seek: `where` must name an indexed column; the scope is checked on the rows it reaches. */
interface Arm {
  where: string;
  params: unknown[];
  /** The index gives id order (so the newest LIMIT are read); false for a multi-value seek (few rows). */
  ordered: boolean;
}

const chainList = CHAIN_CODES.map(() => "?").join(", ");

/** The arms' SQL, for the query-plan tests. */
export function searchStatements(table: "payin_orders" | "payout_orders" | "transfers", arms: Arm[], scope: Scope): { sql: string; params: unknown[] }[] {
  // Checked on the rows found (`+col`: never the seek, which would walk the merchant's every row).
  const own = scope.merchantId === null ? "" : " AND +merchant_id = ?";
  const deposits = table === "transfers" ? " AND +address_id IS NOT NULL" : "";
  return arms.map((a) => ({
    sql: `SELECT id FROM ${table} WHERE ${a.where}${own}${deposits}${a.ordered ? " ORDER BY id DESC" : ""} LIMIT ${LIMIT}`,
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
const merchantOrderArm = (q: string): Arm => ({
  where: "merchant_id IN (SELECT id FROM merchants) AND merchant_order_no = ?",
  params: [q],
  ordered: false,
});

/** Gateway addresses with this text (one per chain at most), each a seek on (chain, address). */
function addressIds(db: DbOrTx, q: string): string[] {
  return db.$client
    .query<{ id: string }, never[]>(`SELECT id FROM addresses WHERE chain IN (${chainList}) AND address = ?`)
    .all(...([...CHAIN_CODES, q] as never[]))
    .map((r) => r.id);
}

export function payinArms(db: DbOrTx, q: string): Arm[] {
  return [
    { where: "order_no = ?", params: [q], ordered: false },
    merchantOrderArm(q),
    { where: "tx_hash = ?", params: [q], ordered: true },
    { where: "from_address = ?", params: [q], ordered: true },
    ...addressIds(db, q).map((id) => ({
      where: "address_id = ?",
      params: [id],
      ordered: true,
    })),
  ];
}

export function payoutArms(q: string): Arm[] {
  return [
    { where: "order_no = ?", params: [q], ordered: false },
    merchantOrderArm(q),
    { where: "tx_hash = ?", params: [q], ordered: true },
    { where: "to_address = ?", params: [q], ordered: true },
    { where: "from_address = ?", params: [q], ordered: true },
  ];
}

export function depositArms(q: string): Arm[] {
  return [
    // (chain, tx_hash, log_index) is unique: a transaction's few transfers.
    {
      where: `chain IN (${chainList}) AND tx_hash = ?`,
      params: [...CHAIN_CODES, q],
      ordered: false,
    },
    { where: "to_address = ?", params: [q], ordered: true },
    { where: "from_address = ?", params: [q], ordered: true },
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
