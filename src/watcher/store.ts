// The watcher's storage module: its durable cursor per chain (`chain_cursors`; docs/architecture.md
// "Data access"). The transfers it follows are transfers-store.ts's. `watcher/watcher.ts` calls
// these inside its own write transactions.
import { eq, sql } from "drizzle-orm";
import { type DbOrTx, prepared, writing } from "../db/client";
import { chainCursors } from "../db/schema";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

export type ChainCursor = typeof chainCursors.$inferSelect;

/** The block a chain's watcher stands at (scanned up to), undefined before its first start. */
// Both built once per connection: every watcher tick reads and writes its cursor.
export async function chainCursor(db: DbOrTx, chain: string): Promise<ChainCursor | undefined> {
  if (isPg(db)) return await pg.chainCursor(pgOf(db), chain);
  return prepared(db, "chainCursor", (d) => d.select().from(chainCursors).where(eq(chainCursors.chain, sql.placeholder("chain"))).prepare()).get({ chain });
}

export async function saveChainCursor(tx: DbOrTx, chain: string, blockNumber: number, blockHash: string, now: number): Promise<void> {
  if (isPg(tx)) return await pg.saveChainCursor(pgOf(tx), chain, blockNumber, blockHash, now);
  prepared(writing(tx), "saveChainCursor", (d) =>
    d.$client.prepare<unknown, [string, number, string, number]>(
      `INSERT INTO chain_cursors (chain, block_number, block_hash, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (chain) DO UPDATE SET block_number = excluded.block_number, block_hash = excluded.block_hash, updated_at = excluded.updated_at`,
    ),
  ).run(chain, blockNumber, blockHash, now);
}

/** A chain's first cursor, unless one exists (two gateways starting together: the first one's stands, nothing moves back). */
export async function initChainCursor(tx: DbOrTx, chain: string, blockNumber: number, blockHash: string, now: number): Promise<void> {
  if (isPg(tx)) return await pg.initChainCursor(pgOf(tx), chain, blockNumber, blockHash, now);
  tx.insert(chainCursors).values({ chain, blockNumber, blockHash, updatedAt: now }).onConflictDoNothing().run();
}
