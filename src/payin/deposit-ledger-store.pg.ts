// payin/deposit-ledger-store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
import type { PgQ } from "../db/engine";
import { ledgerEntries } from "../db/schema-pg";

export async function addDepositLedger(tx: PgQ, e: { addressId: string; chain: string; token: string; amount: string; refId: string; now: number }): Promise<void> {
  await tx
    .insert(ledgerEntries)
    .values({ addressId: e.addressId, chain: e.chain, token: e.token, kind: "deposit", amount: e.amount, refType: "transfer", refId: e.refId, createdAt: e.now })
    .onConflictDoNothing();
}
