// The sweep (DESIGN 25): a second, independent detection path beside the block scan. Every
// `payin.sweep_every`, per chain, it asks the adapter (`ChainAdapter.sweep`: EVM eth_getLogs
// by recipient topic, TRON the account's TRC20 history, SOL getSignaturesForAddress, TON the
// owner's toncenter v3 transactions) for the incoming transfers of each address with an open
// order and each exclusive address active within `payin.sweep_window`, up to the block the
// scan has read. A transfer the scan missed
// goes through the scan's own funnel (deposits.ts recordTransfer: deduplicated by chain,
// transaction and index, matched, credited with the usual rules), is marked found_by =
// 'sweep', counted (stablegate_sweep_found_total{chain}) and raises the alert scan_missed.
// Each address is swept from where its last sweep ended, so a quiet address costs one or two
// calls; docs/operations.md "The sweep" gives the cost and `make bench ARGS=rpc` measures it.
import { afterCommit, writeTx } from "../db/client";
import type { ChainAdapter, IncomingTransfer } from "../chains/types";
import { parseDuration } from "../lib/duration";
import { countSweepFound } from "../lib/event-metrics";
import { recordTransfer } from "./deposits";
import type { PayinCtx } from "./service";
import { markFoundBySweep, transactionRecorded } from "../watcher/transfers-store";
import { sweepTargets } from "./orders-store";

/** Block times and the gateway's clock differ: an order's payment is looked for from a little before its creation. */
export const SWEEP_SLACK_MS = 5 * 60_000;
/** Addresses one sweep of one chain asks about at most (the rest, least recently swept first, wait for the next run). */
export const SWEEP_MAX_ADDRESSES = 1000;

export interface SweepReport {
  /** Addresses asked about. */
  addresses: number;
  /** Transfers the scan missed, recorded now. */
  found: IncomingTransfer[];
  /** Addresses whose question failed (asked again next run). */
  failed: number;
}

export class PayinSweep {
  /** Address → the last block its sweep covered (from the next run on, only blocks after it are asked for). */
  private readonly swept = new Map<string, bigint>();
  private running: Promise<SweepReport> | null = null;

  constructor(
    private readonly ctx: PayinCtx,
    readonly adapter: ChainAdapter,
    /** The block the scan has read up to (the watcher's cursor); null before it started. */
    private readonly scanned: () => Promise<bigint | null>,
    private readonly opts: { maxAddresses?: number } = {},
  ) {}

  /** One sweep of the chain; a call while one runs joins it. */
  run(): Promise<SweepReport> {
    this.running ??= this.sweep().finally(() => (this.running = null));
    return this.running;
  }

  private async sweep(): Promise<SweepReport> {
    const report: SweepReport = { addresses: 0, found: [], failed: 0 };
    const ask = this.adapter.sweep?.bind(this.adapter);
    const upTo = await this.scanned();
    if (!ask || upTo === null) return report;
    const { db, clock, logger } = this.ctx;
    const chain = this.adapter.chain;
    const windowStart = clock.now() - parseDuration(this.ctx.config.payin.sweep_window);
    const targets = await sweepTargets(db, chain, windowStart);
    const live = new Set(targets.map((t) => t.address));
    for (const a of this.swept.keys()) if (!live.has(a)) this.swept.delete(a);
    // Never swept first, then the longest ago.
    let firstError: { address: string; error: string } | undefined;
    const order = targets.sort((a, b) => Number((this.swept.get(a.address) ?? -1n) - (this.swept.get(b.address) ?? -1n)));
    for (const t of order.slice(0, this.opts.maxAddresses ?? SWEEP_MAX_ADDRESSES)) {
      report.addresses++;
      try {
        const after = this.swept.get(t.address) ?? null;
        if (after !== null && after >= upTo) continue;
        const since = Math.max(windowStart, t.since - SWEEP_SLACK_MS);
        const seen = await ask({ address: t.address, after, since, upTo, known: async (h) => await transactionRecorded(db, chain, h) });
        report.found.push(...await this.record(seen.filter((s) => s.blockNumber <= upTo)));
        this.swept.set(t.address, upTo);
      } catch (e) {
        report.failed++;
        firstError ??= { address: t.address, error: String((e as Error)?.message ?? e) };
      }
    }
    // One line per run, not one per address: a node that cannot answer would fail them all.
    if (firstError) logger.warn("sweep: asking the node failed; asked again next run", { chain, failed: report.failed, of: report.addresses, ...firstError });
    return report;
  }

  /** Through the scan's funnel; what it had not recorded yet is the scan's miss. */
  private async record(seen: IncomingTransfer[]): Promise<IncomingTransfer[]> {
    if (seen.length === 0) return [];
    const chain = this.adapter.chain;
    const now = this.ctx.clock.now();
    const missed: IncomingTransfer[] = [];
    await writeTx(this.ctx.db, async (tx) => {
      for (const t of seen) {
        const row = await recordTransfer(this.ctx, tx, t, now);
        if (!row) continue;
        await markFoundBySweep(tx, row.id);
        missed.push(t);
        afterCommit(tx, () => {
          countSweepFound(chain);
          this.ctx.logger.warn("sweep: recorded a transfer the block scan missed (alert scan_missed)", {
            chain,
            txHash: t.txHash,
            logIndex: t.logIndex,
            block: Number(t.blockNumber),
            to: t.to,
            token: t.token,
            amount: t.amount.toString(),
          });
        });
      }
    });
    return missed;
  }
}
