// The one treasury runner: a confirmed batch payout and a confirmed collection run are the
// same workflow (DESIGN 13): each item (a batch row, a collection leg) becomes an ordinary
// payout order (createPayout, idempotent by merchantOrderNo) recorded on the item in the same
// transaction; the payout engine does the rest; a crash resumes at the first item without an
// order. What differs (which items, the payout input, what is written on the item) is a
// TreasuryJob; which runs are in progress is this runner's, one per gateway (no module state).
import { type Db, savepoint, type Tx, writeTx } from "../db/client";
import { AppError } from "../errors";
import { crashPoint } from "../lib/crash";
import { currentKey } from "../merchants/service";
import { createPayout, type PayoutCtx } from "../payout/service";

export interface BatchRunner {
  /** First submission attempt of a new order (the payout engine; the payouts job retries anything left). */
  attempt(orderId: number): Promise<unknown>;
}

/** The payout a job's item asks for, as createPayout takes it (merchant API fields). */
export type PayoutInput = Parameters<typeof createPayout>[3];

/** One run of a treasury workflow. */
export interface TreasuryJob<Item> {
  /** "batch" or "collection": crash points (`<kind>:<item>-<n>`) and logs. */
  kind: string;
  /** The crash point's item word: "row", "leg". */
  item: string;
  id: string;
  /** The run, while it is running: its merchant and the items still without an order, in order. */
  open(db: Db): Promise<{ merchantId: number; items: Item[] } | null>;
  no(item: Item): number;
  /** The payout of an item; an AppError refuses the item (written on it by `refused`). */
  input(item: Item): PayoutInput;
  /** Writes the order on the item, in the transaction that created it. */
  created(tx: Tx, item: Item, r: { created: boolean; orderId: number }, now: number): Promise<void>;
  /** Writes why the item was refused (valid at preview, refused now: e.g. the balance moved). */
  refused(tx: Tx, item: Item, e: AppError, now: number): Promise<void>;
  /** Every item has its order: the run is done (only if it is still running). */
  finish(db: Db, now: number): Promise<void>;
}

export class TreasuryRunner {
  /** Runs being driven now (`kind:id`): a second call while one runs returns at once. */
  private readonly running = new Set<string>();

  constructor(private readonly payouts: BatchRunner) {}

  async run<Item>(ctx: PayoutCtx, job: TreasuryJob<Item>): Promise<void> {
    const runKey = `${job.kind}:${job.id}`;
    if (this.running.has(runKey)) return;
    this.running.add(runKey);
    try {
      const open = await job.open(ctx.db);
      if (!open) return;
      const key = await currentKey(ctx.db, open.merchantId);
      if (!key) throw new Error("merchant has no current API key");
      for (const item of open.items) {
        const made = await writeTx(ctx.db, async (tx) => {
          const now = ctx.clock.now();
          try {
            const r = await savepoint(tx, async () => await createPayout(ctx, open.merchantId, key.id, job.input(item)));
            await job.created(tx, item, { created: r.created, orderId: r.order.id }, now);
            return r.created ? r.order.id : null;
          } catch (e) {
            if (!(e instanceof AppError)) throw e;
            await job.refused(tx, item, e, now);
            return null;
          }
        });
        crashPoint(`${job.kind}:${job.item}-${job.no(item)}`);
        if (made !== null) {
          await this.payouts
            .attempt(made)
            .catch((e) => ctx.logger.warn(`${job.kind} payout attempt failed`, { id: job.id, [job.item]: job.no(item), error: String((e as Error)?.message ?? e) }));
        }
        // A sandbox attempt can complete without ever waiting on I/O: let requests in between items.
        await new Promise((resolve) => setImmediate(resolve));
      }
      await job.finish(ctx.db, ctx.clock.now());
    } finally {
      this.running.delete(runKey);
    }
  }
}
