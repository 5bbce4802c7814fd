// Balances (DESIGN 13): per chain, token and address, the ledger's available
// balance beside the last on-chain reading the reconciliation job took
// (src/payout/balances.ts reconcileChain). Read-only: the back office lists
// these, the alerting job calls reconciliationMismatches().
import { and, eq, inArray, sql } from "drizzle-orm";
import type { DbOrTx } from "../db/client";
import { addressBalances, addresses, balanceChecks, merchants } from "../db/schema";
import { addressBalance } from "../payout/balances";
import { BALANCE_MISMATCH } from "../payout/state";
import { mapSeq } from "../lib/async-seq";

export interface BalanceLine {
  chain: string;
  token: string;
  address: string;
  addressId: string;
  kind: string;
  bindKey: string | null;
  merchantId: number | null;
  merchantUid: string | null;
  /** Base units (bigint as string). */
  ledger: string;
  reserved: string;
  available: string;
  /** Last on-chain reading, null until the reconciliation job has read it. */
  chainBalance: string | null;
  checkedAt: number | null;
  status: "ok" | "mismatch" | "unchecked";
  /** chain - ledger when mismatched, else "0". */
  difference: string;
}

export interface BalanceFilter {
  merchantId?: number;
  chain?: string;
  token?: string;
}

/** Every (address, token) with ledger entries, sorted by chain, token, then largest available first. */
export async function balanceSheet(db: DbOrTx, f: BalanceFilter = {}): Promise<BalanceLine[]> {
  const where = [];
  if (f.merchantId !== undefined) where.push(eq(addressBalances.merchantId, f.merchantId));
  if (f.chain) where.push(eq(addressBalances.chain, f.chain));
  if (f.token) where.push(eq(addressBalances.token, f.token));
  // One row per (address, token) that ever had a ledger entry: address_balances, not a DISTINCT over the ledger.
  const pairs = db
    .select({ addressId: addressBalances.addressId, token: addressBalances.token, chain: addressBalances.chain, address: addresses.address, kind: addresses.kind, bindKey: addresses.bindKey, merchantId: addresses.merchantId, merchantUid: merchants.uid })
    .from(addressBalances)
    .innerJoin(addresses, eq(addresses.id, addressBalances.addressId))
    .leftJoin(merchants, eq(merchants.id, addresses.merchantId))
    .where(where.length ? and(...where) : undefined)
    .all();
  const checks = new Map<string, typeof balanceChecks.$inferSelect>();
  if (pairs.length) {
    const ids = [...new Set(pairs.map((p) => p.addressId))];
    for (let i = 0; i < ids.length; i += 500) {
      for (const c of db.select().from(balanceChecks).where(inArray(balanceChecks.addressId, ids.slice(i, i + 500))).all()) checks.set(`${c.addressId}|${c.token}`, c);
    }
  }
  const lines = await mapSeq(pairs, async (p): Promise<BalanceLine> => {
    const b = await addressBalance(db, p.addressId, p.token);
    const c = checks.get(`${p.addressId}|${p.token}`);
    return {
      ...p,
      ledger: b.ledger.toString(),
      reserved: b.reserved.toString(),
      available: b.available.toString(),
      chainBalance: c?.chainBalance ?? null,
      checkedAt: c?.checkedAt ?? null,
      status: c ? c.status : "unchecked",
      difference: c?.difference ?? "0",
    };
  });
  return lines.sort((a, b) => a.chain.localeCompare(b.chain) || a.token.localeCompare(b.token) || cmpDesc(BigInt(a.available), BigInt(b.available)) || a.address.localeCompare(b.address));
}

const cmpDesc = (a: bigint, b: bigint) => (a > b ? -1 : a < b ? 1 : 0);

/** Totals per chain and token of a sheet (base units). */
export function sheetTotals(lines: BalanceLine[]): Array<{ chain: string; token: string; available: string; ledger: string; addresses: number; mismatches: number }> {
  const m = new Map<string, { chain: string; token: string; available: bigint; ledger: bigint; addresses: number; mismatches: number }>();
  for (const l of lines) {
    const k = `${l.chain}|${l.token}`;
    const t = m.get(k) ?? { chain: l.chain, token: l.token, available: 0n, ledger: 0n, addresses: 0, mismatches: 0 };
    t.available += BigInt(l.available);
    t.ledger += BigInt(l.ledger);
    t.addresses++;
    if (l.status === "mismatch") t.mismatches++;
    m.set(k, t);
  }
  return [...m.values()].map((t) => ({ ...t, available: t.available.toString(), ledger: t.ledger.toString() }));
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

/**
 * Open reconciliation mismatches (ledger vs chain), oldest first. The alerting
 * job raises `reconciliation_mismatch` from this list; the operator's balances
 * page lists it.
 */
export async function reconciliationMismatches(db: DbOrTx): Promise<Mismatch[]> {
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
