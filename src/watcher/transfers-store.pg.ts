// watcher/transfers-store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a
// PostgreSQL handle). The same statements; the status lists come from watcher/state.ts.
import { and, desc, eq, gte, inArray, lt, lte, ne, or, sql } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { transfers } from "../db/schema-pg";
import { TRANSFER_PENDING, TRANSFER_REVERTED } from "./state";
import type { TransferBlock, TransferRow } from "./transfers-store";

const pending = () => (TRANSFER_PENDING.length === 1 ? eq(transfers.status, TRANSFER_PENDING[0]!) : inArray(transfers.status, [...TRANSFER_PENDING]));

export async function transferById(db: PgQ, id: number): Promise<TransferRow | undefined> {
  return await firstRow(db.select().from(transfers).where(eq(transfers.id, id)));
}

export async function transferBlockTime(db: PgQ, id: number): Promise<{ blockTime: number } | undefined> {
  return await firstRow(db.select({ blockTime: transfers.blockTime }).from(transfers).where(eq(transfers.id, id)));
}

export async function recentTransfersTo(db: PgQ, addressId: string, token: string, limit: number): Promise<TransferRow[]> {
  return await db
    .select()
    .from(transfers)
    .where(and(eq(transfers.addressId, addressId), eq(transfers.token, token)))
    .orderBy(desc(transfers.blockNumber), desc(transfers.id))
    .limit(limit);
}

export async function transferByKey(tx: PgQ, chain: string, txHash: string, logIndex: number): Promise<TransferRow | undefined> {
  return await firstRow(tx.select().from(transfers).where(and(eq(transfers.chain, chain), eq(transfers.txHash, txHash), eq(transfers.logIndex, logIndex))));
}

export async function insertTransfer(tx: PgQ, values: Record<string, unknown>): Promise<TransferRow> {
  return (await firstRow(tx.insert(transfers).values(values as typeof transfers.$inferInsert).returning()))!;
}

export async function relandTransfer(tx: PgQ, id: number, block: TransferBlock): Promise<TransferRow> {
  return (await firstRow(tx.update(transfers).set({ ...block, status: "pending", confirmations: 1 }).where(eq(transfers.id, id)).returning()))!;
}

export async function moveTransfer(tx: PgQ, id: number, block: TransferBlock): Promise<void> {
  await tx.update(transfers).set(block).where(eq(transfers.id, id));
}

export async function patchTransfer(tx: PgQ, id: number, set: Partial<TransferRow>): Promise<void> {
  await tx.update(transfers).set(set).where(eq(transfers.id, id));
}

export async function revertTransferRow(tx: PgQ, id: number): Promise<void> {
  await tx.update(transfers).set({ status: "reverted", confirmations: 0 }).where(eq(transfers.id, id));
}

export async function pendingTransfers(tx: PgQ, chain: string): Promise<TransferRow[]> {
  return await tx.select().from(transfers).where(and(eq(transfers.chain, chain), eq(transfers.status, "pending"), gte(transfers.blockNumber, 0)));
}

export async function pendingInBlocks(tx: PgQ, chain: string, blocks: number[]): Promise<TransferRow[]> {
  return await tx.select().from(transfers).where(and(eq(transfers.chain, chain), eq(transfers.status, "pending"), inArray(transfers.blockNumber, blocks)));
}

export async function crossingThreshold(tx: PgQ, chain: string, twoAt: number, finalAt: number): Promise<TransferRow[]> {
  return await tx
    .select()
    .from(transfers)
    .where(
      and(
        eq(transfers.chain, chain),
        eq(transfers.status, "pending"),
        gte(transfers.blockNumber, 0),
        lte(transfers.blockNumber, Math.max(twoAt, finalAt)),
        or(lt(transfers.confirmations, 2), lte(transfers.blockNumber, finalAt)),
      ),
    );
}

export async function transactionRecorded(db: PgQ, chain: string, txHash: string): Promise<boolean> {
  const notReverted = TRANSFER_REVERTED.map((s) => ne(transfers.status, s));
  return !!(await firstRow(db.select({ id: transfers.id }).from(transfers).where(and(eq(transfers.chain, chain), eq(transfers.txHash, txHash), ...notReverted)).limit(1)));
}

export async function markFoundBySweep(tx: PgQ, id: number): Promise<void> {
  await patchTransfer(tx, id, { foundBy: "sweep" });
}

export async function showTransferConfirmations(tx: PgQ, chain: string, latest: number): Promise<void> {
  await tx.execute(sql`UPDATE transfers SET confirmations = ${latest}::bigint - block_number + 1
    WHERE chain = ${chain} AND ${pending()} AND block_number >= 0 AND block_number <= ${latest} AND confirmations <> ${latest}::bigint - block_number + 1`);
}

export async function pendingTransferBlocks(db: PgQ, chain: string): Promise<{ n: number; h: string }[]> {
  return await db.selectDistinct({ n: transfers.blockNumber, h: transfers.blockHash }).from(transfers).where(and(eq(transfers.chain, chain), pending(), gte(transfers.blockNumber, 0)));
}
