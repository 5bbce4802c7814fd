// Balances per gateway address and token. The ledger holds what is final on
// chain (deposits when final, payouts when confirmed); available = ledger
// minus what unfinished payouts reserve. A job compares the ledger with the
// chain's own balance and reports differences; it never rewrites the ledger.
import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Db } from "../db/client";
import type { Clock } from "../lib/clock";
import type { Logger } from "../lib/logger";
import { type DbOrTx, prepared, writeTx } from "../db/client";
import { addressBalances, addresses, balanceChecks } from "../db/schema";
import { inSlices } from "../lib/slices";
import { fromHiLo } from "../db/balance-sum";
import type { ChainAdapter, TokenSymbol } from "../chains/types";
import type { AddressRow } from "../wallet/addresses";
import { statusSql } from "../db/status-sql";
import { TRANSFER_PENDING } from "../watcher/state";
import { AWAITING_FINALITY, BALANCE_MISMATCH, UNFINISHED } from "./state";
import { forEachSeq, mapSeq } from "../lib/async-seq";

/**
 * Exact SUM of TEXT base-unit amounts inside SQLite (18-decimal amounts exceed
 * 64 bits): each amount is split into its last 12 digits and the rest, the two
 * parts are summed separately (SQLite raises on integer overflow, never wraps)
 * and recombined as a bigint. Keeps balance checks O(1) in JS however many
 * payouts an address has (a 5,000-row batch preview runs them per row).
 */
async function exactSum(db: DbOrTx, name: string, from: string, ...args: string[]): Promise<bigint> {
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

/**
 * The address's ledger balance in that token: its address_balances row, which a
 * trigger keeps in the transaction of every ledger entry (one seek, whatever the
 * address's history).
 */
export async function ledgerBalance(db: DbOrTx, addressId: string, token: string): Promise<bigint> {
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
  return await exactSum(db, "ledgerSum", "ledger_entries WHERE address_id = ?1 AND token = ?2", addressId, token);
}

/** Amounts of unfinished payouts from the address in that token. */
export async function reservedBalance(db: DbOrTx, addressId: string, token: string): Promise<bigint> {
  return await exactSum(db, "reservedBalance", RESERVED, addressId, token);
}

export interface AddressBalance {
  ledger: bigint;
  reserved: bigint;
  available: bigint;
}

export async function addressBalance(db: DbOrTx, addressId: string, token: string): Promise<AddressBalance> {
  const ledger = await ledgerBalance(db, addressId, token);
  const reserved = await reservedBalance(db, addressId, token);
  return { ledger, reserved, available: ledger - reserved };
}

/** How many unfinished payouts the address has (any token), and whether one retires it (deleteSourceAfterSuccess). */
export async function unfinishedFrom(db: DbOrTx, addressId: string): Promise<{ count: number; retiring: boolean }> {
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
  return db
    .select()
    .from(addresses)
    .where(and(eq(addresses.merchantId, merchantId), eq(addresses.chain, chain), isNull(addresses.deletedAt), inArray(addresses.kind, ["shared", "exclusive"])))
    .all();
}

/**
 * The merchant's live addresses on a chain that hold a ledger balance in the token,
 * with their balances: rows of address_balances (address_balances_merchant), so the
 * cost follows how many addresses the merchant has, never their history.
 */
export async function fundedAddresses(db: DbOrTx, merchantId: number, chain: string, token: string): Promise<Array<{ address: AddressRow } & AddressBalance>> {
  const rows = fundedAddressesQuery(db, merchantId, chain, token).all();
  // Derivation order, as the merchant's address list (ties between equal balances go to the older address).
  rows.sort((a, b) => a.address.derivationIndex - b.address.derivationIndex);
  return await mapSeq(rows, async (r) => ({ address: r.address, ...await addressBalance(db, r.address.id, token) }));
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

// ---- reconciliation ----

export interface Discrepancy {
  addressId: string;
  address: string;
  token: string;
  ledger: bigint;
  chain: bigint;
  difference: bigint;
}

/**
 * Compares every address of the chain that has ledger entries with the chain.
 * In-flight movements make a range acceptable: broadcast payouts may already
 * have left, deposits that are not final yet may already be there.
 */
/** What a reconciliation run reads and writes through. */
export interface ReconcileDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
}

/** Balance rows per slice of a reconcile run (each is one chain read and a few seeks; a slice holds the loop a few ms, DESIGN 11). */
export const RECONCILE_SLICE = 16;

export async function reconcileChain(ctx: ReconcileDeps, adapter: ChainAdapter): Promise<Discrepancy[]> {
  const out: Discrepancy[] = [];
  // Keyset pages over the chain's balance rows (address_balances_chain), a turn given back between
  // pages: in sandbox mode tokenBalance answers without I/O, so nothing else would ever yield.
  let after = { addressId: "", token: "" };
  await inSlices(async () => {
    const page = reconcilePage(ctx.db).all(adapter.chain, after.addressId, after.token, RECONCILE_SLICE);
    // Chain reads first (I/O, awaited), then the slice's comparisons and writes in one transaction:
    // one commit per slice, not one fsync per address.
    const onChain: bigint[] = [];
    for (const p of page) onChain.push(await adapter.tokenBalance(p.address, p.token as TokenSymbol));
    await writeTx(ctx.db, async () => await forEachSeq(page, async (p, i) => await reconcileOne(ctx, adapter, p, onChain[i]!, out)));
    if (page.length) after = page[page.length - 1]!;
    return page.length === RECONCILE_SLICE;
  });
  return out;
}

interface BalanceRow {
  addressId: string;
  token: string;
  address: string;
  hi: bigint;
  lo: bigint;
}

/** A keyset page of a chain's balance rows (reconcile). */
export const RECONCILE_PAGE = `SELECT b.address_id AS addressId, b.token, a.address, b.hi, b.lo
  FROM address_balances b INDEXED BY address_balances_chain JOIN addresses a ON a.id = b.address_id
  WHERE b.chain = ?1 AND (b.address_id, b.token) > (?2, ?3)
  ORDER BY b.address_id, b.token LIMIT ?4`;

/** Sums of what is in flight per address, for reconcile: broadcast payouts out, deposits not final yet in. */
export const INFLIGHT_OUT = `payout_orders WHERE from_address_id = ?1 AND token = ?2 AND ${statusSql("status", AWAITING_FINALITY)}`;
export const PENDING_IN = `transfers WHERE address_id = ?1 AND token = ?2 AND ${statusSql("status", TRANSFER_PENDING)}`;

function reconcilePage(db: Db) {
  return prepared(db, "reconcilePage", (d) => {
    const q = d.$client.query<BalanceRow, [string, string, string, number]>(RECONCILE_PAGE);
    q.safeIntegers(true);
    return q;
  });
}

async function reconcileOne(ctx: ReconcileDeps, adapter: ChainAdapter, p: BalanceRow, onChain: bigint, out: Discrepancy[]): Promise<void> {
  const now = ctx.clock.now();
  // Read after the chain answered: an entry written meanwhile is counted (in-flight ranges cover the rest).
  const ledger = await ledgerBalance(ctx.db, p.addressId, p.token);
  const inflightOut = await exactSum(ctx.db, "inflightOut", INFLIGHT_OUT, p.addressId, p.token);
  const pendingIn = await exactSum(ctx.db, "pendingIn", PENDING_IN, p.addressId, p.token);
  const ok = onChain >= ledger - inflightOut && onChain <= ledger + pendingIn;
  const difference = ok ? 0n : onChain - ledger;
  const prev = ctx.db.select().from(balanceChecks).where(and(eq(balanceChecks.addressId, p.addressId), eq(balanceChecks.token, p.token))).get();
  const row = {
    addressId: p.addressId,
    token: p.token,
    chain: adapter.chain,
    ledgerBalance: ledger.toString(),
    chainBalance: onChain.toString(),
    difference: difference.toString(),
    status: ok ? ("ok" as const) : BALANCE_MISMATCH,
    mismatchSince: ok ? null : (prev?.mismatchSince ?? now),
    checkedAt: now,
  };
  ctx.db.insert(balanceChecks).values(row).onConflictDoUpdate({ target: [balanceChecks.addressId, balanceChecks.token], set: row }).run();
  if (!ok) {
    out.push({ addressId: p.addressId, address: p.address, token: p.token, ledger, chain: onChain, difference });
    if (prev?.status !== BALANCE_MISMATCH || prev.difference !== row.difference) {
      ctx.logger.warn("ledger and chain balance differ", { chain: adapter.chain, address: p.address, token: p.token, ledger: ledger.toString(), onChain: onChain.toString() });
    }
  }
}

export async function openDiscrepancies(db: DbOrTx) {
  return db.select().from(balanceChecks).where(eq(balanceChecks.status, BALANCE_MISMATCH)).all();
}

