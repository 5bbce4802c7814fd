// Transfers (transfers): the rows the watcher writes as it sees, confirms and loses them in reorgs,
// next to their statuses (watcher/state.ts). Pay-ins (payin/deposits.ts, the watcher's port),
// the sweep, operator actions and refunds read and write them here (every reader ranks above the
// watcher). An unmatched deposit's resolution is payin/unmatched-store.ts's.
import { and, desc, eq, gte, inArray, lt, lte, or, sql } from "drizzle-orm";
import { type Db, type DbOrTx, prepared, writing, type Tx, updateById } from "../db/client";
import { transfers } from "../db/schema";
import { notStatusSql, statusSql, statusTerm } from "../db/status-sql";
import { TRANSFER_PENDING, TRANSFER_REVERTED } from "./state";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./transfers-store.pg")>(() => require("./transfers-store.pg"));

/** A transfer by id. */
export async function transferById(db: DbOrTx, id: number): Promise<TransferRow | undefined> {
  if (isPg(db)) return await pg.transferById(pgOf(db), id);
  return db.select().from(transfers).where(eq(transfers.id, id)).get();
}

/** The block time of a transfer (a hold's "late"). */
export async function transferBlockTime(db: DbOrTx, id: number): Promise<{ blockTime: number } | undefined> {
  if (isPg(db)) return await pg.transferBlockTime(pgOf(db), id);
  return db.select({ blockTime: transfers.blockTime }).from(transfers).where(eq(transfers.id, id)).get();
}

/** The latest transfers of a token to an address (a binding's detail). */
export async function recentTransfersTo(db: DbOrTx, addressId: string, token: string, limit: number): Promise<TransferRow[]> {
  if (isPg(db)) return await pg.recentTransfersTo(pgOf(db), addressId, token, limit);
  return db
    .select()
    .from(transfers)
    .where(and(eq(transfers.addressId, addressId), eq(transfers.token, token)))
    .orderBy(desc(transfers.blockNumber), desc(transfers.id))
    .limit(limit)
    .all();
}

export type TransferRow = typeof transfers.$inferSelect;
/** Where a transfer landed. */
export interface TransferBlock {
  blockNumber: number;
  blockHash: string;
  blockTime: number;
}

/** A transfer by its chain, tx hash and log index (the idempotency key of a scan). */
export async function transferByKey(tx: DbOrTx, chain: string, txHash: string, logIndex: number): Promise<TransferRow | undefined> {
  if (isPg(tx)) return await pg.transferByKey(pgOf(tx), chain, txHash, logIndex);
  return prepared(tx, "transferByKey", (d) =>
    d
      .select()
      .from(transfers)
      .where(and(eq(transfers.chain, sql.placeholder("c")), eq(transfers.txHash, sql.placeholder("h")), eq(transfers.logIndex, sql.placeholder("i"))))
      .prepare(),
  ).get({ c: chain, h: txHash, i: logIndex });
}

/** A new transfer row. */
export async function insertTransfer(tx: Tx, values: Record<string, unknown>): Promise<TransferRow> {
  if (isPg(tx)) return await pg.insertTransfer(pgOf(tx), values);
  return prepared(writing(tx), "insertTransfer", (d) =>
    d
      .insert(transfers)
      .values(Object.fromEntries(Object.keys(values).map((k) => [k, sql.placeholder(k)])) as never)
      .returning()
      .prepare(),
  ).get(values) as TransferRow;
}

/** A reverted transfer landed again: pending at its new block, one confirmation. */
export async function relandTransfer(tx: Tx, id: number, block: TransferBlock): Promise<TransferRow> {
  if (isPg(tx)) return await pg.relandTransfer(pgOf(tx), id, block);
  return tx.update(transfers).set({ ...block, status: "pending", confirmations: 1 }).where(eq(transfers.id, id)).returning().get();
}

/** A pending transfer moved to another block (same transaction, another block hash). */
export async function moveTransfer(tx: Tx, id: number, block: TransferBlock): Promise<void> {
  if (isPg(tx)) return await pg.moveTransfer(pgOf(tx), id, block);
  tx.update(transfers).set(block).where(eq(transfers.id, id)).run();
}

/** Writes `set` on the transfer (its disposition, its confirmations). */
export async function patchTransfer(tx: Tx, id: number, set: Partial<TransferRow>): Promise<void> {
  if (isPg(tx)) return await pg.patchTransfer(pgOf(tx), id, set);
  await updateById(tx, transfers, id, set);
}

/** A reorg took the transfer away. */
export async function revertTransferRow(tx: Tx, id: number): Promise<void> {
  if (isPg(tx)) return await pg.revertTransferRow(pgOf(tx), id);
  tx.update(transfers).set({ status: "reverted", confirmations: 0 }).where(eq(transfers.id, id)).run();
}

export async function pendingTransfers(tx: DbOrTx, chain: string): Promise<TransferRow[]> {
  if (isPg(tx)) return await pg.pendingTransfers(pgOf(tx), chain);
  return tx.select().from(transfers).where(and(eq(transfers.chain, chain), eq(transfers.status, "pending"), gte(transfers.blockNumber, 0))).all();
}

/** Pending transfers of the given blocks (a reorg changed them). */
export async function pendingInBlocks(tx: Tx, chain: string, blocks: number[]): Promise<TransferRow[]> {
  if (isPg(tx)) return await pg.pendingInBlocks(pgOf(tx), chain, blocks);
  return tx.select().from(transfers).where(and(eq(transfers.chain, chain), eq(transfers.status, "pending"), inArray(transfers.blockNumber, blocks))).all();
}

/**
 * Pending transfers whose state moves this tick: reaching 2 confirmations (block ≤ twoAt, still
 * counted below 2) or final (block ≤ finalAt). Each transfer is returned at most twice in its life.
 */
export async function crossingThreshold(tx: Tx, chain: string, twoAt: number, finalAt: number): Promise<TransferRow[]> {
  if (isPg(tx)) return await pg.crossingThreshold(pgOf(tx), chain, twoAt, finalAt);
  return prepared(tx, "transfersCrossing", (d) =>
    d
      .select()
      .from(transfers)
      .where(
        and(
          eq(transfers.chain, sql.placeholder("chain")),
          eq(transfers.status, "pending"),
          gte(transfers.blockNumber, 0),
          lte(transfers.blockNumber, sql.placeholder("twoAt")),
          or(lt(transfers.confirmations, 2), lte(transfers.blockNumber, sql.placeholder("finalAt"))),
        ),
      )
      .prepare(),
  ).all({ chain, twoAt: Math.max(twoAt, finalAt), finalAt });
}

/** Whether the chain's transaction is recorded (and not reverted by a reorg): the sweep need not read it again. */
export async function transactionRecorded(db: DbOrTx, chain: string, txHash: string): Promise<boolean> {
  if (isPg(db)) return await pg.transactionRecorded(pgOf(db), chain, txHash);
  return !!prepared(db, "transactionRecorded", (d) =>
    d.$client.prepare<{ 1: number }, [string, string]>(`SELECT 1 FROM transfers WHERE chain = ? AND tx_hash = ? AND ${notStatusSql("status", TRANSFER_REVERTED)} LIMIT 1`),
  ).get(chain, txHash);
}

/** The sweep recorded this transfer: the scan missed it (alert scan_missed). */
export async function markFoundBySweep(tx: Tx, id: number): Promise<void> {
  if (isPg(tx)) return await pg.markFoundBySweep(pgOf(tx), id);
  await patchTransfer(tx, id, { foundBy: "sweep" });
}

// The displayed confirmation counts of pending transfers; the status comes from watcher/state.ts
// (transfers-store.test.ts holds the text). payin/orders-store.ts showConfirmations runs it before its orders' count.
const TRANSFER_IS_PENDING = statusTerm(TRANSFER_PENDING);
export const SHOW_TRANSFER_CONFS = `UPDATE transfers SET confirmations = ?1 - block_number + 1
       WHERE chain = ?2 AND status ${TRANSFER_IS_PENDING} AND block_number >= 0 AND block_number <= ?1 AND confirmations <> ?1 - block_number + 1`;

/** The displayed confirmation counts of a chain's pending transfers: one set-based statement. */
export async function showTransferConfirmations(tx: Tx, chain: string, latest: number): Promise<void> {
  if (isPg(tx)) return await pg.showTransferConfirmations(pgOf(tx), chain, latest);
  prepared(writing(tx), "displayTransferConfs", (d) => d.$client.prepare(SHOW_TRANSFER_CONFS)).run(latest, chain);
}

/**
 * The blocks (number and hash) holding a chain's pending transfers (the watcher checks their hashes for reorgs).
 * `chain = +?`: with a bare `?` beside DISTINCT, bun's SQLite prepared it again on every tick (~30 µs; db/client.ts `prepared`).
 */
export const PENDING_TRANSFER_BLOCKS = `SELECT DISTINCT block_number AS n, block_hash AS h FROM transfers WHERE chain = +? AND ${statusSql("status", TRANSFER_PENDING)} AND block_number >= 0`;

export async function pendingTransferBlocks(db: Db, chain: string): Promise<{ n: number; h: string }[]> {
  if (isPg(db)) return await pg.pendingTransferBlocks(pgOf(db), chain);
  return db.$client.query<{ n: number; h: string }, [string]>(PENDING_TRANSFER_BLOCKS).all(chain);
}
