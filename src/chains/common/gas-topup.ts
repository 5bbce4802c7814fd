// Gas top-ups (BSC: BNB, TRON: TRX): the chain's gas wallet (index 0) funds a
// payout's source before the payout is first broadcast. A top-up is itself a
// signed transaction, stored in gas_topups and committed before it is sent; one
// already under way for the order is always finished first, never duplicated.
// Where the chain replaces transactions (EVM, chains.<C>.replace_after), a top-up
// that has not landed in time is replaced as a payout is: the same nonce from the
// gas wallet with raised fees (the chain's own replacement signing, up to
// gas_price_cap), each replacement stored in gas_topup_attempts before it is sent;
// whichever lands is the top-up's. At the cap it is marked stuck (alert payout_stuck).
import type { ChainModuleCtx } from "../module";
import { writeTx } from "../../db/client";
import { addTopupReplacement, insertTopup, markTopup, moveTopup, openTopupFor, patchTopup, topupById, topupReplacements, type TopupRow } from "./store";
import type { ChainAdapter, SignedTransfer } from "../types";
import { crashPoint } from "../../lib/crash";
import { costOf, recordCost } from "./costs";
import { RetryLater, type PayoutOrderRow, type PayoutStepEnv, type TxAttempt } from "../payout-steps";
import { sleep } from "../../lib/clock";
import { isPg, pgSide } from "../../db/engine";

/** The epoch fence (DESIGN 22): PostgreSQL only (SQLite has one gateway), loaded there on first use. */
const fence = pgSide<typeof import("../../cluster/fence")>(() => require("../../cluster/fence"));

/** What a top-up reads: storage, time, logs and the seed the gas wallet's key comes from (what every chain's payout steps get). */
export type GasTopupDeps = ChainModuleCtx;

/** How long an attempt waits for its top-up to land before leaving it to the payout job. */
const TOPUP_WAIT_MS = 5_000;
const TOPUP_RETRY_MS = 2_000;

export interface NativeTransferSigner extends ChainAdapter {
  signNativeTransfer(req: { from: string; to: string; amount: bigint; privateKey: Uint8Array; hint?: Record<string, unknown> }): Promise<SignedTransfer>;
}

export const storedTopup = (t: TopupRow): SignedTransfer => ({ txHash: t.txHash, raw: t.signedTx, meta: JSON.parse(t.signedMeta) as Record<string, unknown> });

/** A chain that replaces a transaction which did not land in time (EVM): when, and how it signs the replacement. */
export interface TopupReplacement {
  /** chains.<C>.replace_after in ms: how long the newest transaction of a top-up is out before it is replaced. */
  afterMs: number;
  /** `prev` again with the same nonce and raised fees, signed with the gas wallet's key; null when the cap leaves no raise a node would take. */
  sign(prev: SignedTransfer, privateKey: Uint8Array): Promise<SignedTransfer | null>;
}

export interface GasTopupOptions {
  /** Chain-specific signing hint for the gas wallet (EVM: its next nonce). */
  hintFor?: (gasAddress: string) => Promise<Record<string, unknown> | undefined>;
  /** Replace a top-up that has not landed within `afterMs` (absent: it is only ever rebroadcast). */
  replace?: TopupReplacement;
}

const STUCK_TOPUP = "stuck: the gas top-up is at gas_price_cap and has not landed; no replacement fits under the cap (its payout waits)";

export function gasTopupsFor(ctx: GasTopupDeps, adapter: NativeTransferSigner, env: PayoutStepEnv, options: GasTopupOptions = {}) {
  const chain = adapter.chain;
  const { locks, addresses } = env;
  const hintFor = options.hintFor ?? (async () => undefined);
  // Each write in a transaction of its own (never joining another flow's open one: docs/transactions.md).
  const setTopup = async (id: number, set: Partial<TopupRow>) => await writeTx(ctx.db, async (tx) => await patchTopup(tx, id, { ...set, updatedAt: ctx.clock.now() }));
  /** A status change from the status `t` was read in; another writer's change first: the top-up as it now is. */
  const moveFrom = async (t: TopupRow, set: Partial<TopupRow> & { status: TopupRow["status"] }) =>
    await writeTx(ctx.db, async (tx) => await moveTopup(tx, t.id, t.status, { ...set, updatedAt: ctx.clock.now() }) ?? await topupById(tx, t.id));
  const gasWallet = async () => {
    const now = ctx.clock.now();
    return await writeTx(ctx.db, async (tx) => await addresses.gasWallet(tx, adapter, ctx.seed, now));
  };

  async function sign(o: PayoutOrderRow, amount: bigint): Promise<TopupRow> {
    const now = ctx.clock.now();
    const gas = await gasWallet();
    return locks.run(`${chain}:${gas.address}`, async () => {
      const key = adapter.deriveKey(ctx.seed, gas.derivationIndex);
      const signed = await adapter.signNativeTransfer({ from: gas.address, to: o.fromAddress, amount, privateKey: key.privateKey, hint: await hintFor(gas.address) });
      // Stored before broadcast, in its own transaction, under the leader's epoch (DESIGN 22).
      const row = await writeTx(ctx.db, async (tx) => {
        if (isPg(tx)) await fence.assertLeading(tx);
        return await insertTopup(tx, {
          chain,
          payoutOrderId: o.id,
          fromAddress: gas.address,
          toAddress: o.fromAddress,
          amount: amount.toString(),
          txHash: signed.txHash,
          signedTx: signed.raw,
          signedMeta: JSON.stringify(signed.meta),
          status: "signed",
          createdAt: now,
          updatedAt: now,
        });
      });
      ctx.logger.info("gas top-up signed", { chain, orderNo: o.orderNo, to: o.fromAddress, baseUnits: amount.toString(), txHash: signed.txHash });
      return row;
    });
  }

  /** The top-up's transactions, oldest first: the one signed first (on the row, out since it was broadcast), then each replacement. */
  const transactions = async (t: TopupRow): Promise<TxAttempt[]> => [{ tx: storedTopup(t), since: t.sentAt ?? t.createdAt }, ...await topupReplacements(ctx.db, t.id)];

  /** One of the top-up's transactions is in a block: the top-up landed (or failed) with that transaction. */
  async function landed(t: TopupRow, tx: SignedTransfer, success: boolean): Promise<true> {
    const cost = await costOf(adapter, tx);
    await writeTx(ctx.db, async (x) => {
      if (isPg(x)) await fence.assertLeading(x);
      const now = ctx.clock.now();
      // A failed top-up burned its fee too: both are recorded.
      if (cost) await recordCost(x, { chain, txHash: tx.txHash, kind: "gas_topup", payoutOrderId: t.payoutOrderId, cost, now });
      // Whichever of its transactions landed is the top-up's.
      const which = tx.txHash === t.txHash ? {} : { txHash: tx.txHash, signedTx: tx.raw, signedMeta: JSON.stringify(tx.meta) };
      const outcome = success ? { ...which, status: "confirmed" as const, stuckAt: null, updatedAt: now } : { ...which, status: "failed" as const, stuckAt: null, lastError: "top-up failed on chain", updatedAt: now };
      await moveTopup(x, t.id, t.status, outcome);
    });
    if (!success) throw new RetryLater("gas top-up failed on chain", TOPUP_RETRY_MS);
    return true;
  }

  /**
   * Replaces the top-up's newest transaction once it has been out for replace_after (a stuck
   * one: once per replace_after since it was found stuck): signed under the gas wallet's lock,
   * stored and committed, then sent. No raise left under the cap marks the top-up stuck.
   */
  async function replaceIfDue(t: TopupRow, newest: TxAttempt): Promise<void> {
    const r = options.replace;
    if (!r || t.status !== "broadcasted" || ctx.clock.now() < Math.max(newest.since, t.stuckAt ?? 0) + r.afterMs) return;
    const gas = await gasWallet();
    const signed = await locks.run(`${chain}:${gas.address}`, async () => {
      const next = await r.sign(newest.tx, adapter.deriveKey(ctx.seed, gas.derivationIndex).privateKey);
      return await writeTx(ctx.db, async (x) => {
        if (isPg(x)) await fence.assertLeading(x);
        const f = await topupById(x, t.id);
        const current = (await topupReplacements(x, t.id)).at(-1)?.tx.txHash ?? f.txHash;
        if (f.status !== "broadcasted" || current !== newest.tx.txHash) return null;
        const now = ctx.clock.now();
        if (!next) {
          if (f.stuckAt === null) ctx.logger.warn("gas top-up stuck at the gas price cap", { chain, payoutOrderId: f.payoutOrderId, txHash: current });
          await markTopup(x, t.id, { stuckAt: now, lastError: STUCK_TOPUP, updatedAt: now });
          return null;
        }
        await addTopupReplacement(x, f, next, now);
        await markTopup(x, t.id, { stuckAt: null, lastError: null, updatedAt: now });
        return next;
      });
    });
    if (!signed) return;
    crashPoint("payout:after-topup-replace-commit");
    ctx.logger.info("gas top-up replaced", { chain, payoutOrderId: t.payoutOrderId, replaces: newest.tx.txHash, txHash: signed.txHash });
    const sent = await adapter.broadcast(signed).catch((e) => ({ ok: false as const, permanent: false, error: String((e as Error)?.message ?? e) }));
    crashPoint("payout:after-topup-replace-broadcast");
    // Sent again by the next look (its newest transaction, unknown to the node).
    if (!sent.ok) await setTopup(t.id, { lastError: `top-up replacement not sent yet: ${sent.error}` });
  }

  /** Sends a stored top-up (again) and waits a little for it to land; true once it has. */
  async function drive(t: TopupRow): Promise<boolean> {
    if (t.status === "signed") {
      const r = await adapter.broadcast(storedTopup(t));
      crashPoint("payout:after-topup-broadcast");
      if (!r.ok) {
        if (r.permanent) await moveFrom(t, { status: "failed", lastError: r.error });
        else await setTopup(t.id, { lastError: r.error });
        throw new RetryLater(`gas top-up not sent: ${r.error}`, TOPUP_RETRY_MS);
      }
      t = await moveFrom(t, { status: "broadcasted", lastError: null, sentAt: ctx.clock.now() });
      // Another writer finished it first (landed or failed): its outcome stands.
      if (t.status === "confirmed") return true;
      if (t.status === "failed") throw new RetryLater("gas top-up failed", TOPUP_RETRY_MS);
    }
    const deadline = ctx.clock.now() + TOPUP_WAIT_MS;
    for (;;) {
      const txs = await transactions(t);
      const newest = txs[txs.length - 1]!;
      const s = await adapter.txState(newest.tx);
      if (s.state === "included") return landed(t, newest.tx, s.success);
      let allExpired = s.state === "expired";
      // The ones it replaced: while the newest waits in a node's pool none of them was mined
      // (they share its nonce); once it is gone, any of them may be the one that landed.
      if (s.state !== "pending") {
        for (let i = txs.length - 2; i >= 0; i--) {
          const st = await adapter.txState(txs[i]!.tx);
          if (st.state === "included") return landed(t, txs[i]!.tx, st.success);
          if (st.state !== "expired") allExpired = false;
        }
      }
      if (allExpired) {
        await moveFrom(t, { status: "failed", stuckAt: null, lastError: "top-up can never land (expired)" });
        throw new RetryLater("gas top-up expired", TOPUP_RETRY_MS);
      }
      await replaceIfDue(t, newest);
      if (s.state === "unknown" && (await transactions(t)).length === txs.length) await adapter.broadcast(newest.tx);
      if (ctx.clock.now() > deadline) return false;
      await sleep(ctx.clock, 250);
      t = await topupById(ctx.db, t.id);
    }
  }

  /** The payout's retry while its top-up has not landed (its error says when the top-up is stuck at the cap). */
  const waiting = async (t: TopupRow) => new RetryLater((await topupById(ctx.db, t.id)).stuckAt !== null ? STUCK_TOPUP : "waiting for the gas top-up to land", TOPUP_RETRY_MS);

  return {
    /**
     * Before a payout's first broadcast: finish a top-up under way for it, or send
     * `shortfall()` (0 = none needed) from the gas wallet. Throws RetryLater while
     * the top-up has not landed yet (the payout job retries by itself). `recheck`: a top-up
     * under way may have been sized for another transaction of the order (an EVM replacement
     * raised its fee): once it landed, what is still short is sent too.
     */
    async ensure(o: PayoutOrderRow, shortfall: () => Promise<bigint>, opts: { recheck?: boolean } = {}): Promise<void> {
      const open = await openTopupFor(ctx.db, o.id);
      if (open) {
        if (!(await drive(open))) throw await waiting(open);
        if (!opts.recheck) return;
      }
      const amount = await shortfall();
      if (amount <= 0n) return;
      const t = await sign(o, amount);
      crashPoint("payout:after-topup-sign-commit");
      if (!(await drive(t))) throw await waiting(t);
    },
  };
}
