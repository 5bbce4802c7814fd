// The watcher's storage module: its durable cursor per chain (`chain_cursors`; docs/architecture.md
// "Data access"). The transfers it follows are transfers-store.ts's. `watcher/watcher.ts` calls
// these inside its own write transactions.
import { eq } from "drizzle-orm";
import type { DbOrTx } from "../db/client";
import { chainCursors } from "../db/schema";

export type ChainCursor = typeof chainCursors.$inferSelect;

/** The block a chain's watcher stands at (scanned up to), undefined before its first start. */
export async function chainCursor(db: DbOrTx, chain: string): Promise<ChainCursor | undefined> {
  return db.select().from(chainCursors).where(eq(chainCursors.chain, chain)).get();
}

export async function saveChainCursor(tx: DbOrTx, chain: string, blockNumber: number, blockHash: string, now: number): Promise<void> {
  tx.insert(chainCursors)
    .values({ chain, blockNumber, blockHash, updatedAt: now })
    .onConflictDoUpdate({ target: chainCursors.chain, set: { blockNumber, blockHash, updatedAt: now } })
    .run();
}
