// payin/wallet-stats-store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a
// PostgreSQL handle). Received is summed as numeric: exact at any size. The label search is
// ILIKE: SQLite's LIKE ignores ASCII case.
import { and, desc, eq, sql } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { addresses, bindings, merchants, payinOrders, transfers } from "../db/schema-pg";
import { TRANSFER_CONFIRMED, TRANSFER_PENDING, TRANSFER_REVERTED } from "../watcher/state";
import type { DepositStats, WalletBinding, WalletListRow, WalletScope } from "./wallet-stats-store";

/** The label search: the text without LIKE's wildcards, anywhere in the label (wallet-stats-store.ts labelPattern). */
const labelPattern = (q: string) => "%" + q.replace(/[%_]/g, "") + "%";
const list = (s: readonly string[]) => sql.raw(s.map((x) => `'${x}'`).join(", "));

export async function walletListRows(db: PgQ, scope: WalletScope): Promise<WalletListRow[]> {
  const where = [sql`true`];
  if (scope.merchantId !== undefined) where.push(eq(bindings.merchantId, scope.merchantId));
  if (scope.q) where.push(sql`(${bindings.bindKey} = ${scope.q} OR ${addresses.address} = ${scope.q} OR ${bindings.label} ILIKE ${labelPattern(scope.q)})`);
  return await db
    .select({
      id: bindings.id,
      merchantUid: merchants.uid,
      chain: bindings.chain,
      token: bindings.token,
      bindKey: bindings.bindKey,
      label: bindings.label,
      address: addresses.address,
      addressId: bindings.addressId,
      status: bindings.status,
      createdAt: bindings.createdAt,
    })
    .from(bindings)
    .innerJoin(addresses, eq(addresses.id, bindings.addressId))
    .innerJoin(merchants, eq(merchants.id, bindings.merchantId))
    .where(and(...where))
    .orderBy(desc(bindings.createdAt))
    .limit(scope.limit ?? 100)
    .offset(scope.offset ?? 0);
}

export async function depositStats(db: PgQ, addressId: string, token: string): Promise<DepositStats> {
  const [r] = (await db.execute(sql`SELECT
      count(*) FILTER (WHERE status NOT IN (${list(TRANSFER_REVERTED)})) AS deposits,
      count(*) FILTER (WHERE status IN (${list(TRANSFER_PENDING)})) AS pending,
      max(seen_at) FILTER (WHERE status NOT IN (${list(TRANSFER_REVERTED)})) AS last,
      coalesce(sum(amount::numeric) FILTER (WHERE status IN (${list(TRANSFER_CONFIRMED)})), 0)::text AS received
    FROM transfers WHERE address_id = ${addressId} AND token = ${token} AND unmatched_reason IS DISTINCT FROM 'counterfeit_token'`)) as unknown as {
    deposits: string | number;
    pending: string | number;
    last: string | number | null;
    received: string;
  }[];
  return { deposits: Number(r!.deposits), pending: Number(r!.pending), lastDepositAt: r!.last === null ? null : Number(r!.last), received: r!.received };
}

export async function walletBinding(db: PgQ, id: string): Promise<WalletBinding | undefined> {
  return await firstRow(db.select().from(bindings).where(eq(bindings.id, id)));
}

export async function walletDeposits(db: PgQ, addressId: string, token: string, limit: number) {
  return await db
    .select({
      txHash: transfers.txHash,
      fromAddress: transfers.fromAddress,
      amount: transfers.amount,
      status: transfers.status,
      blockTime: transfers.blockTime,
      seenAt: transfers.seenAt,
      orderNo: payinOrders.orderNo,
      orderStatus: payinOrders.status,
    })
    .from(transfers)
    .leftJoin(payinOrders, eq(payinOrders.id, transfers.payinOrderId))
    .where(and(eq(transfers.addressId, addressId), eq(transfers.token, token)))
    .orderBy(desc(transfers.id))
    .limit(limit);
}
