// One watcher per enabled chain: a durable cursor, scans in chunks, tracks
// confirmations of pending transfers, and turns reorgs into reversals. It
// reports transfers to a TransferPort (./port.ts); what they pay is the pay-in
// module's business.
// A tick never overlaps another one of the same chain.
import { writeTx } from "../db/client";
import { sharedWriteTx } from "../db/group-commit";
import type { ChainAdapter, ChainHead } from "../chains/types";
import { AddressWatchSet } from "../wallet/addresses";
import type { Db } from "../db/client";
import { isPg } from "../db/engine";
import type { Clock } from "../lib/clock";
import type { Logger } from "../lib/logger";
import type { TransferPort } from "./port";
import { chainCursor, initChainCursor, saveChainCursor } from "./store";
import { pendingTransferBlocks } from "./transfers-store";

/** What a watcher needs of the gateway. */
export interface WatcherCtx {
  db: Db;
  clock: Clock;
  logger: Logger;
}

export interface WatcherOptions {
  /** Blocks per scan call. */
  chunk?: number;
  /** Chunks per tick before yielding (catch-up continues next tick). */
  maxChunksPerTick?: number;
}

/**
 * A scan that found nothing moves the cursor in memory; the database's copy is written with the
 * next transfer, or once this much time passed since it was last written (a restart rescans the
 * blocks since: recording is idempotent). Issue 37: an idle chain's watcher committed every block.
 */
export const CURSOR_SAVE_MS = 5_000;

/** A cursor position. */
interface Position {
  blockNumber: number;
  blockHash: string;
}

/** How far a scan may go: the head, or less when the adapter says so (ChainHead.scanTo). */
const scanLimit = (head: ChainHead) => (head.scanTo !== undefined && head.scanTo < head.latest ? head.scanTo : head.latest);

/** What the last ticks saw, for /readyz, metrics and alerts (ops/). */
export interface WatcherStatus {
  /** The head the last tick read; null until one succeeded. */
  head: ChainHead | null;
  /** Last time (clock ms) a tick ended with the cursor at or past the final head; start-up time before that. */
  caughtUpAt: number;
  lastError: string | null;
}

export class ChainWatcher {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly watch: AddressWatchSet;
  readonly status: WatcherStatus;
  /** The database's cursor when last read or written here. */
  private stored: Position | null = null;
  /** Where empty scans moved the cursor past `base` (the stored cursor then) without writing it. */
  private unsaved: { at: Position; base: Position } | null = null;
  /** When this watcher last wrote the cursor (clock ms). */
  private savedAt = Number.NEGATIVE_INFINITY;
  /** SQLite: empty scans write the cursor at most every CURSOR_SAVE_MS. PostgreSQL: every time (other gateways read it: server.ts leaderScannedPast). */
  private readonly lazySave: boolean;

  constructor(
    private readonly ctx: WatcherCtx,
    readonly adapter: ChainAdapter,
    private readonly transfers: TransferPort,
    private readonly opts: WatcherOptions = {},
  ) {
    this.watch = new AddressWatchSet(ctx.db, adapter.chain);
    this.lazySave = !isPg(ctx.db);
    this.status = { head: null, caughtUpAt: ctx.clock.now(), lastError: null };
  }

  /** Runs one tick after any tick in progress. */
  tick(): Promise<void> {
    const run = this.queue.then(() => this.run());
    this.queue = run.catch((e) => {
      this.status.lastError = String((e as Error)?.message ?? e);
    });
    return run;
  }

  /**
   * Moves the cursor back to `to` (never forward), after any tick in progress: the next tick
   * rescans from there (recording is idempotent). A restore's rescan for addresses it added late.
   */
  rewind(to: bigint): Promise<void> {
    const run = this.queue.then(async () => {
      const cur = await this.cursor();
      if (!cur || BigInt(cur.blockNumber) <= to) return;
      const hash = (await this.adapter.blockHash(to)) ?? "";
      await writeTx(this.ctx.db, async (tx) => await this.saveCursor(tx, to, hash));
      this.ctx.logger.info("watcher cursor rewound", { chain: this.adapter.chain, from: cur.blockNumber, to: Number(to) });
    });
    this.queue = run.catch(() => {});
    return run;
  }

  /** The block the cursor stands at (scanned up to), null before init. */
  async scanned(): Promise<bigint | null> {
    const c = await this.cursor();
    return c ? BigInt(c.blockNumber) : null;
  }

  /**
   * The cursor: the stored one, or where empty scans moved it since, as long as the stored one is
   * still what those scans started from (a rewind, a restore or another gateway that moved it wins).
   */
  private async cursor() {
    const c = await chainCursor(this.ctx.db, this.adapter.chain);
    if (!c) return c;
    this.stored = { blockNumber: c.blockNumber, blockHash: c.blockHash };
    const u = this.unsaved;
    if (u && u.base.blockNumber === c.blockNumber && u.base.blockHash === c.blockHash) return { ...c, ...u.at };
    this.unsaved = null;
    return c;
  }

  private async saveCursor(tx: Parameters<Parameters<typeof writeTx>[1]>[0], number: bigint, hash: string) {
    const now = this.ctx.clock.now();
    await saveChainCursor(tx, this.adapter.chain, Number(number), hash, now);
    this.stored = { blockNumber: Number(number), blockHash: hash };
    this.unsaved = null;
    this.savedAt = now;
  }

  /** An empty scan reached `number`: written only when the last write is CURSOR_SAVE_MS old. */
  private async advanceCursor(number: bigint, hash: string): Promise<void> {
    if (this.lazySave && this.stored && this.ctx.clock.now() - this.savedAt < CURSOR_SAVE_MS) {
      this.unsaved = { at: { blockNumber: Number(number), blockHash: hash }, base: this.unsaved?.base ?? this.stored };
      return;
    }
    await sharedWriteTx(this.ctx.db, async (tx) => await this.saveCursor(tx, number, hash));
  }

  /**
   * First start: begin at the current head (nothing before it can pay an order that does not exist
   * yet). Written only if no cursor exists, so a gateway starting beside a running one (PostgreSQL)
   * never moves that one's cursor.
   */
  async init(): Promise<void> {
    if (await this.cursor()) return;
    const head = await this.adapter.head();
    const start = scanLimit(head);
    const hash = (await this.adapter.blockHash(start)) ?? "";
    await writeTx(this.ctx.db, async (tx) => await initChainCursor(tx, this.adapter.chain, Number(start), hash, this.ctx.clock.now()));
  }

  private async run(): Promise<void> {
    const a = this.adapter;
    await this.init();
    const head = await a.head();
    this.status.head = head;
    const cur = (await this.cursor())!;
    let from = BigInt(cur.blockNumber);
    // Reorg at the cursor: step back to the last final block and rescan (recording is idempotent).
    const hashAtCursor = await a.blockHash(from);
    if (hashAtCursor !== cur.blockHash) {
      const back = head.final < from ? head.final : from - 1n;
      const safe = back < 0n ? 0n : back;
      const h = (await a.blockHash(safe)) ?? "";
      this.ctx.logger.warn("reorg detected at cursor", { chain: a.chain, cursor: cur.blockNumber, rewindTo: Number(safe) });
      await writeTx(this.ctx.db, async (tx) => await this.saveCursor(tx, safe, h));
      from = safe;
    }

    const chunk = BigInt(this.opts.chunk ?? 2000);
    const maxChunks = this.opts.maxChunksPerTick ?? 50;
    const limit = scanLimit(head);
    for (let i = 0; i < maxChunks && from < limit; i++) {
      const start = from + 1n;
      const end = start + chunk - 1n < limit ? start + chunk - 1n : limit;
      await this.watch.refresh();
      const res = await a.scan(start, end, this.watch);
      const now = this.ctx.clock.now();
      if (res.transfers.length) {
        await sharedWriteTx(this.ctx.db, async (tx) => {
          for (const t of res.transfers) await this.transfers.record(tx, t, now);
          await this.saveCursor(tx, res.tip.number, res.tip.hash);
        });
      } else {
        await this.advanceCursor(res.tip.number, res.tip.hash);
      }
      from = end;
    }

    if (from >= head.final) this.status.caughtUpAt = this.ctx.clock.now();
    this.status.lastError = null;
    await this.trackConfirmations(head.latest, head.final);
  }

  /**
   * Confirmations by block height arithmetic (count = latest − block + 1): one query for the
   * blocks holding pending transfers (their hashes are checked for reorgs), one for the
   * transfers that cross a threshold this tick (2 confirmations, or final), and one set-based
   * UPDATE per table for the displayed counts; no per-transfer work for the rest.
   */
  private async trackConfirmations(latest: bigint, final: bigint): Promise<void> {
    const chain = this.adapter.chain;
    const blocks = await pendingTransferBlocks(this.ctx.db, chain);
    if (!blocks.length) return;
    const hashes = new Map<number, string | null>();
    for (const n of new Set(blocks.map((b) => b.n))) hashes.set(n, await this.adapter.blockHash(BigInt(n)));
    const required = this.adapter.requiredConfirmations;
    // A reverted transfer's block changed under us. If the cursor is already past it (the reorg
    // hit between a scan's logs and its tip), rescan from there so the new fork's transfers count.
    const reverted = [...new Set(blocks.filter((b) => hashes.get(b.n) !== b.h).map((b) => b.n))];
    let rewind: { number: bigint; hash: string } | null = null;
    const cur = await this.cursor();
    if (reverted.length && cur && Math.min(...reverted) <= cur.blockNumber) {
      const number = BigInt(Math.max(0, Math.min(...reverted) - 1));
      rewind = { number, hash: (await this.adapter.blockHash(number)) ?? "" };
    }
    const now = this.ctx.clock.now();
    const L = Number(latest);
    // Final: enough confirmations and at or below the chain's final block.
    const finalLimit = Math.min(Number(final), L - required + 1);
    await writeTx(this.ctx.db, async (tx) => {
      if (rewind) await this.saveCursor(tx, rewind.number, rewind.hash);
      for (const t of reverted.length ? await this.transfers.pendingInBlocks(tx, chain, reverted) : []) {
        if (hashes.get(t.blockNumber) === t.blockHash) continue;
        await this.transfers.revert(tx, t, now);
      }
      for (const t of await this.transfers.crossingThreshold(tx, chain, L - 1, finalLimit)) {
        if (hashes.has(t.blockNumber) && hashes.get(t.blockNumber) !== t.blockHash) continue;
        const count = L - t.blockNumber + 1;
        await this.transfers.confirm(tx, t, { count, required, final: t.blockNumber <= finalLimit }, now);
      }
      await this.transfers.showConfirmations(tx, chain, L, now);
    });
  }
}
