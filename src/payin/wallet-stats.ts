// Exclusive wallets (bindings) with their deposit statistics, for the back
// office. Scoped: a merchant id limits every query to that merchant's wallets.
// The statements are payin/wallet-stats-store.ts's (both engines).
import type { DbOrTx } from "../db/client";
import { mapSeq } from "../lib/async-seq";
import { depositStats, walletBinding, walletDeposits, walletListRows, type DepositStats, type WalletListRow, type WalletScope } from "./wallet-stats-store";

export { DEPOSIT_STATS } from "./wallet-stats-store";

/** A wallet of the page with its deposit statistics. */
export type WalletRow = Omit<WalletListRow, "addressId"> & DepositStats;

export async function exclusiveWallets(db: DbOrTx, scope: WalletScope): Promise<WalletRow[]> {
  const rows = await walletListRows(db, scope);
  return await mapSeq(rows, async ({ addressId, ...r }) => ({ ...r, ...await depositStats(db, addressId, r.token) }));
}

/** One wallet and its latest deposits (newest first), or undefined when not in scope. */
export async function walletWithDeposits(db: DbOrTx, id: string, scope: { merchantId?: number }, limit = 50) {
  const b = await walletBinding(db, id);
  if (!b || (scope.merchantId !== undefined && b.merchantId !== scope.merchantId)) return undefined;
  const wallet = (await exclusiveWallets(db, { merchantId: b.merchantId, q: b.bindKey })).find((w) => w.id === id)!;
  const deposits = await walletDeposits(db, b.addressId, b.token, limit);
  return { wallet, deposits };
}
