// Balances (DESIGN 13): per chain, token and address, the ledger's available
// balance beside the last on-chain reading the reconciliation job took
// (src/payout/balances.ts reconcileChain). Read-only: the back office lists
// these, the alerting job calls reconciliationMismatches().
import type { DbOrTx } from "../db/client";
import { addressBalance } from "../payout/balances";
import { balanceChecksOf, balancePairs, type BalanceCheckRow, type BalanceFilter, mismatchRows, type Mismatch } from "../payout/balances-store";
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

export type { BalanceFilter, Mismatch };

/** Every (address, token) with ledger entries, sorted by chain, token, then largest available first. */
export async function balanceSheet(db: DbOrTx, f: BalanceFilter = {}): Promise<BalanceLine[]> {
  const pairs = await balancePairs(db, f);
  const checks = new Map<string, BalanceCheckRow>();
  if (pairs.length) for (const c of await balanceChecksOf(db, [...new Set(pairs.map((p) => p.addressId))])) checks.set(`${c.addressId}|${c.token}`, c);
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

/**
 * Open reconciliation mismatches (ledger vs chain), oldest first. The alerting
 * job raises `reconciliation_mismatch` from this list; the operator's balances
 * page lists it.
 */
export async function reconciliationMismatches(db: DbOrTx): Promise<Mismatch[]> {
  return await mismatchRows(db);
}
