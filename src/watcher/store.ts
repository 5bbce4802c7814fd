// The watcher's storage module: its durable cursor per chain (`chain_cursors`) and the blocks
// holding pending transfers, whose hashes it checks for reorgs (docs/architecture.md "Data
// access"). `watcher/watcher.ts` calls these inside its own write transactions.
import { eq } from "drizzle-orm";
import type { Db, DbOrTx } from "../db/client";
import { chainCursors } from "../db/schema";
import { statusSql } from "../db/status-sql";
import { TRANSFER_PENDING } from "./state";

export type ChainCursor = typeof chainCursors.$inferSelect;

/** The block a chain's watcher stands at (scanned up to), undefined before its first start. */
export function chainCursor(db: DbOrTx, chain: string): ChainCursor | undefined {
  return db.select().from(chainCursors).where(eq(chainCursors.chain, chain)).get();
}

export function saveChainCursor(tx: DbOrTx, chain: string, blockNumber: number, blockHash: string, now: number): void {
  tx.insert(chainCursors)
    .values({ chain, blockNumber, blockHash, updatedAt: now })
    .onConflictDoUpdate({ target: chainCursors.chain, set: { blockNumber, blockHash, updatedAt: now } })
    .run();
}

/** The blocks (number and hash) holding a chain's pending transfers. */
export const PENDING_TRANSFER_BLOCKS = `SELECT DISTINCT block_number AS n, block_hash AS h FROM transfers WHERE chain = ? AND ${statusSql("status", TRANSFER_PENDING)} AND block_number >= 0`;

export function pendingTransferBlocks(db: Db, chain: string): { n: number; h: string }[] {
  return db.$client.query<{ n: number; h: string }, [string]>(PENDING_TRANSFER_BLOCKS).all(chain);
}
