// Runs payouts on chain: sign, store the signed transaction in its own
// committed transaction, broadcast, then track it to a final state. A stored
// transaction is only ever rebroadcast, never re-signed, so a crash or retry
// at any point sends at most one transfer per order. The one exception is a
// replacement (EVM, after chains.<C>.replace_after): the same nonce with raised
// fees, stored before it is broadcast, so at most one of the order's
// transactions can ever land. A payout fails only on final data (a reverted
// final transaction, or one that can never land), never on a node's refusal.
import type { Db } from "../db/client";
import type { Clock } from "../lib/clock";
import type { Logger } from "../lib/logger";
import { writeTx } from "../db/client";
import type { ChainAdapter, ChainCode, SignedTransfer, TokenSymbol } from "../chains/types";
import { crashPoint } from "../lib/crash";
import { costOf, recordCost } from "../chains/common/costs";
import { LogLimiter } from "../lib/log-limit";
import { isStorageFault } from "../db/storage-fault";
import { addressById } from "../wallet/addresses";
import { applyPayoutEvent, patchPayout, payoutById } from "./service";
import { addReplacement, broadcastedOn, replacements, resumableSubmitted, unsureSubmitted, type PayoutTxAttempt } from "./store";
import type { PayoutOrderRow } from "./views";

import { KeyedLock, RetryLater, storedTx, type PayoutChainOps } from "../chains/payout-steps";
import type { SendGate } from "../restore/reconcile";
import { isPg, pgSide } from "../db/engine";

/** The epoch fence (DESIGN 22): PostgreSQL only (SQLite has one gateway), loaded there on first use. */
const fence = pgSide<typeof import("../cluster/fence")>(() => require("../cluster/fence"));

// The step interface lives with the chain modules that implement it (the chain layer imports no payout/ code).
export { KeyedLock, RetryLater, storedTx, type PayoutChainOps };

/** What the executor reads from the gateway: storage, time, the chains and the seed it signs with. */
export interface ExecutorCtx {
  db: Db;
  clock: Clock;
  logger: Logger;
  seed: Uint8Array;
  chains: ReadonlyMap<ChainCode, ChainAdapter>;
  /** Restore reconcile (src/restore/reconcile.ts): may this source send, or why it is held. */
  gate?: SendGate;
}

/** How soon a source whose chain could not be read for reconcile is tried again. */
const GATE_RETRY_MS = 5_000;

export interface ExecutorOptions {
  ops?: (adapter: ChainAdapter, locks: KeyedLock) => PayoutChainOps | undefined;
}

const errorText = (e: unknown) => String((e as Error)?.message ?? e).slice(0, 500);

function retryAtOf(e: unknown, now: number): number | null {
  return e instanceof RetryLater ? now + e.retryAfterMs : null;
}

export class PayoutExecutor {
  private readonly inflight = new Map<number, Promise<PayoutOrderRow>>();
  private readonly queues = new Map<ChainCode, Promise<unknown>>();
  readonly locks = new KeyedLock();
  private readonly chainOps = new Map<ChainCode, PayoutChainOps>();
  /** When a stuck order last found no replacement under the cap (in memory: a restart, e.g. with a raised cap, tries at once). */
  private readonly stuckTried = new Map<number, number>();

  /** Set at shutdown: RPC calls are being aborted, so failures from then on are not attempts. */
  private stopping = false;

  /** With the disk full every open payout fails every tick: storage failures log once per minute. */
  private readonly limited: LogLimiter;

  constructor(private readonly ctx: ExecutorCtx, private readonly opts: ExecutorOptions = {}) {
    this.limited = new LogLimiter(ctx.logger, () => ctx.clock.now());
  }

  /** Shutdown: an attempt cut off from now on leaves the order as it was (the next start resumes it, no `submit` needed). */
  stop(): void {
    this.stopping = true;
  }

  private ops(adapter: ChainAdapter): PayoutChainOps {
    let ops = this.chainOps.get(adapter.chain);
    if (!ops) {
      ops = this.opts.ops?.(adapter, this.locks) ?? this.defaultOps(adapter);
      this.chainOps.set(adapter.chain, ops);
    }
    return ops;
  }

  private adapter(chain: string): ChainAdapter {
    const a = this.ctx.chains.get(chain as ChainCode);
    if (!a) throw new Error(`chain ${chain} is not enabled`);
    return a;
  }

  /**
   * One submission attempt for a submitted order; joins an attempt already
   * running for it. Resolves with the order as the attempt left it.
   */
  attempt(orderId: number): Promise<PayoutOrderRow> {
    const running = this.inflight.get(orderId);
    if (running) return running;
    const p = this.runAttempt(orderId).finally(() => this.inflight.delete(orderId));
    this.inflight.set(orderId, p);
    return p;
  }

  private async commit(fn: Parameters<typeof writeTx<PayoutOrderRow>>[1]): Promise<PayoutOrderRow> {
    return await writeTx(this.ctx.db, fn);
  }

  private async runAttempt(orderId: number): Promise<PayoutOrderRow> {
    let o = await payoutById(this.ctx.db, orderId);
    if (o.status !== "submitted") return o;
    const adapter = this.adapter(o.chain);
    const held = await this.held(adapter, o);
    if (held) return held;

    if (!o.signedTx) {
      crashPoint("payout:before-sign");
      const ops = this.ops(adapter);
      let stored: PayoutOrderRow;
      try {
        stored = await this.locks.run(`${o.chain}:${o.fromAddress}`, async () => {
          const signed = await ops.sign(o);
          // Stored and committed before it can reach the network, under the leader's epoch (DESIGN 22).
          return await writeTx(this.ctx.db, async (tx) => {
            if (isPg(tx)) await fence.assertLeading(tx);
            const f = await payoutById(tx, orderId);
            if (f.status !== "submitted" || f.signedTx) return f;
            return await patchPayout(tx, f.id, { signedTx: signed.raw, signedMeta: JSON.stringify(signed.meta), txHash: signed.txHash }, this.ctx.clock.now());
          });
        });
      } catch (e) {
        if (this.stopping) return await payoutById(this.ctx.db, orderId);
        // Not the leader (PostgreSQL, another gateway leads or none does yet): nothing was stored or
        // sent, nothing is recorded; the order stays submitted for the leader's executor.
        if (isPg(this.ctx.db) && e instanceof fence.NotLeader) return await payoutById(this.ctx.db, orderId);
        const permanent = (e as { permanent?: boolean })?.permanent === true;
        if (isStorageFault(e)) this.limited.log("warn", "payout:signing:storage", "payout signing failed: storage unavailable (nothing sent)", { orderNo: o.orderNo, error: errorText(e) });
        else this.ctx.logger.warn("payout signing failed", { orderNo: o.orderNo, permanent, error: errorText(e) });
        return await this.commit(async (tx) => {
          const f = await payoutById(tx, orderId);
          if (f.status !== "submitted") return f;
          const now = this.ctx.clock.now();
          if (permanent) return await applyPayoutEvent(tx, f, { type: "fail", stage: "submit" }, { lastError: errorText(e), attempts: f.attempts + 1, retryAt: null }, now);
          return await patchPayout(tx, f.id, { lastError: errorText(e), attempts: f.attempts + 1, retryAt: retryAtOf(e, now) }, now);
        });
      }
      o = stored;
      crashPoint("payout:after-sign-commit");
      if (o.status !== "submitted") return o;
    }

    let result: Awaited<ReturnType<ChainAdapter["broadcast"]>>;
    let retryAt: number | null = null;
    try {
      await this.ops(adapter).beforeBroadcast?.(o, storedTx(o));
      result = await adapter.broadcast(storedTx(o));
    } catch (e) {
      result = { ok: false, permanent: false, error: errorText(e) };
      retryAt = retryAtOf(e, this.ctx.clock.now());
    }
    crashPoint("payout:after-broadcast");
    if (!result.ok && this.stopping) return await payoutById(this.ctx.db, orderId);
    return await this.commit(async (tx) => {
      const f = await payoutById(tx, orderId);
      if (f.status !== "submitted") return f;
      const now = this.ctx.clock.now();
      if (result.ok) return await applyPayoutEvent(tx, f, { type: "broadcasted" }, { attempts: f.attempts + 1, retryAt: null }, now);
      this.ctx.logger.warn("payout broadcast failed", { orderNo: f.orderNo, permanent: result.permanent, error: result.error });
      if (result.permanent) return await applyPayoutEvent(tx, f, { type: "fail", stage: "broadcast" }, { lastError: result.error, attempts: f.attempts + 1, retryAt: null }, now);
      return await patchPayout(tx, f.id, { lastError: result.error, attempts: f.attempts + 1, retryAt }, now);
    });
  }

  /**
   * After a restore, a source's chain is read before it sends (once per source): a hold
   * leaves the order submitted with the hold as its lastError, and nothing is signed or sent.
   * Undefined when the order may go on.
   */
  private async held(adapter: ChainAdapter, o: PayoutOrderRow): Promise<PayoutOrderRow | undefined> {
    const gate = this.ctx.gate;
    if (!gate) return undefined;
    let why: string | null;
    let retryAt: number | null = null;
    try {
      why = await this.locks.run(`${o.chain}:${o.fromAddress}`, () => gate.check(adapter, o.fromAddress));
    } catch (e) {
      if (this.stopping) return await payoutById(this.ctx.db, o.id);
      why = `held after restore: could not read ${o.chain} for what ${o.fromAddress} sent since the backup (${errorText(e)}); retrying`;
      retryAt = this.ctx.clock.now() + GATE_RETRY_MS;
    }
    if (why === null) return undefined;
    const text = why;
    return await this.commit(async (tx) => {
      const f = await payoutById(tx, o.id);
      if (f.status !== "submitted" || (f.lastError === text && f.retryAt === retryAt)) return f;
      return await patchPayout(tx, f.id, { lastError: text, retryAt }, this.ctx.clock.now());
    });
  }

  private defaultOps(adapter: ChainAdapter): PayoutChainOps {
    return {
      sign: async (o) => {
        const a = (await addressById(this.ctx.db, o.fromAddressId))!;
        const key = adapter.deriveKey(this.ctx.seed, a.derivationIndex);
        // No deterministic salt: a second signing must show up as a second transfer in the crash tests.
        return adapter.signTransfer({ token: o.token as TokenSymbol, from: o.fromAddress, to: o.toAddress, amount: BigInt(o.amount), privateKey: key.privateKey });
      },
    };
  }

  /** One tracking pass for a chain; never overlaps another pass of the same chain. */
  tick(chain: ChainCode): Promise<void> {
    const prev = this.queues.get(chain) ?? Promise.resolve();
    const run = prev.then(() => this.track(chain));
    this.queues.set(chain, run.catch(() => {}));
    return run;
  }

  private async track(chain: ChainCode): Promise<void> {
    const adapter = this.ctx.chains.get(chain);
    if (!adapter) return;
    // Interrupted submissions (a restart, or a crash before the attempt finished): resume them.
    // Orders whose attempt recorded an error wait for `submit` (spec 4.7), unless the error clears by itself (retryAt).
    const interrupted = await resumableSubmitted(this.ctx.db, chain, this.ctx.clock.now());
    for (const id of interrupted) if (!this.inflight.has(id)) await this.attempt(id);

    // A broadcast reported as failed may still have reached the network (a timeout after the
    // node accepted it): if the stored transaction shows up, the order is broadcasted after all.
    const unsure = await unsureSubmitted(this.ctx.db, chain);
    for (const o of unsure) {
      if (this.inflight.has(o.id)) continue;
      const st = await adapter.txState(storedTx(o)).catch(() => ({ state: "unknown" as const }));
      if (st.state !== "included" && st.state !== "pending") continue;
      await this.commit(async (x) => {
        const f = await payoutById(x, o.id);
        if (f.status !== "submitted") return f;
        return await applyPayoutEvent(x, f, { type: "broadcasted" }, { retryAt: null }, this.ctx.clock.now());
      });
    }

    const open = await broadcastedOn(this.ctx.db, chain);
    for (const o of open) {
      try {
        await this.follow(adapter, o);
      } catch (e) {
        if (isStorageFault(e)) this.limited.log("warn", "payout:tracking:storage", "payout tracking failed: storage unavailable", { orderNo: o.orderNo, error: errorText(e) });
        else this.ctx.logger.warn("payout tracking failed", { orderNo: o.orderNo, error: errorText(e) });
      }
    }
  }

  /** The order's transactions, oldest first: the one signed first (on the order), then each replacement. */
  private async transactions(o: PayoutOrderRow): Promise<PayoutTxAttempt[]> {
    return [{ tx: storedTx(o), since: o.broadcastedAt ?? o.updatedAt }, ...await replacements(this.ctx.db, o.id)];
  }

  private async follow(adapter: ChainAdapter, o: PayoutOrderRow): Promise<void> {
    const txs = await this.transactions(o);
    const newest = txs[txs.length - 1]!;
    const s = await adapter.txState(newest.tx);
    if (s.state === "included") return this.included(adapter, o, newest.tx, s);
    const newestUnknown = s.state === "unknown";
    let allExpired = s.state === "expired";
    // The ones it replaced: while the newest waits in a node's pool none of them was mined
    // (they share its nonce); once it is gone, any of them may be the one that landed.
    if (s.state !== "pending") {
      for (let i = txs.length - 2; i >= 0; i--) {
        const tx = txs[i]!.tx;
        const st = await adapter.txState(tx);
        if (st.state === "included") return this.included(adapter, o, tx, st);
        if (st.state !== "expired") allExpired = false;
      }
    }
    if (allExpired) {
      await this.failConfirm(o.id, txs.length > 1 ? `none of its ${txs.length} transactions can land (their nonce is used in a final block); not re-signed` : "transaction can never land (expired); not re-signed");
      return;
    }
    const ops = this.ops(adapter);
    // A stuck order (no raise left under the cap) is tried again once per replace_after, not every pass.
    const due = Math.max(newest.since, this.stuckTried.get(o.id) ?? 0) + (ops.replaceAfterMs ?? 0);
    if (ops.replace && ops.replaceAfterMs !== undefined && this.ctx.clock.now() >= due) {
      if (await this.replace(adapter, o, newest.tx, ops)) return;
    }
    if (newestUnknown) {
      // Dropped from the mempool or reorganised away: the same signed transaction goes out again.
      // A refusal fails nothing: only final data does (txState "expired" above).
      const send = async () => {
        if (txs.length > 1) await ops.beforeBroadcast?.(o, newest.tx); // a replacement's raised fee may need gas first
        return adapter.broadcast(newest.tx);
      };
      const r = await send().catch((e) => ({ ok: false as const, permanent: false, error: errorText(e) }));
      if (!r.ok) await this.commit(async (x) => await patchPayout(x, o.id, { lastError: `rebroadcast refused: ${r.error}` }, this.ctx.clock.now()));
    }
  }

  /** One of the order's transactions is in a block: once final, the order is confirmed (or failed) with that transaction. */
  private async included(adapter: ChainAdapter, o: PayoutOrderRow, tx: SignedTransfer, s: Extract<Awaited<ReturnType<ChainAdapter["txState"]>>, { state: "included" }>): Promise<void> {
    if (!s.final) return;
    crashPoint("payout:after-confirm-seen");
    const cost = await costOf(adapter, tx);
    await this.commit(async (x) => {
      if (isPg(x)) await fence.assertLeading(x);
      const f = await payoutById(x, o.id);
      if (f.status !== "broadcasted") return f;
      const now = this.ctx.clock.now();
      // What the transfer cost, with its final status (DESIGN 21).
      if (cost) await recordCost(x, { chain: f.chain, txHash: tx.txHash, kind: "payout", payoutOrderId: f.id, cost, now });
      // Whichever of its transactions landed is the order's.
      const landed = tx.txHash === f.txHash ? {} : { txHash: tx.txHash, signedTx: tx.raw, signedMeta: JSON.stringify(tx.meta) };
      return s.success
        ? await applyPayoutEvent(x, f, { type: "confirmed" }, { ...landed, stuckAt: null }, now)
        : await applyPayoutEvent(x, f, { type: "fail", stage: "confirm" }, { ...landed, stuckAt: null, lastError: "transaction reverted on chain" }, now);
    });
  }

  /**
   * Replaces the order's newest transaction (same nonce, raised fees): signed under the
   * source's lock, stored and committed, then sent. No raise left under the cap marks the
   * order stuck (alert payout_stuck) and it keeps waiting for what it sent.
   */
  private async replace(adapter: ChainAdapter, o: PayoutOrderRow, current: SignedTransfer, ops: PayoutChainOps): Promise<boolean> {
    const signed = await this.locks.run(`${o.chain}:${o.fromAddress}`, async () => {
      const next = await ops.replace!(o, current);
      const now = this.ctx.clock.now();
      return await this.commitReplacement(o.id, current, next, now);
    });
    if (!signed) {
      this.stuckTried.set(o.id, this.ctx.clock.now());
      return false;
    }
    this.stuckTried.delete(o.id);
    crashPoint("payout:after-replace-commit");
    this.ctx.logger.info("payout transaction replaced", { orderNo: o.orderNo, replaces: current.txHash, txHash: signed.txHash });
    let r: Awaited<ReturnType<ChainAdapter["broadcast"]>>;
    try {
      await ops.beforeBroadcast?.(o, signed);
      r = await adapter.broadcast(signed);
    } catch (e) {
      r = { ok: false, permanent: false, error: errorText(e) };
    }
    crashPoint("payout:after-replace-broadcast");
    if (!r.ok) {
      // Sent again by the next pass (its newest transaction, unknown to the node).
      const error = r.error;
      await this.commit(async (x) => await patchPayout(x, o.id, { lastError: `replacement not sent yet: ${error}` }, this.ctx.clock.now()));
    }
    return true;
  }

  /** Stores a replacement (or, for null, marks the order stuck) if the order is still broadcast with `current` as its newest transaction. */
  private async commitReplacement(id: number, current: SignedTransfer, next: SignedTransfer | null, now: number): Promise<SignedTransfer | null> {
    let stored: SignedTransfer | null = null;
    await this.commit(async (x) => {
      if (isPg(x)) await fence.assertLeading(x);
      const f = await payoutById(x, id);
      if (f.status !== "broadcasted") return f;
      const newest = (await replacements(x, id)).at(-1)?.tx.txHash ?? f.txHash;
      if (newest !== current.txHash) return f;
      if (!next) {
        if (f.stuckAt !== null) return f;
        this.ctx.logger.warn("payout stuck at the gas price cap", { orderNo: f.orderNo, txHash: current.txHash });
        return await patchPayout(x, id, { stuckAt: now, lastError: "stuck: its transaction is at gas_price_cap and has not confirmed; no replacement fits under the cap" }, now);
      }
      await addReplacement(x, f, next, now);
      stored = next;
      return await patchPayout(x, id, { stuckAt: null, lastError: null }, now);
    });
    return stored;
  }

  private async failConfirm(id: number, why: string): Promise<void> {
    await this.commit(async (x) => {
      const f = await payoutById(x, id);
      if (f.status !== "broadcasted") return f;
      return await applyPayoutEvent(x, f, { type: "fail", stage: "confirm" }, { lastError: why }, this.ctx.clock.now());
    });
  }
}
