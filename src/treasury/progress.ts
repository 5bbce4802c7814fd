// The one progress view of a treasury run (a batch payout, a collection run): the counts,
// the sentence and the cards all come from here, so a page cannot say "0 submitted" beside
// a card "Submitted 20", nor "done" beside "In progress". Amounts are token units with
// their token ("171.15 USDT"), never base units: the audit log and the pages use tokenAmount.
import { chainModule, hasChainModule } from "../chains/registry";
import type { Db } from "../db/client";
import { fromBaseUnits } from "../lib/money";
import { PAYOUT_STATUSES, UNFINISHED, type PayoutStatus } from "../payout/state";
import { batchById, batchLineCounts, batchOrderCounts, legStates, runById } from "./store";

export interface TreasuryProgress {
  /** The run's own status. */
  status: "preview" | "running" | "done" | "discarded";
  /** Rows uploaded (a batch) or legs planned (a collection). */
  items: number;
  /** Items still to become an order (the run is creating them). */
  waiting: number;
  /** The run's orders (created, or existing for a batch row) by payout status. */
  orders: Record<PayoutStatus, number>;
  /** Refused when the order was created (valid at preview). */
  rejected: number;
  /** Batch rows with errors at upload (never sent). */
  invalid: number;
  /** Batch rows whose merchantOrderNo already had an order. */
  existing: number;
  /** Every item has its order and every order is final (or the item was refused). */
  finished: boolean;
  /** One word for where the run is, consistent with the counts. */
  phase: "preview" | "discarded" | "creating orders" | "sending" | "finished";
}

export function treasuryProgress(status: TreasuryProgress["status"], items: number, waiting: number, orders: Record<PayoutStatus, number>, extra: { rejected: number; invalid?: number; existing?: number }): TreasuryProgress {
  const unfinished = UNFINISHED.reduce((n, s) => n + orders[s], 0);
  const finished = status === "done" && waiting === 0 && unfinished === 0;
  const phase = status === "preview" || status === "discarded" ? status : finished ? "finished" : waiting > 0 && status === "running" ? "creating orders" : "sending";
  return { status, items, waiting, orders, rejected: extra.rejected, invalid: extra.invalid ?? 0, existing: extra.existing ?? 0, finished, phase };
}

const noOrders = (): Record<PayoutStatus, number> => Object.fromEntries(PAYOUT_STATUSES.map((s) => [s, 0])) as Record<PayoutStatus, number>;

/** A batch's progress (rows by state, their orders by status). */
export async function batchProgressOf(db: Db, batchId: string): Promise<TreasuryProgress> {
  const b = await batchById(db, batchId);
  if (!b) throw new Error(`no batch ${batchId}`);
  const byState = await batchLineCounts(db, batchId);
  const orders = noOrders();
  for (const r of await batchOrderCounts(db, batchId)) {
    orders[r.status] = r.n;
  }
  const waiting = b.status === "preview" || b.status === "discarded" ? 0 : (byState.valid ?? 0);
  return treasuryProgress(b.status, b.rowCount, waiting, orders, { rejected: byState.rejected ?? 0, invalid: byState.invalid ?? 0, existing: byState.existing ?? 0 });
}

/** A collection run's progress (legs by state, their orders by status). */
export async function collectionProgressOf(db: Db, runId: string): Promise<TreasuryProgress> {
  const r = await runById(db, runId);
  if (!r) throw new Error(`no collection run ${runId}`);
  const orders = noOrders();
  let planned = 0;
  let rejected = 0;
  for (const { state, status } of await legStates(db, runId)) {
    if (status) orders[status]++;
    else if (state === "rejected") rejected++;
    else planned++;
  }
  const status = r.status as TreasuryProgress["status"];
  return treasuryProgress(status, r.legCount, status === "preview" || status === "discarded" ? 0 : planned, orders, { rejected });
}

/** The one sentence of a run's progress. */
export function progressText(p: TreasuryProgress): string {
  if (p.finished) return `Finished: ${p.orders.confirmed} confirmed, ${p.orders.failed} failed, ${p.rejected} refused${p.invalid ? `, ${p.invalid} rows with errors` : ""}.`;
  return `In progress (${p.phase}): ${p.orders.confirmed} confirmed, ${p.orders.broadcasted} broadcast, ${p.orders.submitted} submitted, ${p.waiting} waiting to be created.`;
}

/** The cards beside it: the same numbers, one per label. */
export function progressCards(p: TreasuryProgress, opts: { itemLabel: string }): Array<[string, number]> {
  const cards: Array<[string, number]> = [
    [opts.itemLabel, p.items],
    ["Confirmed", p.orders.confirmed],
    ["Broadcast", p.orders.broadcasted],
    ["Submitted", p.orders.submitted],
    ["Waiting to be created", p.waiting],
    ["Failed", p.orders.failed],
    ["Refused at creation", p.rejected],
  ];
  if (p.invalid) cards.push(["Rows with errors", p.invalid]);
  return cards;
}

/** Base units as token units with the token ("171.15 USDT"): what the pages and the audit log show. */
export function tokenAmount(chain: string, token: string, baseUnits: string | bigint, decimals?: number): string {
  const d = decimals ?? (hasChainModule(chain) ? chainModule(chain).defaults.tokens.find((t) => t.symbol === token)?.decimals : undefined) ?? 6;
  return `${fromBaseUnits(BigInt(baseUnits), d, 2)} ${token}`;
}
