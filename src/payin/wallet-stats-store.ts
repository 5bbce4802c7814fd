// The exclusive wallets' read model (payin/wallet-stats.ts composes it for the back office): the
// wallets page's rows, one aggregate of an address's deposits, a wallet's latest deposits.
import { and, desc, eq, lte, sql } from "drizzle-orm";
import { type DbOrTx, prepared } from "../db/client";
import { addresses, bindings, merchants, payinOrders, transfers } from "../db/schema";
import { notStatusSql, statusSql } from "../db/status-sql";
import { TRANSFER_CONFIRMED, TRANSFER_PENDING, TRANSFER_REVERTED } from "../watcher/state";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./wallet-stats-store.pg")>(() => require("./wallet-stats-store.pg"));

export interface WalletScope {
  merchantId?: number;
  q?: string;
  limit?: number;
  offset?: number;
}

export interface WalletListRow {
  id: string;
  merchantUid: string;
  chain: string;
  token: string;
  bindKey: string;
  label: string | null;
  address: string;
  addressId: string;
  status: string;
  createdAt: number;
}

/** What the LIKE of a wallet search matches: the text without LIKE's wildcards, anywhere in the label. */
export const labelPattern = (q: string) => "%" + q.replace(/[%_]/g, "") + "%";

/** A page of exclusive wallets (bindings), newest first, in scope. */
export async function walletListRows(db: DbOrTx, scope: WalletScope): Promise<WalletListRow[]> {
  if (isPg(db)) return await pg.walletListRows(pgOf(db), scope);
  // Bounded above so the newest-first walk of bindings_list(_merchant) is a range seek.
  const where = [lte(bindings.createdAt, Number.MAX_SAFE_INTEGER)];
  if (scope.merchantId !== undefined) where.push(eq(bindings.merchantId, scope.merchantId));
  if (scope.q) where.push(sql`(${bindings.bindKey} = ${scope.q} OR ${addresses.address} = ${scope.q} OR ${bindings.label} LIKE ${labelPattern(scope.q)})`);
  return db
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
    .offset(scope.offset ?? 0)
    .all();
}

// The transfer statuses come from watcher/state.ts (wallet-stats.test.ts holds the text).
const NOT_REVERTED = notStatusSql("status", TRANSFER_REVERTED);
const IS_CONFIRMED = statusSql("status", TRANSFER_CONFIRMED);
export const DEPOSIT_STATS = `SELECT sum(${NOT_REVERTED}) AS deposits, sum(${statusSql("status", TRANSFER_PENDING)}) AS pending,
              max(CASE WHEN ${NOT_REVERTED} THEN seen_at END) AS last,
              sum(CASE WHEN ${IS_CONFIRMED} THEN CAST(substr(amount, 1, max(length(amount) - 12, 0)) AS INTEGER) ELSE 0 END) AS hi,
              sum(CASE WHEN ${IS_CONFIRMED} THEN CAST(substr(amount, max(length(amount) - 11, 1)) AS INTEGER) ELSE 0 END) AS lo
       FROM transfers WHERE address_id = ?1 AND token = ?2 AND unmatched_reason IS NOT 'counterfeit_token'`;

export interface DepositStats {
  deposits: number;
  /** Base units of confirmed deposits. */
  received: string;
  pending: number;
  lastDepositAt: number | null;
}

/**
 * Deposit statistics of one address and token in one aggregate query (an address may have many
 * deposits). Received is summed exactly in two parts (amounts can exceed 64 bits), as in
 * src/payout/balances.ts.
 */
export async function depositStats(db: DbOrTx, addressId: string, token: string): Promise<DepositStats> {
  if (isPg(db)) return await pg.depositStats(pgOf(db), addressId, token);
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

export type WalletBinding = typeof bindings.$inferSelect;

/** A binding by id. */
export async function walletBinding(db: DbOrTx, id: string): Promise<WalletBinding | undefined> {
  if (isPg(db)) return await pg.walletBinding(pgOf(db), id);
  return db.select().from(bindings).where(eq(bindings.id, id)).get();
}

/** The latest deposits of a token to an address, newest first, with the order each paid. */
export async function walletDeposits(db: DbOrTx, addressId: string, token: string, limit: number) {
  if (isPg(db)) return await pg.walletDeposits(pgOf(db), addressId, token, limit);
  return db
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
    .limit(limit)
    .all();
}
