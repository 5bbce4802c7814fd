// The sandbox chain's storage module: its blocks, transfers, the rules' accounts and
// adjustments, and the trigger-kept balances (docs/architecture.md "Data access").
// `chains/sandbox/chain.ts` (SandboxChain) calls these; it passes the handle, so its
// write transactions stay where they are.
import { and, asc, eq, gt, isNotNull, isNull, sql } from "drizzle-orm";
import { type Db, prepared, rowColumns, type Tx, writing } from "../../db/client";
import { sandboxAccounts, sandboxAdjustments, sandboxBlocks, sandboxChains, sandboxTransfers } from "../../db/schema";
import { fromHiLo } from "../../db/balance-sum";
import { isPg, pgOf, pgSide } from "../../db/engine";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

export type SandboxChainRow = typeof sandboxChains.$inferSelect;
export type SandboxTransferRow = typeof sandboxTransfers.$inferSelect;
export type NewSandboxTransfer = typeof sandboxTransfers.$inferInsert;

/** A mined balance (sandbox_balances, kept by triggers on sandbox_transfers). */
export const SANDBOX_BALANCE = "SELECT hi, lo FROM sandbox_balances WHERE chain = ? AND address = ? AND token = ?";

/** The chain's row, made at height 0 on first use; a row without a pace anchor (before 0580) is anchored at `now`. */
export async function ensureSandboxChain(db: Db, chain: string, now: number): Promise<void> {
  if (isPg(db)) return await pg.ensureSandboxChain(pgOf(db), chain, now);
  db.insert(sandboxChains).values({ chain, height: 0, genesisTime: now, pacedAt: now }).onConflictDoNothing().run();
  db.update(sandboxChains).set({ pacedAt: now }).where(and(eq(sandboxChains.chain, chain), isNull(sandboxChains.pacedAt))).run();
}

// The chain's row and a block's time: built once per connection (the watcher and the miner read them many times a second).
export async function sandboxChainRow(db: Db, chain: string): Promise<SandboxChainRow> {
  if (isPg(db)) return await pg.sandboxChainRow(pgOf(db), chain);
  return prepared(db, "sandboxChainRow", (d) => d.select().from(sandboxChains).where(eq(sandboxChains.chain, sql.placeholder("chain"))).prepare()).get({ chain })!;
}

/** The chain's row in a write transaction that takes the next block number from it (PostgreSQL locks the row; SQLite has one writer). */
export async function sandboxChainRowForUpdate(db: Tx, chain: string): Promise<SandboxChainRow> {
  if (isPg(db)) return await pg.sandboxChainRowForUpdate(pgOf(db), chain);
  return await sandboxChainRow(db, chain);
}

/** A transaction of the chain by hash (any log index), mined or not. */
export async function sandboxTransferByHash(db: Db, chain: string, txHash: string): Promise<SandboxTransferRow | undefined> {
  if (isPg(db)) return await pg.sandboxTransferByHash(pgOf(db), chain, txHash);
  return db.select().from(sandboxTransfers).where(and(eq(sandboxTransfers.chain, chain), eq(sandboxTransfers.txHash, txHash))).get();
}

/** The transaction's first transfer (log index 0), when mined. */
export async function minedSandboxTransfer(db: Db, chain: string, txHash: string): Promise<SandboxTransferRow | undefined> {
  if (isPg(db)) return await pg.minedSandboxTransfer(pgOf(db), chain, txHash);
  const row = db.select().from(sandboxTransfers).where(and(eq(sandboxTransfers.chain, chain), eq(sandboxTransfers.txHash, txHash), eq(sandboxTransfers.logIndex, 0))).get();
  return row && row.blockNumber !== null ? row : undefined;
}

export async function insertSandboxTransfer(t: Db, row: NewSandboxTransfer): Promise<void> {
  if (isPg(t)) return await pg.insertSandboxTransfer(pgOf(t), row);
  t.insert(sandboxTransfers).values(row).run();
}

/** A pending transaction mined: its block, what it moved and cost, whether it failed. */
export async function updateSandboxTransfer(t: Tx, id: number, set: { blockNumber: number; amount: string; cost: string; failed: number }): Promise<void> {
  if (isPg(t)) return await pg.updateSandboxTransfer(pgOf(t), id, set);
  t.update(sandboxTransfers).set(set).where(eq(sandboxTransfers.id, id)).run();
}

/** A block, unless one of that number exists (genesis). */
export async function insertSandboxBlockIfAbsent(t: Db, chain: string, number: number, time: number): Promise<void> {
  if (isPg(t)) return await pg.insertSandboxBlockIfAbsent(pgOf(t), chain, number, time);
  t.insert(sandboxBlocks).values({ chain, number, time }).onConflictDoNothing().run();
}

/** Mines block `number` at `time`: the height moves to it (never back) and the pace restarts from `time`; the block row is written. */
export async function mineSandboxBlock(t: Tx, chain: string, number: number, prevHeight: number, time: number): Promise<void> {
  if (isPg(t)) return await pg.mineSandboxBlock(pgOf(t), chain, number, prevHeight, time);
  t.update(sandboxChains).set({ height: Math.max(number, prevHeight), pacedAt: time }).where(eq(sandboxChains.chain, chain)).run();
  t.insert(sandboxBlocks).values({ chain, number, time }).onConflictDoUpdate({ target: [sandboxBlocks.chain, sandboxBlocks.number], set: { time } }).run();
}

/** The chain stands at `height` at `pacedAt` (a paced chain's head moves on from there). */
export async function setSandboxHeight(t: Tx, chain: string, height: number, pacedAt: number): Promise<void> {
  if (isPg(t)) return await pg.setSandboxHeight(pgOf(t), chain, height, pacedAt);
  t.update(sandboxChains).set({ height, pacedAt }).where(eq(sandboxChains.chain, chain)).run();
}

/** DESIGN 8: how many of the next payout broadcasts fail. */
export async function setFailNextBroadcasts(db: Db, chain: string, failNextBroadcasts: number): Promise<void> {
  if (isPg(db)) return await pg.setFailNextBroadcasts(pgOf(db), chain, failNextBroadcasts);
  db.update(sandboxChains).set({ failNextBroadcasts }).where(eq(sandboxChains.chain, chain)).run();
}

/**
 * Mined, not failed transfers of `tokens` in blocks from..to, with their block's time, in chain order.
 * Built once per connection (per token count): every sandbox scan runs it, and drizzle compiled it on
 * every call. `chain = +?` and the literal `failed = 0`: a bare parameter in an equality the ORDER BY
 * rests on makes bun's SQLite prepare the statement again on every run (db/client.ts `prepared`).
 */
export async function sandboxTransfersIn(db: Db, chain: string, from: number, to: number, tokens: string[]): Promise<Array<{ t: typeof sandboxTransfers.$inferSelect; time: number }>> {
  if (isPg(db)) return await pg.sandboxTransfersIn(pgOf(db), chain, from, to, tokens);
  if (!tokens.length) return [];
  const q = prepared(db, `sandboxTransfersIn:${tokens.length}`, (d) =>
    d.$client.prepare<typeof sandboxTransfers.$inferSelect & { __time: number }, Array<string | number>>(
      `SELECT ${rowColumns(sandboxTransfers, "t")}, b.time AS "__time"
       FROM sandbox_transfers t JOIN sandbox_blocks b ON b.chain = t.chain AND b.number = t.block_number
       WHERE t.chain = +? AND t.block_number BETWEEN ? AND ? AND t.token IN (${tokens.map(() => "?").join(", ")}) AND t.failed = 0
       ORDER BY t.block_number, t.id`,
    ),
  );
  return q.all(chain, from, to, ...tokens).map(({ __time, ...t }) => ({ t, time: __time }));
}

/** A block's time, if it was mined. */
export async function sandboxBlockTime(db: Db, chain: string, number: number): Promise<number | undefined> {
  if (isPg(db)) return await pg.sandboxBlockTime(pgOf(db), chain, number);
  return prepared(db, "sandboxBlockTime", (d) =>
    d.select().from(sandboxBlocks).where(and(eq(sandboxBlocks.chain, sql.placeholder("chain")), eq(sandboxBlocks.number, sql.placeholder("number")))).prepare(),
  ).get({ chain, number })?.time;
}

/** Mined transfers in and out, summed by triggers into sandbox_balances (one seek, not the address's history). */
export async function sandboxBalance(t: Db, chain: string, address: string, token: string): Promise<bigint> {
  if (isPg(t)) return await pg.sandboxBalance(pgOf(t), chain, address, token);
  const q = t.$client.query<{ hi: bigint; lo: bigint }, [string, string, string]>(SANDBOX_BALANCE);
  q.safeIntegers(true);
  const r = q.get(chain, address, token);
  return r ? fromHiLo(r.hi, r.lo) : 0n;
}

/** Changes a trigger-kept balance directly (sandbox_balance_moves applies it). */
export async function moveSandboxBalance(t: Tx, chain: string, address: string, asset: string, delta: bigint): Promise<void> {
  if (isPg(t)) return await pg.moveSandboxBalance(pgOf(t), chain, address, asset, delta);
  writing(t).$client.run("INSERT INTO sandbox_balance_moves (chain, address, token, amount, sign) VALUES (?, ?, ?, ?, ?)", [chain, address, asset, (delta < 0n ? -delta : delta).toString(), delta < 0n ? -1 : 1]);
}

/** The rules' stored state of an account (JSON), if any. */
export async function sandboxAccountState(t: Db, chain: string, address: string): Promise<string | undefined> {
  if (isPg(t)) return await pg.sandboxAccountState(pgOf(t), chain, address);
  return t.select({ s: sandboxAccounts.state }).from(sandboxAccounts).where(and(eq(sandboxAccounts.chain, chain), eq(sandboxAccounts.address, address))).get()?.s;
}

export async function putSandboxAccountState(t: Tx, chain: string, address: string, state: string): Promise<void> {
  if (isPg(t)) return await pg.putSandboxAccountState(pgOf(t), chain, address, state);
  t.insert(sandboxAccounts).values({ chain, address, state }).onConflictDoUpdate({ target: [sandboxAccounts.chain, sandboxAccounts.address], set: { state } }).run();
}

/** A balance change the rules made in block `blockNumber` (a fee, a stake), undone by a reorg. */
export async function adjustSandboxBalance(t: Tx, chain: string, blockNumber: number, address: string, token: string, delta: bigint): Promise<void> {
  if (isPg(t)) return await pg.adjustSandboxBalance(pgOf(t), chain, blockNumber, address, token, delta);
  t.insert(sandboxAdjustments).values({ chain, blockNumber, address, token, delta: delta.toString() }).run();
  await moveSandboxBalance(t, chain, address, token, delta);
}

/**
 * Drops the blocks above `cut` and their transfers; the rules' balance changes in them come
 * back (their account state stays: sandbox simplification); the chain stands at `cut` at
 * `pacedAt` with `reorgCuts` (JSON) recorded.
 */
export async function cutSandboxChain(t: Tx, chain: string, cut: number, reorgCuts: string, pacedAt: number): Promise<void> {
  if (isPg(t)) return await pg.cutSandboxChain(pgOf(t), chain, cut, reorgCuts, pacedAt);
  t.delete(sandboxTransfers).where(and(eq(sandboxTransfers.chain, chain), gt(sandboxTransfers.blockNumber, cut))).run();
  const dropped = and(eq(sandboxAdjustments.chain, chain), gt(sandboxAdjustments.blockNumber, cut));
  for (const a of t.select().from(sandboxAdjustments).where(dropped).all()) await moveSandboxBalance(t, chain, a.address, a.token, -BigInt(a.delta));
  t.delete(sandboxAdjustments).where(dropped).run();
  t.delete(sandboxBlocks).where(and(eq(sandboxBlocks.chain, chain), gt(sandboxBlocks.number, cut))).run();
  t.update(sandboxChains).set({ height: cut, reorgCuts, pacedAt }).where(eq(sandboxChains.chain, chain)).run();
}

/** How many mined transfers the chain carried from `from`. */
export async function sandboxOutgoingCount(db: Db, chain: string, from: string): Promise<number> {
  if (isPg(db)) return await pg.sandboxOutgoingCount(pgOf(db), chain, from);
  return db.select({ n: sql<number>`count(*)` }).from(sandboxTransfers).where(and(eq(sandboxTransfers.chain, chain), eq(sandboxTransfers.fromAddress, from), isNotNull(sandboxTransfers.blockNumber))).get()!.n;
}

/** Every row of one transaction (each log index), with its block's time once mined. */
export async function sandboxTransactionRows(db: Db, chain: string, txHash: string) {
  if (isPg(db)) return await pg.sandboxTransactionRows(pgOf(db), chain, txHash);
  return db
    .select({ t: sandboxTransfers, time: sandboxBlocks.time })
    .from(sandboxTransfers)
    .leftJoin(sandboxBlocks, and(eq(sandboxBlocks.chain, sandboxTransfers.chain), eq(sandboxBlocks.number, sandboxTransfers.blockNumber)))
    .where(and(eq(sandboxTransfers.chain, chain), eq(sandboxTransfers.txHash, txHash)))
    .orderBy(asc(sandboxTransfers.logIndex))
    .all();
}
