// "Search" (DESIGN 12, issue 30): pay-ins, payouts and deposits by orderNo, merchantOrderNo,
// txHash or address, exact or by prefix, within the viewer's scope. Each searched column is its
// own index seek: the exact value newest first, and the values that start with it as a range
// seek on the same index (`col > q AND col < q'`, never LIKE), read in the index's order and
// capped; the ids are merged here and the rows read by id, so a search costs the same at 2M
// orders as at 10k.
import { chainCodes } from "../../chains/registry";
import type { DbOrTx } from "../../db/client";
import { isPg } from "../../db/engine";
import { rawAll } from "../../db/raw";
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
  /**
   * A prefix range: the index entries read in the index's own order (no sort), at most
   * PREFIX_SCAN of them, the scope checked on those: a short prefix costs a bounded read.
   */
  range?: boolean;
  /** A prefix range's column (PostgreSQL reads the range in its order: `ORDER BY col`). */
  col?: string;
}

/** Index entries a prefix arm reads at most (before the scope check); a prefix matching more shows the first ones by value. */
const PREFIX_SCAN = 500;
/** A prefix shorter than this is searched exactly only (one character would match every order). */
export const MIN_PREFIX = 4;

/** `chain IN (?, ?, …)`: one seek per registered chain. */
const chainList = () => chainCodes().map(() => "?").join(", ");
const arm = (index: string | undefined, where: string, params: unknown[], ordered = true): Arm => ({ index, where, params, ordered });
/** `col` strictly after q and before the first value that no longer starts with it (BINARY collation). */
const prefixArm = (index: string | undefined, where: (range: string) => string, col: string, q: string, params: unknown[] = []): Arm => ({
  index,
  where: where(`${col} > ? AND ${col} < ?`),
  params: [...params, q, prefixEnd(q)],
  ordered: false,
  range: true,
  col,
});

/** The smallest string greater than every string that starts with q: q with its last character moved up by one. */
export function prefixEnd(q: string): string {
  const chars = Array.from(q);
  const last = chars.pop()!.codePointAt(0)!;
  if (last >= 0x10ffff) return q + "\u{10FFFF}";
  // (Code points order as UTF-8 bytes do; the surrogate range is no character.)
  return chars.join("") + String.fromCodePoint(last + 1 === 0xd800 ? 0xe000 : last + 1);
}

/** The arms' SQL, for the query-plan tests. */
export function searchStatements(table: "payin_orders" | "payout_orders" | "transfers", arms: Arm[], scope: Scope): { sql: string; params: unknown[] }[] {
  // Checked on the rows found (`+col`: never the seek, which would walk the merchant's every row).
  const own = scope.merchantId === null ? "" : " AND +merchant_id = ?";
  const deposits = table === "transfers" ? " AND +address_id IS NOT NULL" : "";
  const scopeParams = scope.merchantId === null ? [] : [scope.merchantId];
  return arms.map((a) => {
    const from = `${table}${a.index ? ` INDEXED BY ${a.index}` : ""}`;
    if (a.range)
      return {
        // The range as one bounded read of the index (a subquery with its own LIMIT is not flattened), then the scope.
        sql: `SELECT id FROM (SELECT id, merchant_id, ${table === "transfers" ? "address_id" : "NULL AS address_id"} FROM ${from} WHERE ${a.where} LIMIT ${PREFIX_SCAN}) WHERE 1${own}${deposits} LIMIT ${LIMIT}`,
        params: [...a.params, ...scopeParams],
      };
    return {
      sql: `SELECT id FROM ${from} WHERE ${a.where}${own}${deposits}${a.ordered ? " ORDER BY id DESC" : ""} LIMIT ${LIMIT}`,
      params: [...a.params, ...scopeParams],
    };
  });
}

/**
 * The arms on PostgreSQL: the same seeks, the planner choosing the index (no INDEXED BY); a prefix
 * range read in its column's order (`ORDER BY col LIMIT PREFIX_SCAN`, as SQLite reads the index),
 * then the scope. The range compares in the database's collation: byte order (SQLite's BINARY)
 * with a database created `--locale=C` (docs/postgresql.md "Back office"), as the tests' is.
 */
export function pgSearchStatements(table: "payin_orders" | "payout_orders" | "transfers", arms: Arm[], scope: Scope): { sql: string; params: unknown[] }[] {
  const own = scope.merchantId === null ? "" : " AND merchant_id = ?";
  const deposits = table === "transfers" ? " AND address_id IS NOT NULL" : "";
  const scopeParams = scope.merchantId === null ? [] : [scope.merchantId];
  return arms.map((a) => {
    if (a.range)
      return {
        sql: `SELECT id FROM (SELECT id, merchant_id, ${table === "transfers" ? "address_id" : "NULL AS address_id"} FROM ${table} WHERE ${a.where} ORDER BY ${a.col} LIMIT ${PREFIX_SCAN}) AS r WHERE true${own}${deposits} LIMIT ${LIMIT}`,
        params: [...a.params, ...scopeParams],
      };
    return {
      sql: `SELECT id FROM ${table} WHERE ${a.where}${own}${deposits}${a.ordered ? " ORDER BY id DESC" : ""} LIMIT ${LIMIT}`,
      params: [...a.params, ...scopeParams],
    };
  });
}

/** The newest LIMIT ids over every arm. */
async function idsOf(db: DbOrTx, table: "payin_orders" | "payout_orders" | "transfers", arms: Arm[], scope: Scope): Promise<number[]> {
  const ids = new Set<number>();
  for (const s of isPg(db) ? pgSearchStatements(table, arms, scope) : searchStatements(table, arms, scope)) {
    for (const r of await rawAll<{ id: number | string }>(db, s.sql, s.params)) ids.add(Number(r.id));
  }
  return [...ids].sort((a, b) => b - a).slice(0, LIMIT);
}

/** merchantOrderNo is unique per merchant: one seek per merchant (a small table) on the (merchant, merchantOrderNo) index. */
const merchantOrderArm = (q: string, index: string) => arm(index, "merchant_id IN (SELECT id FROM merchants) AND merchant_order_no = ?", [q], false);
const merchantOrderPrefix = (q: string, index: string) => prefixArm(index, (r) => `merchant_id IN (SELECT id FROM merchants) AND ${r}`, "merchant_order_no", q);

/** Gateway addresses equal to q or (prefix) starting with it, each a seek on (chain, address). */
async function addressIds(db: DbOrTx, q: string, prefix: boolean): Promise<string[]> {
  const range = prefix ? `address >= ? AND address < ?` : "address = ?";
  return (await rawAll<{ id: string }>(db, `SELECT id FROM addresses WHERE chain IN (${chainList()}) AND ${range} LIMIT 20`, [...chainCodes(), q, ...(prefix ? [prefixEnd(q)] : [])])).map((r) => r.id);
}

const usePrefix = (q: string) => q.length >= MIN_PREFIX;

export async function payinArms(db: DbOrTx, q: string): Promise<Arm[]> {
  const p = usePrefix(q);
  return [
    arm(undefined, "order_no = ?", [q], false), // unique
    merchantOrderArm(q, "payin_merchant_order"),
    arm("payin_search_tx", "tx_hash = ?", [q]),
    arm("payin_search_from", "from_address = ?", [q]),
    ...(await addressIds(db, q, p)).map((id) => arm("payin_search_address", "address_id = ?", [id])),
    ...(p
      ? [
          prefixArm("payin_orders_order_no_unique", (r) => r, "order_no", q),
          merchantOrderPrefix(q, "payin_merchant_order"),
          prefixArm("payin_search_tx", (r) => r, "tx_hash", q),
          prefixArm("payin_search_from", (r) => r, "from_address", q),
        ]
      : []),
  ];
}

export function payoutArms(q: string): Arm[] {
  return [
    arm(undefined, "order_no = ?", [q], false), // unique
    merchantOrderArm(q, "payout_merchant_order"),
    arm("payout_search_tx", "tx_hash = ?", [q]),
    arm("payout_search_to", "to_address = ?", [q]),
    arm("payout_search_from", "from_address = ?", [q]),
    ...(usePrefix(q)
      ? [
          prefixArm("payout_orders_order_no_unique", (r) => r, "order_no", q),
          merchantOrderPrefix(q, "payout_merchant_order"),
          prefixArm("payout_search_tx", (r) => r, "tx_hash", q),
          prefixArm("payout_search_to", (r) => r, "to_address", q),
          prefixArm("payout_search_from", (r) => r, "from_address", q),
        ]
      : []),
  ];
}

export function depositArms(q: string): Arm[] {
  return [
    // (chain, tx_hash, log_index) is unique: a transaction's few transfers.
    arm("transfers_unique", `chain IN (${chainList()}) AND tx_hash = ?`, [...chainCodes(), q], false),
    arm("transfers_search_to", "to_address = ?", [q]),
    arm("transfers_search_from", "from_address = ?", [q]),
    ...(usePrefix(q)
      ? [
          prefixArm("transfers_unique", (r) => `chain IN (${chainList()}) AND ${r}`, "tx_hash", q, [...chainCodes()]),
          prefixArm("transfers_search_to", (r) => r, "to_address", q),
          prefixArm("transfers_search_from", (r) => r, "from_address", q),
        ]
      : []),
  ];
}

export async function search(db: DbOrTx, scope: Scope, rawQ: string, decimals: (chain: string, token: string) => number): Promise<SearchResult> {
  const q = rawQ.trim().slice(0, 200);
  if (!q) return { payins: [], payouts: [], deposits: [] };
  const payins = await payinsById(db, await idsOf(db, "payin_orders", await payinArms(db, q), scope));
  const payouts = await payoutsById(db, await idsOf(db, "payout_orders", payoutArms(q), scope));
  const deposits = await depositsById(db, await idsOf(db, "transfers", depositArms(q), scope), decimals);
  return { payins, payouts, deposits };
}

/** The one page a search found, when it found exactly one record (the search box then opens it). */
export function singleHit(r: SearchResult): string | null {
  const n = r.payins.length + r.payouts.length + r.deposits.length;
  if (n !== 1) return null;
  const order = r.payins[0] ?? r.payouts[0];
  return order ? `/backoffice/orders/${order.orderNo}` : `/backoffice/deposits/${r.deposits[0]!.id}`;
}
