// The Solana module's storage module (docs/architecture.md "Data access"): `sol_token_accounts`,
// one row per receiving address whose token accounts the gas wallet creates (`token-accounts.ts`).
import { and, eq, inArray, sql } from "drizzle-orm";
import { prepared, writing, type DbOrTx, type Tx } from "../../db/client";
import { solTokenAccounts } from "../../db/schema";
import { isPg, pgOf, pgSide } from "../../db/engine";
import { UNFINISHED } from "./token-account-status";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

export type SolTokenAccountRow = typeof solTokenAccounts.$inferSelect;

/** Queues again every finished row whose mints are not `mints` (or unrecorded); how many. */
export async function requeueForOtherMints(db: DbOrTx, now: number, mints: string): Promise<number> {
  if (isPg(db)) return await pg.requeueForOtherMints(pgOf(db), now, mints);
  return prepared(writing(db), "solRequeueForMints", (d) =>
    d.$client.prepare<unknown, [number, string]>(`UPDATE sol_token_accounts SET status = 'pending', updated_at = ? WHERE status IN ('created', 'existed') AND (mints IS NULL OR mints <> ?)`),
  ).run(now, mints).changes;
}

/** Adds a pending row for every live SOL receiving address that has none; how many. */
export async function insertPendingRows(db: DbOrTx, now: number): Promise<number> {
  if (isPg(db)) return await pg.insertPendingRows(pgOf(db), now);
  return prepared(writing(db), "solEnqueueNewAddresses", (d) =>
    d.$client.prepare<unknown, [number, number]>(
      `INSERT INTO sol_token_accounts (address_id, owner, status, created_at, updated_at)
       SELECT a.id, a.address, 'pending', ?, ? FROM addresses a
       WHERE a.chain = 'SOL' AND a.kind IN ('shared', 'exclusive') AND a.deleted_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM sol_token_accounts s WHERE s.address_id = a.id)`,
    ),
  ).run(now, now).changes;
}

/** Patches the row of one address inside the caller's transaction. */
export async function patchTokenAccount(tx: Tx, addressId: string, set: Partial<SolTokenAccountRow>): Promise<void> {
  if (isPg(tx)) return await pg.patchTokenAccount(pgOf(tx), addressId, set);
  tx.update(solTokenAccounts).set(set).where(eq(solTokenAccounts.addressId, addressId)).run();
}

/** Up to `limit` unfinished rows, oldest first. */
export async function unfinishedTokenAccounts(db: DbOrTx, limit: number): Promise<SolTokenAccountRow[]> {
  if (isPg(db)) return await pg.unfinishedTokenAccounts(pgOf(db), limit);
  return db.select().from(solTokenAccounts).where(inArray(solTokenAccounts.status, UNFINISHED)).orderBy(sql`${solTokenAccounts.createdAt}`).limit(limit).all();
}

export async function tokenAccountOf(db: DbOrTx, addressId: string): Promise<SolTokenAccountRow | undefined> {
  if (isPg(db)) return await pg.tokenAccountOf(pgOf(db), addressId);
  return db.select().from(solTokenAccounts).where(and(eq(solTokenAccounts.addressId, addressId))).get();
}

/** Rent and fee of every row whose accounts the gateway created. */
export async function createdTokenAccountCosts(db: DbOrTx): Promise<{ rent: string; fee: string }[]> {
  if (isPg(db)) return await pg.createdTokenAccountCosts(pgOf(db));
  return db.select({ rent: solTokenAccounts.rentLamports, fee: solTokenAccounts.feeLamports }).from(solTokenAccounts).where(eq(solTokenAccounts.status, "created")).all();
}
