// chains/sol/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { firstRow, type PgQ } from "../../db/engine";
import { solTokenAccounts } from "../../db/schema-pg";
import type { SolTokenAccountRow } from "./store";
import { UNFINISHED } from "./token-account-status";

const changed = (rows: unknown) => (rows as unknown[]).length;

export async function requeueForOtherMints(db: PgQ, now: number, mints: string): Promise<number> {
  return changed(
    await db.execute(sql`UPDATE sol_token_accounts SET status = 'pending', updated_at = ${now}
      WHERE status IN ('created', 'existed') AND (mints IS NULL OR mints <> ${mints}) RETURNING 1`),
  );
}

export async function insertPendingRows(db: PgQ, now: number): Promise<number> {
  return changed(
    await db.execute(sql`INSERT INTO sol_token_accounts (address_id, owner, status, created_at, updated_at)
      SELECT a.id, a.address, 'pending', ${now}, ${now} FROM addresses a
      WHERE a.chain = 'SOL' AND a.kind IN ('shared', 'exclusive') AND a.deleted_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM sol_token_accounts s WHERE s.address_id = a.id)
      ON CONFLICT DO NOTHING RETURNING 1`),
  );
}

export async function patchTokenAccount(tx: PgQ, addressId: string, set: Partial<SolTokenAccountRow>): Promise<void> {
  await tx.update(solTokenAccounts).set(set).where(eq(solTokenAccounts.addressId, addressId));
}

export async function unfinishedTokenAccounts(db: PgQ, limit: number): Promise<SolTokenAccountRow[]> {
  return await db.select().from(solTokenAccounts).where(inArray(solTokenAccounts.status, UNFINISHED)).orderBy(asc(solTokenAccounts.createdAt)).limit(limit);
}

export async function tokenAccountOf(db: PgQ, addressId: string): Promise<SolTokenAccountRow | undefined> {
  return await firstRow(db.select().from(solTokenAccounts).where(and(eq(solTokenAccounts.addressId, addressId))));
}

export async function createdTokenAccountCosts(db: PgQ): Promise<{ rent: string; fee: string }[]> {
  return await db.select({ rent: solTokenAccounts.rentLamports, fee: solTokenAccounts.feeLamports }).from(solTokenAccounts).where(eq(solTokenAccounts.status, "created"));
}
