// Solana receiving addresses get their token accounts (an ATA per configured mint: USDC, USDT)
// up front, paid by the gas wallet: some payers' tools (exchange withdrawals, older wallets)
// refuse to send to a wallet without one. One row per address in sol_token_accounts walks
// pending → signed → broadcasted → created (or existed, when someone else made them all first).
// The transaction is stored before it is broadcast; a blockhash that expired without landing is
// the only reason to sign again. A finished row records the mints it covers: when the configured
// mints change (a token added), the row is queued again and only the missing accounts are made.
// Every creation that lands records its cost (fee + rent, DESIGN 21) with the row's update.
import type { ChainModuleCtx } from "../module";
import { writeTx, type Tx } from "../../db/client";
import { createdTokenAccountCosts, insertPendingRows, patchTokenAccount, requeueForOtherMints, tokenAccountOf, unfinishedTokenAccounts, type SolTokenAccountRow } from "./store";
import type { SolAdapter, SolCreateAccountsMeta } from "./adapter";
import type { SignedTransfer } from "../types";
import type { AddressBook } from "../payout-steps";
import { costOf, recordCost } from "../common/costs";
import { isPg, pgSide } from "../../db/engine";

/** The epoch fence (DESIGN 22): PostgreSQL only (SQLite has one gateway), loaded there on first use. */
const fence = pgSide<typeof import("../../cluster/fence")>(() => require("../../cluster/fence"));

type Ctx = ChainModuleCtx;
type Row = SolTokenAccountRow;

/** Rows handled per run, so a burst of new addresses cannot hold the job for long. */
const BATCH = 25;

/** The configured mints, as a finished row records them. */
export const mintSet = (adapter: Pick<SolAdapter, "tokens">): string => [...new Set(adapter.tokens.map((t) => t.contract))].sort().join(",");

/** Databases whose finished rows were checked against the configured mints (once per process). */
const checkedMints = new WeakMap<object, string>();

/**
 * Queues again every finished row whose mints are not the configured ones (a token added, or a
 * row from before rows recorded their mints); returns how many. The job runs it once per process.
 */
export async function requeueForMints(ctx: Ctx, adapter: Pick<SolAdapter, "tokens">, o: { again?: boolean } = {}): Promise<number> {
  const mints = mintSet(adapter);
  if (!o.again && checkedMints.get(ctx.db) === mints) return 0;
  const changes = await writeTx(ctx.db, async (tx) => await requeueForOtherMints(tx, ctx.clock.now(), mints));
  checkedMints.set(ctx.db, mints);
  return changes;
}

/** Adds a pending row for every SOL receiving address that has none; returns how many. */
export async function enqueueNewAddresses(ctx: Ctx): Promise<number> {
  return await writeTx(ctx.db, async (tx) => await insertPendingRows(tx, ctx.clock.now()));
}

async function update(ctx: Ctx, addressId: string, fields: Partial<Row>, also?: (tx: Tx) => Promise<void>): Promise<void> {
  await writeTx(ctx.db, async (tx) => {
    // The epoch fence first where a signed transaction is stored (DESIGN 22): a deposed leader stores none.
    if (fields.signedTx && isPg(tx)) await fence.assertLeading(tx);
    await patchTokenAccount(tx, addressId, { ...fields, updatedAt: ctx.clock.now() });
    await also?.(tx);
  });
}

/** What a landed creation cost (the fee payer's lamports: fee + rent), recorded with the row's update. */
async function costRecorder(ctx: Ctx, adapter: SolAdapter, tx: SignedTransfer): Promise<(t: Tx) => Promise<void>> {
  const cost = await costOf(adapter, tx);
  return async (t) => {
    if (cost) await recordCost(t, { chain: adapter.chain, txHash: tx.txHash, kind: "token_account", cost, now: ctx.clock.now() });
  };
}

const stored = (r: Row): SignedTransfer => ({ txHash: r.txHash!, raw: r.signedTx!, meta: JSON.parse(r.signedMeta!) as SolCreateAccountsMeta });

/** One pass: new addresses queued, unfinished rows moved on. Returns rows that reached created/existed. */
export async function provisionSolTokenAccounts(ctx: Ctx, adapter: SolAdapter, addresses: AddressBook): Promise<number> {
  await requeueForMints(ctx, adapter);
  await enqueueNewAddresses(ctx);
  const rows = await unfinishedTokenAccounts(ctx.db, BATCH);
  if (rows.length === 0) return 0;
  const gas = await writeTx(ctx.db, async (tx) => await addresses.gasWallet(tx, adapter, ctx.seed, ctx.clock.now()));
  const feePayerKey = adapter.deriveKey(ctx.seed, gas.derivationIndex).privateKey;
  let done = 0;
  for (const row of rows) {
    try {
      if (await step(ctx, adapter, row, feePayerKey)) done++;
    } catch (e) {
      // RPC trouble: the row stays where it is and the next run tries again.
      await update(ctx, row.addressId, { lastError: String((e as Error).message ?? e).slice(0, 500) });
    }
  }
  return done;
}

async function step(ctx: Ctx, adapter: SolAdapter, row: Row, feePayerKey: Uint8Array): Promise<boolean> {
  if (row.status === "pending") {
    const tx = await adapter.signCreateTokenAccounts(row.owner, feePayerKey);
    if (!tx) {
      // Every account exists: made by us on an earlier pass (a row queued again), or by someone else.
      await update(ctx, row.addressId, { status: BigInt(row.rentLamports) > 0n ? "created" : "existed", mints: mintSet(adapter), lastError: null });
      return true;
    }
    await update(ctx, row.addressId, { status: "signed", txHash: tx.txHash, signedTx: tx.raw, signedMeta: JSON.stringify(tx.meta), attempts: row.attempts + 1 });
    return broadcast(ctx, adapter, { ...row, status: "signed", txHash: tx.txHash, signedTx: tx.raw, signedMeta: JSON.stringify(tx.meta) });
  }
  const tx = stored(row);
  const state = await adapter.txState(tx);
  if (state.state === "included") {
    if (!state.success) {
      // Failed on chain (the fee was spent, and recorded): sign a fresh one next run.
      await update(ctx, row.addressId, { status: "pending", txHash: null, signedTx: null, signedMeta: null, lastError: `creation ${tx.txHash} failed on chain` }, await costRecorder(ctx, adapter, tx));
      return false;
    }
    if (!state.final) return false;
    const meta = tx.meta as SolCreateAccountsMeta;
    // A row queued again for a new mint adds this creation's rent and fee to the earlier ones.
    const rentLamports = (BigInt(row.rentLamports) + BigInt(meta.rentLamports)).toString();
    const feeLamports = (BigInt(row.feeLamports) + BigInt(meta.feeLamports)).toString();
    await update(ctx, row.addressId, { status: "created", rentLamports, feeLamports, mints: mintSet(adapter), lastError: null }, await costRecorder(ctx, adapter, tx));
    ctx.logger.info("SOL token account created", { owner: row.owner, accounts: meta.accounts, rentLamports: meta.rentLamports, tx: tx.txHash });
    return true;
  }
  if (state.state === "expired") {
    // Never landed and never can: a new transaction is safe now.
    await update(ctx, row.addressId, { status: "pending", txHash: null, signedTx: null, signedMeta: null, lastError: `creation ${tx.txHash} expired unlanded` });
    return false;
  }
  if (state.state === "pending") return false;
  return broadcast(ctx, adapter, row);
}

async function broadcast(ctx: Ctx, adapter: SolAdapter, row: Row): Promise<boolean> {
  const tx = stored(row);
  const meta = tx.meta as SolCreateAccountsMeta;
  const need = BigInt(meta.rentLamports) + BigInt(meta.feeLamports);
  const have = await adapter.nativeBalance(meta.feePayer);
  if (have < need) {
    // Once per row, not every run: the job retries every 2 s until the wallet is funded.
    if (!row.lastError?.startsWith("gas wallet")) ctx.logger.warn("SOL gas wallet cannot pay a token account's rent", { owner: row.owner, gasWallet: meta.feePayer, lamports: have.toString(), needed: need.toString() });
    await update(ctx, row.addressId, { lastError: `gas wallet ${meta.feePayer} has ${have} lamports, needs ${need}` });
    return false;
  }
  const r = await adapter.broadcast(tx);
  if (r.ok) {
    await update(ctx, row.addressId, { status: "broadcasted", lastError: null });
    return false;
  }
  if (r.permanent) {
    // Rejected by the node: it never landed, so a fresh transaction may be signed.
    await update(ctx, row.addressId, { status: "pending", txHash: null, signedTx: null, signedMeta: null, lastError: r.error.slice(0, 500) });
  } else {
    await update(ctx, row.addressId, { lastError: r.error.slice(0, 500) });
  }
  return false;
}

/** The row of one address (tests, back office). */
export async function solTokenAccountOf(ctx: Pick<Ctx, "db">, addressId: string): Promise<Row | undefined> {
  return await tokenAccountOf(ctx.db, addressId);
}

/** Lamports the gas wallet has spent on token accounts (rent + fees of created rows). */
export async function solTokenAccountSpend(ctx: Pick<Ctx, "db">): Promise<{ accounts: number; rentLamports: bigint; feeLamports: bigint }> {
  const rows = await createdTokenAccountCosts(ctx.db);
  return { accounts: rows.length, rentLamports: rows.reduce((a, r) => a + BigInt(r.rent), 0n), feeLamports: rows.reduce((a, r) => a + BigInt(r.fee), 0n) };
}
