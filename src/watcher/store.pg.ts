// watcher/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
import { eq } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { chainCursors } from "../db/schema-pg";
import type { ChainCursor } from "./store";

export async function chainCursor(db: PgQ, chain: string): Promise<ChainCursor | undefined> {
  return await firstRow(db.select().from(chainCursors).where(eq(chainCursors.chain, chain)));
}

export async function saveChainCursor(tx: PgQ, chain: string, blockNumber: number, blockHash: string, now: number): Promise<void> {
  await tx
    .insert(chainCursors)
    .values({ chain, blockNumber, blockHash, updatedAt: now })
    .onConflictDoUpdate({ target: chainCursors.chain, set: { blockNumber, blockHash, updatedAt: now } });
}
