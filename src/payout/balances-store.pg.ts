// payout/balances-store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL
// handle). Exact sums in numeric (`sum(amount::numeric)`, read back as text into a bigint); the kept
// hi/lo sums read as text, so no value passes through a float.
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { addressBalances, addresses, balanceChecks, merchants } from "../db/schema-pg";
import { fromHiLo } from "../db/balance-sum";
import { TRANSFER_PENDING } from "../watcher/state";
import type { AddressRow } from "../wallet/addresses";
import type { BalanceCheckRow, BalanceFilter, BalancePair, BalanceRow, Mismatch } from "./balances-store";
import { AWAITING_FINALITY, BALANCE_MISMATCH, UNFINISHED } from "./state";

const list = (s: readonly string[]) => sql.raw(s.map((x) => `'${x}'`).join(", "));

async function exactSum(db: PgQ, query: ReturnType<typeof sql>): Promise<bigint> {
  const rows = (await db.execute(sql`SELECT coalesce(sum(amount::numeric), 0)::text AS s FROM ${query}`)) as unknown as { s: string }[];
  return BigInt(rows[0]!.s);
}

export async function ledgerBalance(db: PgQ, addressId: string, token: string): Promise<bigint> {
  const rows = (await db.execute(sql`SELECT hi::text AS hi, lo::text AS lo FROM address_balances WHERE address_id = ${addressId} AND token = ${token}`)) as unknown as { hi: string; lo: string }[];
  return rows[0] ? fromHiLo(BigInt(rows[0].hi), BigInt(rows[0].lo)) : 0n;
}

export async function ledgerSum(db: PgQ, addressId: string, token: string): Promise<bigint> {
  return await exactSum(db, sql`ledger_entries WHERE address_id = ${addressId} AND token = ${token}`);
}

export async function reservedBalance(db: PgQ, addressId: string, token: string): Promise<bigint> {
  return await exactSum(db, sql`payout_orders WHERE from_address_id = ${addressId} AND token = ${token} AND status IN (${list(UNFINISHED)})`);
}

export async function inflightOut(db: PgQ, addressId: string, token: string): Promise<bigint> {
  return await exactSum(db, sql`payout_orders WHERE from_address_id = ${addressId} AND token = ${token} AND status IN (${list(AWAITING_FINALITY)})`);
}

export async function pendingIn(db: PgQ, addressId: string, token: string): Promise<bigint> {
  return await exactSum(db, sql`transfers WHERE address_id = ${addressId} AND token = ${token} AND status IN (${list(TRANSFER_PENDING)})`);
}

export async function unfinishedFrom(db: PgQ, addressId: string): Promise<{ count: number; retiring: boolean }> {
  const rows = (await db.execute(
    sql`SELECT count(*)::int AS n, coalesce(bool_or(delete_source), false) AS retiring FROM payout_orders WHERE from_address_id = ${addressId} AND status IN (${list(UNFINISHED)})`,
  )) as unknown as { n: number; retiring: boolean }[];
  return { count: Number(rows[0]!.n), retiring: rows[0]!.retiring === true };
}

export async function merchantAddresses(db: PgQ, merchantId: number, chain: string): Promise<AddressRow[]> {
  return await db
    .select()
    .from(addresses)
    .where(and(eq(addresses.merchantId, merchantId), eq(addresses.chain, chain), isNull(addresses.deletedAt), inArray(addresses.kind, ["shared", "exclusive"])));
}

export async function fundedAddressRows(db: PgQ, merchantId: number, chain: string, token: string): Promise<AddressRow[]> {
  const rows = await db
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
  return rows.map((r) => r.address);
}

export async function reconcilePage(db: PgQ, chain: string, afterAddressId: string, afterToken: string, limit: number): Promise<BalanceRow[]> {
  const rows = (await db.execute(sql`SELECT b.address_id AS "addressId", b.token, a.address, b.hi::text AS hi, b.lo::text AS lo
    FROM address_balances b JOIN addresses a ON a.id = b.address_id
    WHERE b.chain = ${chain} AND (b.address_id, b.token) > (${afterAddressId}, ${afterToken})
    ORDER BY b.address_id, b.token LIMIT ${limit}`)) as unknown as { addressId: string; token: string; address: string; hi: string; lo: string }[];
  return rows.map((r) => ({ addressId: r.addressId, token: r.token, address: r.address, hi: BigInt(r.hi), lo: BigInt(r.lo) }));
}

export async function balanceCheckOf(db: PgQ, addressId: string, token: string): Promise<BalanceCheckRow | undefined> {
  return await firstRow(db.select().from(balanceChecks).where(and(eq(balanceChecks.addressId, addressId), eq(balanceChecks.token, token))));
}

export async function saveBalanceCheck(db: PgQ, row: BalanceCheckRow): Promise<void> {
  await db.insert(balanceChecks).values(row).onConflictDoUpdate({ target: [balanceChecks.addressId, balanceChecks.token], set: row });
}

export async function openDiscrepancies(db: PgQ): Promise<BalanceCheckRow[]> {
  return await db.select().from(balanceChecks).where(eq(balanceChecks.status, BALANCE_MISMATCH));
}

export async function balancePairs(db: PgQ, f: BalanceFilter): Promise<BalancePair[]> {
  const where = [];
  if (f.merchantId !== undefined) where.push(eq(addressBalances.merchantId, f.merchantId));
  if (f.chain) where.push(eq(addressBalances.chain, f.chain));
  if (f.token) where.push(eq(addressBalances.token, f.token));
  return await db
    .select({ addressId: addressBalances.addressId, token: addressBalances.token, chain: addressBalances.chain, address: addresses.address, kind: addresses.kind, bindKey: addresses.bindKey, merchantId: addresses.merchantId, merchantUid: merchants.uid })
    .from(addressBalances)
    .innerJoin(addresses, eq(addresses.id, addressBalances.addressId))
    .leftJoin(merchants, eq(merchants.id, addresses.merchantId))
    .where(where.length ? and(...where) : undefined);
}

export async function balanceChecksOf(db: PgQ, addressIds: string[]): Promise<BalanceCheckRow[]> {
  const out: BalanceCheckRow[] = [];
  for (let i = 0; i < addressIds.length; i += 500) out.push(...(await db.select().from(balanceChecks).where(inArray(balanceChecks.addressId, addressIds.slice(i, i + 500)))));
  return out;
}

export async function mismatchRows(db: PgQ): Promise<Mismatch[]> {
  return await db
    .select({
      chain: balanceChecks.chain,
      token: balanceChecks.token,
      address: addresses.address,
      merchantUid: merchants.uid,
      ledger: balanceChecks.ledgerBalance,
      chainBalance: balanceChecks.chainBalance,
      difference: balanceChecks.difference,
      since: sql<number>`coalesce(${balanceChecks.mismatchSince}, ${balanceChecks.checkedAt})`.mapWith(Number),
      checkedAt: balanceChecks.checkedAt,
    })
    .from(balanceChecks)
    .innerJoin(addresses, eq(addresses.id, balanceChecks.addressId))
    .leftJoin(merchants, eq(merchants.id, addresses.merchantId))
    .where(eq(balanceChecks.status, BALANCE_MISMATCH))
    .orderBy(balanceChecks.mismatchSince);
}
