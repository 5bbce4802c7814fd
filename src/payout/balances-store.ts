// The balances' storage (payout/balances.ts, treasury/balances.ts): the ledger's kept sums per
// address and token (address_balances), the exact sums of what unfinished payouts reserve and of
// what is in flight, the reconciliation's pages and its checks (balance_checks). Amounts are TEXT
// base units beyond 64 bits at 18 decimals: sums are exact (SQLite: the 10^12 split below;
// PostgreSQL: numeric, balances-store.pg.ts).
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { type DbOrTx, prepared } from "../db/client";
import { addressBalances, addresses, balanceChecks, merchants } from "../db/schema";
import { fromHiLo } from "../db/balance-sum";
import { statusSql } from "../db/status-sql";
import { TRANSFER_PENDING } from "../watcher/state";
import type { AddressRow } from "../wallet/addresses";
import { AWAITING_FINALITY, BALANCE_MISMATCH, UNFINISHED } from "./state";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./balances-store.pg")>(() => require("./balances-store.pg"));

export type BalanceCheckRow = typeof balanceChecks.$inferSelect;

/**
 * Exact SUM of TEXT base-unit amounts inside SQLite (18-decimal amounts exceed
 * 64 bits): each amount is split into its last 12 digits and the rest, the two
 * parts are summed separately (SQLite raises on integer overflow, never wraps)
 * and recombined as a bigint. Keeps balance checks O(1) in JS however many
 * payouts an address has (a 5,000-row batch preview runs them per row).
 */
function exactSum(db: DbOrTx, name: string, from: string, ...args: string[]): bigint {
  const stmt = prepared(db, name, (d) => {
    const q = d.$client.query<{ hi: bigint; lo: bigint }, string[]>(
      `SELECT coalesce(sum(s * CAST(substr(a, 1, max(length(a) - 12, 0)) AS INTEGER)), 0) AS hi,
              coalesce(sum(s * CAST(substr(a, max(length(a) - 11, 1)) AS INTEGER)), 0) AS lo
       FROM (SELECT CASE WHEN substr(amount, 1, 1) = '-' THEN -1 ELSE 1 END AS s, ltrim(amount, '-') AS a FROM ${from})`,
    );
    q.safeIntegers(true);
    return q;
  });
  const r = stmt.get(...args)!;
  return BigInt(r.hi) * 10n ** 12n + BigInt(r.lo);
}

export const STORED_BALANCE = "SELECT hi, lo FROM address_balances WHERE address_id = ?1 AND token = ?2";
export const RESERVED = `payout_orders WHERE from_address_id = ?1 AND token = ?2 AND status IN (${[...UNFINISHED].map((x) => `'${x}'`).join(",")})`;
/** Sums of what is in flight per address, for reconcile: broadcast payouts out, deposits not final yet in. */
export const INFLIGHT_OUT = `payout_orders WHERE from_address_id = ?1 AND token = ?2 AND ${statusSql("status", AWAITING_FINALITY)}`;
export const PENDING_IN = `transfers WHERE address_id = ?1 AND token = ?2 AND ${statusSql("status", TRANSFER_PENDING)}`;
/** A keyset page of a chain's balance rows (reconcile). */
export const RECONCILE_PAGE = `SELECT b.address_id AS addressId, b.token, a.address, b.hi, b.lo
  FROM address_balances b INDEXED BY address_balances_chain JOIN addresses a ON a.id = b.address_id
  WHERE b.chain = ?1 AND (b.address_id, b.token) > (?2, ?3)
  ORDER BY b.address_id, b.token LIMIT ?4`;

/** The address's ledger balance in that token: its address_balances row (a trigger keeps it in the transaction of every ledger entry). */
export async function ledgerBalance(db: DbOrTx, addressId: string, token: string): Promise<bigint> {
  if (isPg(db)) return await pg.ledgerBalance(pgOf(db), addressId, token);
  const q = prepared(db, "storedBalance", (d) => {
    const s = d.$client.query<{ hi: bigint; lo: bigint }, [string, string]>(STORED_BALANCE);
    s.safeIntegers(true);
    return s;
  });
  const r = q.get(addressId, token);
  return r ? fromHiLo(r.hi, r.lo) : 0n;
}

/** The same sum recomputed from every entry (tests and checks only: it reads the address's whole history). */
export async function ledgerSum(db: DbOrTx, addressId: string, token: string): Promise<bigint> {
  if (isPg(db)) return await pg.ledgerSum(pgOf(db), addressId, token);
  return exactSum(db, "ledgerSum", "ledger_entries WHERE address_id = ?1 AND token = ?2", addressId, token);
}

/** Amounts of unfinished payouts from the address in that token. */
export async function reservedBalance(db: DbOrTx, addressId: string, token: string): Promise<bigint> {
  if (isPg(db)) return await pg.reservedBalance(pgOf(db), addressId, token);
  return exactSum(db, "reservedBalance", RESERVED, addressId, token);
}

/** Amounts of the address's broadcast payouts in that token (in flight out). */
export async function inflightOut(db: DbOrTx, addressId: string, token: string): Promise<bigint> {
  if (isPg(db)) return await pg.inflightOut(pgOf(db), addressId, token);
  return exactSum(db, "inflightOut", INFLIGHT_OUT, addressId, token);
}

/** Amounts of the address's deposits not final yet in that token (in flight in). */
export async function pendingIn(db: DbOrTx, addressId: string, token: string): Promise<bigint> {
  if (isPg(db)) return await pg.pendingIn(pgOf(db), addressId, token);
  return exactSum(db, "pendingIn", PENDING_IN, addressId, token);
}

/** How many unfinished payouts the address has (any token), and whether one retires it (deleteSourceAfterSuccess). */
export async function unfinishedFrom(db: DbOrTx, addressId: string): Promise<{ count: number; retiring: boolean }> {
  if (isPg(db)) return await pg.unfinishedFrom(pgOf(db), addressId);
  const q = prepared(db, "unfinishedFrom", (d) =>
    d.$client.query<{ n: number; retiring: number | null }, string[]>(
      `SELECT count(*) AS n, max(delete_source) AS retiring FROM payout_orders WHERE from_address_id = ?1 AND status IN (${[...UNFINISHED].map((x) => `'${x}'`).join(",")})`,
    ),
  );
  const r = q.get(addressId)!;
  return { count: r.n, retiring: r.retiring === 1 };
}

/** The merchant's live (not soft-deleted, not gas) addresses on a chain. */
export async function merchantAddresses(db: DbOrTx, merchantId: number, chain: string): Promise<AddressRow[]> {
  if (isPg(db)) return await pg.merchantAddresses(pgOf(db), merchantId, chain);
  return db
    .select()
    .from(addresses)
    .where(and(eq(addresses.merchantId, merchantId), eq(addresses.chain, chain), isNull(addresses.deletedAt), inArray(addresses.kind, ["shared", "exclusive"])))
    .all();
}

/** The merchant's live addresses on a chain holding a ledger balance row in the token (address_balances_merchant). */
export async function fundedAddressRows(db: DbOrTx, merchantId: number, chain: string, token: string): Promise<AddressRow[]> {
  if (isPg(db)) return await pg.fundedAddressRows(pgOf(db), merchantId, chain, token);
  return fundedAddressesQuery(db, merchantId, chain, token)
    .all()
    .map((r) => r.address);
}

export function fundedAddressesQuery(db: DbOrTx, merchantId: number, chain: string, token: string) {
  return db
    .select({ address: addresses })
    .from(addressBalances)
    .innerJoin(addresses, eq(addresses.id, addressBalances.addressId))
    .where(
      and(
        eq(addressBalances.merchantId, merchantId),
        eq(addressBalances.chain, chain),
        eq(addressBalances.token, token),
        isNull(addresses.deletedAt),
        inArray(addresses.kind, ["shared", "exclusive"]),
      ),
    );
}

/** A chain's balance row as reconcile reads it. */
export interface BalanceRow {
  addressId: string;
  token: string;
  address: string;
  hi: bigint;
  lo: bigint;
}

/** A keyset page of a chain's balance rows after (addressId, token) (RECONCILE_PAGE). */
export async function reconcilePage(db: DbOrTx, chain: string, afterAddressId: string, afterToken: string, limit: number): Promise<BalanceRow[]> {
  if (isPg(db)) return await pg.reconcilePage(pgOf(db), chain, afterAddressId, afterToken, limit);
  const q = prepared(db, "reconcilePage", (d) => {
    const s = d.$client.query<BalanceRow, [string, string, string, number]>(RECONCILE_PAGE);
    s.safeIntegers(true);
    return s;
  });
  return q.all(chain, afterAddressId, afterToken, limit);
}

/** The last reconciliation check of (address, token). */
export async function balanceCheckOf(db: DbOrTx, addressId: string, token: string): Promise<BalanceCheckRow | undefined> {
  if (isPg(db)) return await pg.balanceCheckOf(pgOf(db), addressId, token);
  return db.select().from(balanceChecks).where(and(eq(balanceChecks.addressId, addressId), eq(balanceChecks.token, token))).get();
}

/** Writes (inserts or replaces) the check of (address, token). */
export async function saveBalanceCheck(db: DbOrTx, row: BalanceCheckRow): Promise<void> {
  if (isPg(db)) return await pg.saveBalanceCheck(pgOf(db), row);
  db.insert(balanceChecks).values(row).onConflictDoUpdate({ target: [balanceChecks.addressId, balanceChecks.token], set: row }).run();
}

/** The checks that found a mismatch. */
export async function openDiscrepancies(db: DbOrTx): Promise<BalanceCheckRow[]> {
  if (isPg(db)) return await pg.openDiscrepancies(pgOf(db));
  return db.select().from(balanceChecks).where(eq(balanceChecks.status, BALANCE_MISMATCH)).all();
}

// ---- the balance sheet (treasury/balances.ts) ----

export interface BalanceFilter {
  merchantId?: number;
  chain?: string;
  token?: string;
}

/** An (address, token) with a balance row, and whose address it is. */
export interface BalancePair {
  addressId: string;
  token: string;
  chain: string;
  address: string;
  kind: string;
  bindKey: string | null;
  merchantId: number | null;
  merchantUid: string | null;
}

/** One row per (address, token) that ever had a ledger entry: address_balances, not a DISTINCT over the ledger. */
export async function balancePairs(db: DbOrTx, f: BalanceFilter): Promise<BalancePair[]> {
  if (isPg(db)) return await pg.balancePairs(pgOf(db), f);
  const where = [];
  if (f.merchantId !== undefined) where.push(eq(addressBalances.merchantId, f.merchantId));
  if (f.chain) where.push(eq(addressBalances.chain, f.chain));
  if (f.token) where.push(eq(addressBalances.token, f.token));
  return db
    .select({ addressId: addressBalances.addressId, token: addressBalances.token, chain: addressBalances.chain, address: addresses.address, kind: addresses.kind, bindKey: addresses.bindKey, merchantId: addresses.merchantId, merchantUid: merchants.uid })
    .from(addressBalances)
    .innerJoin(addresses, eq(addresses.id, addressBalances.addressId))
    .leftJoin(merchants, eq(merchants.id, addresses.merchantId))
    .where(where.length ? and(...where) : undefined)
    .all();
}

/** The checks of these addresses (every token), 500 ids a statement. */
export async function balanceChecksOf(db: DbOrTx, addressIds: string[]): Promise<BalanceCheckRow[]> {
  if (isPg(db)) return await pg.balanceChecksOf(pgOf(db), addressIds);
  const out: BalanceCheckRow[] = [];
  for (let i = 0; i < addressIds.length; i += 500) out.push(...db.select().from(balanceChecks).where(inArray(balanceChecks.addressId, addressIds.slice(i, i + 500))).all());
  return out;
}

export interface Mismatch {
  chain: string;
  token: string;
  address: string;
  merchantUid: string | null;
  ledger: string;
  chainBalance: string;
  difference: string;
  since: number;
  checkedAt: number;
}

/** Open reconciliation mismatches with their address and merchant, oldest first. */
export async function mismatchRows(db: DbOrTx): Promise<Mismatch[]> {
  if (isPg(db)) return await pg.mismatchRows(pgOf(db));
  return db
    .select({
      chain: balanceChecks.chain,
      token: balanceChecks.token,
      address: addresses.address,
      merchantUid: merchants.uid,
      ledger: balanceChecks.ledgerBalance,
      chainBalance: balanceChecks.chainBalance,
      difference: balanceChecks.difference,
      since: sql<number>`coalesce(${balanceChecks.mismatchSince}, ${balanceChecks.checkedAt})`,
      checkedAt: balanceChecks.checkedAt,
    })
    .from(balanceChecks)
    .innerJoin(addresses, eq(addresses.id, balanceChecks.addressId))
    .leftJoin(merchants, eq(merchants.id, addresses.merchantId))
    .where(eq(balanceChecks.status, BALANCE_MISMATCH))
    .orderBy(balanceChecks.mismatchSince)
    .all();
}
