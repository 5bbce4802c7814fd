// Exclusive wallets (bindings) with their deposit statistics, for the back
// office. Scoped: a merchant id limits every query to that merchant's wallets.
import { and, desc, eq, lte, sql } from "drizzle-orm";
import { type DbOrTx, prepared } from "../db/client";
import { addresses, bindings, merchants, payinOrders, transfers } from "../db/schema";
import { notStatusSql, statusSql } from "../db/status-sql";
import { TRANSFER_CONFIRMED, TRANSFER_PENDING, TRANSFER_REVERTED } from "../watcher/state";
import { mapSeq } from "../lib/async-seq";

export interface WalletRow {
  id: string;
  merchantUid: string;
  chain: string;
  token: string;
  bindKey: string;
  label: string | null;
  address: string;
  status: string;
  createdAt: number;
  deposits: number;
  /** Base units of confirmed deposits. */
  received: string;
  pending: number;
  lastDepositAt: number | null;
}

export async function exclusiveWallets(db: DbOrTx, scope: { merchantId?: number; q?: string; limit?: number; offset?: number }): Promise<WalletRow[]> {
  // Bounded above so the newest-first walk of bindings_list(_merchant) is a range seek.
  const where = [lte(bindings.createdAt, Number.MAX_SAFE_INTEGER)];
  if (scope.merchantId !== undefined) where.push(eq(bindings.merchantId, scope.merchantId));
  if (scope.q) where.push(sql`(${bindings.bindKey} = ${scope.q} OR ${addresses.address} = ${scope.q} OR ${bindings.label} LIKE ${"%" + scope.q.replace(/[%_]/g, "") + "%"})`);
  const rows = db
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
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(bindings.createdAt))
    .limit(scope.limit ?? 100)
    .offset(scope.offset ?? 0)
    .all();
  return await mapSeq(rows, async ({ addressId, ...r }) => ({ ...r, ...await depositStats(db, addressId, r.token) }));
}

// The transfer statuses come from watcher/state.ts (wallet-stats.test.ts holds the text).
const NOT_REVERTED = notStatusSql("status", TRANSFER_REVERTED);
const IS_CONFIRMED = statusSql("status", TRANSFER_CONFIRMED);
export const DEPOSIT_STATS = `SELECT sum(${NOT_REVERTED}) AS deposits, sum(${statusSql("status", TRANSFER_PENDING)}) AS pending,
              max(CASE WHEN ${NOT_REVERTED} THEN seen_at END) AS last,
              sum(CASE WHEN ${IS_CONFIRMED} THEN CAST(substr(amount, 1, max(length(amount) - 12, 0)) AS INTEGER) ELSE 0 END) AS hi,
              sum(CASE WHEN ${IS_CONFIRMED} THEN CAST(substr(amount, max(length(amount) - 11, 1)) AS INTEGER) ELSE 0 END) AS lo
       FROM transfers WHERE address_id = ?1 AND token = ?2 AND unmatched_reason IS NOT 'counterfeit_token'`;

/**
 * Deposit statistics of one address and token in one aggregate query (an
 * address may have many deposits). Received is summed exactly in two parts
 * (amounts can exceed 64 bits), as in src/payout/balances.ts.
 */
async function depositStats(db: DbOrTx, addressId: string, token: string): Promise<Pick<WalletRow, "deposits" | "received" | "pending" | "lastDepositAt">> {
  const q = prepared(db, "walletDepositStats", (d) => {
    const st = d.$client.query<{ deposits: bigint | null; pending: bigint | null; last: bigint | null; hi: bigint | null; lo: bigint | null }, string[]>(DEPOSIT_STATS);
    st.safeIntegers(true);
    return st;
  });
  const r = q.get(addressId, token)!;
  return {
    deposits: Number(r.deposits ?? 0n),
    pending: Number(r.pending ?? 0n),
    lastDepositAt: r.last === null ? null : Number(r.last),
    received: (BigInt(r.hi ?? 0n) * 10n ** 12n + BigInt(r.lo ?? 0n)).toString(),
  };
}

/** One wallet and its latest deposits (newest first), or undefined when not in scope. */
export async function walletWithDeposits(db: DbOrTx, id: string, scope: { merchantId?: number }, limit = 50) {
  const b = db.select().from(bindings).where(eq(bindings.id, id)).get();
  if (!b || (scope.merchantId !== undefined && b.merchantId !== scope.merchantId)) return undefined;
  const wallet = (await exclusiveWallets(db, { merchantId: b.merchantId, q: b.bindKey })).find((w) => w.id === id)!;
  const deposits = db
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
    .where(and(eq(transfers.addressId, b.addressId), eq(transfers.token, b.token)))
    .orderBy(desc(transfers.id))
    .limit(limit)
    .all();
  return { wallet, deposits };
}
