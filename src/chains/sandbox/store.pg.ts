// chains/sandbox/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL
// handle). The balances are the same trigger-kept sums (sandbox_balance_add in the baseline); a block
// is mined under the chain row's lock (sandboxChainRowForUpdate), so two gateways' /sandbox requests
// never mine one block number twice.
import { and, asc, between, count, eq, gt, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import { firstRow, type PgQ } from "../../db/engine";
import { sandboxAccounts, sandboxAdjustments, sandboxBlocks, sandboxChains, sandboxTransfers } from "../../db/schema-pg";
import { fromHiLo } from "../../db/balance-sum";
import type { NewSandboxTransfer, SandboxChainRow, SandboxTransferRow } from "./store";

export async function ensureSandboxChain(db: PgQ, chain: string, now: number): Promise<void> {
  await db.insert(sandboxChains).values({ chain, height: 0, genesisTime: now, pacedAt: now }).onConflictDoNothing();
  await db.update(sandboxChains).set({ pacedAt: now }).where(and(eq(sandboxChains.chain, chain), isNull(sandboxChains.pacedAt)));
}

export async function sandboxChainRow(db: PgQ, chain: string): Promise<SandboxChainRow> {
  return (await firstRow(db.select().from(sandboxChains).where(eq(sandboxChains.chain, chain))))!;
}

/** The chain's row, locked until the caller's transaction ends (the next block number is taken from it). */
export async function sandboxChainRowForUpdate(db: PgQ, chain: string): Promise<SandboxChainRow> {
  return (await firstRow(db.select().from(sandboxChains).where(eq(sandboxChains.chain, chain)).for("update")))!;
}

export async function sandboxTransferByHash(db: PgQ, chain: string, txHash: string): Promise<SandboxTransferRow | undefined> {
  return await firstRow(db.select().from(sandboxTransfers).where(and(eq(sandboxTransfers.chain, chain), eq(sandboxTransfers.txHash, txHash))).orderBy(asc(sandboxTransfers.logIndex)).limit(1));
}

export async function minedSandboxTransfer(db: PgQ, chain: string, txHash: string): Promise<SandboxTransferRow | undefined> {
  const row = await firstRow(db.select().from(sandboxTransfers).where(and(eq(sandboxTransfers.chain, chain), eq(sandboxTransfers.txHash, txHash), eq(sandboxTransfers.logIndex, 0))));
  return row && row.blockNumber !== null ? row : undefined;
}

export async function insertSandboxTransfer(t: PgQ, row: NewSandboxTransfer): Promise<void> {
  await t.insert(sandboxTransfers).values(row);
}

export async function updateSandboxTransfer(t: PgQ, id: number, set: { blockNumber: number; amount: string; cost: string; failed: number }): Promise<void> {
  await t.update(sandboxTransfers).set(set).where(eq(sandboxTransfers.id, id));
}

export async function insertSandboxBlockIfAbsent(t: PgQ, chain: string, number: number, time: number): Promise<void> {
  await t.insert(sandboxBlocks).values({ chain, number, time }).onConflictDoNothing();
}

export async function mineSandboxBlock(t: PgQ, chain: string, number: number, prevHeight: number, time: number): Promise<void> {
  await t.update(sandboxChains).set({ height: Math.max(number, prevHeight), pacedAt: time }).where(eq(sandboxChains.chain, chain));
  await t.insert(sandboxBlocks).values({ chain, number, time }).onConflictDoUpdate({ target: [sandboxBlocks.chain, sandboxBlocks.number], set: { time } });
}

export async function setSandboxHeight(t: PgQ, chain: string, height: number, pacedAt: number): Promise<void> {
  await t.update(sandboxChains).set({ height, pacedAt }).where(eq(sandboxChains.chain, chain));
}

export async function setFailNextBroadcasts(db: PgQ, chain: string, failNextBroadcasts: number): Promise<void> {
  await db.update(sandboxChains).set({ failNextBroadcasts }).where(eq(sandboxChains.chain, chain));
}

export async function sandboxTransfersIn(db: PgQ, chain: string, from: number, to: number, tokens: string[]) {
  return await db
    .select({ t: sandboxTransfers, time: sandboxBlocks.time })
    .from(sandboxTransfers)
    .innerJoin(sandboxBlocks, and(eq(sandboxBlocks.chain, sandboxTransfers.chain), eq(sandboxBlocks.number, sandboxTransfers.blockNumber)))
    .where(and(eq(sandboxTransfers.chain, chain), between(sandboxTransfers.blockNumber, from, to), inArray(sandboxTransfers.token, tokens), eq(sandboxTransfers.failed, 0)))
    .orderBy(asc(sandboxTransfers.blockNumber), asc(sandboxTransfers.id));
}

export async function sandboxBlockTime(db: PgQ, chain: string, number: number): Promise<number | undefined> {
  return (await firstRow(db.select({ time: sandboxBlocks.time }).from(sandboxBlocks).where(and(eq(sandboxBlocks.chain, chain), eq(sandboxBlocks.number, number)))))?.time;
}

/** hi and lo read as text: exact past 2^53. */
export async function sandboxBalance(t: PgQ, chain: string, address: string, token: string): Promise<bigint> {
  const [r] = (await t.execute(sql`SELECT hi::text AS hi, lo::text AS lo FROM sandbox_balances WHERE chain = ${chain} AND address = ${address} AND token = ${token}`)) as unknown as { hi: string; lo: string }[];
  return r ? fromHiLo(BigInt(r.hi), BigInt(r.lo)) : 0n;
}

export async function moveSandboxBalance(t: PgQ, chain: string, address: string, asset: string, delta: bigint): Promise<void> {
  const amount = (delta < 0n ? -delta : delta).toString();
  await t.execute(sql`INSERT INTO sandbox_balance_moves (chain, address, token, amount, sign) VALUES (${chain}, ${address}, ${asset}, ${amount}, ${delta < 0n ? -1 : 1})`);
}

export async function sandboxAccountState(t: PgQ, chain: string, address: string): Promise<string | undefined> {
  return (await firstRow(t.select({ s: sandboxAccounts.state }).from(sandboxAccounts).where(and(eq(sandboxAccounts.chain, chain), eq(sandboxAccounts.address, address)))))?.s;
}

export async function putSandboxAccountState(t: PgQ, chain: string, address: string, state: string): Promise<void> {
  await t.insert(sandboxAccounts).values({ chain, address, state }).onConflictDoUpdate({ target: [sandboxAccounts.chain, sandboxAccounts.address], set: { state } });
}

export async function adjustSandboxBalance(t: PgQ, chain: string, blockNumber: number, address: string, token: string, delta: bigint): Promise<void> {
  await t.insert(sandboxAdjustments).values({ chain, blockNumber, address, token, delta: delta.toString() });
  await moveSandboxBalance(t, chain, address, token, delta);
}

export async function cutSandboxChain(t: PgQ, chain: string, cut: number, reorgCuts: string, pacedAt: number): Promise<void> {
  await t.delete(sandboxTransfers).where(and(eq(sandboxTransfers.chain, chain), gt(sandboxTransfers.blockNumber, cut)));
  const dropped = and(eq(sandboxAdjustments.chain, chain), gt(sandboxAdjustments.blockNumber, cut));
  for (const a of await t.select().from(sandboxAdjustments).where(dropped)) await moveSandboxBalance(t, chain, a.address, a.token, -BigInt(a.delta));
  await t.delete(sandboxAdjustments).where(dropped);
  await t.delete(sandboxBlocks).where(and(eq(sandboxBlocks.chain, chain), gt(sandboxBlocks.number, cut)));
  await t.update(sandboxChains).set({ height: cut, reorgCuts, pacedAt }).where(eq(sandboxChains.chain, chain));
}

export async function sandboxOutgoingCount(db: PgQ, chain: string, from: string): Promise<number> {
  return (await firstRow(db.select({ n: count() }).from(sandboxTransfers).where(and(eq(sandboxTransfers.chain, chain), eq(sandboxTransfers.fromAddress, from), isNotNull(sandboxTransfers.blockNumber)))))!.n;
}

export async function sandboxTransactionRows(db: PgQ, chain: string, txHash: string) {
  return await db
    .select({ t: sandboxTransfers, time: sandboxBlocks.time })
    .from(sandboxTransfers)
    .leftJoin(sandboxBlocks, and(eq(sandboxBlocks.chain, sandboxTransfers.chain), eq(sandboxBlocks.number, sandboxTransfers.blockNumber)))
    .where(and(eq(sandboxTransfers.chain, chain), eq(sandboxTransfers.txHash, txHash)))
    .orderBy(asc(sandboxTransfers.logIndex));
}
