// The payer's transaction hash (DESIGN 25): read that one transaction from the chain at once
// and, when it moves the order's token to the order's address, record it through the watcher's
// funnel (recordTransfer: deduplicated by chain, transaction and index; the usual amount,
// lateness and finality rules; the watcher confirms it like any scanned transfer). Otherwise a
// plain answer of what the transaction is. The answer speaks of this order only: a transfer
// that paid another order, or another address, is never named.
import { writeTx } from "../db/client";
import { RateLimiter } from "../auth/rate-limit";
import { invalid } from "../errors";
import type { IncomingTransfer, TokenSymbol, TxLookup, TxTokenTransfer } from "../chains/types";
import { recordTransfer } from "./deposits";
import type { PayinCtx } from "./service";
import type { PayinOrderRow } from "./views";
import { orderById } from "./orders-store";
import { transferByKey, type TransferRow } from "../watcher/transfers-store";
import { mapSeq } from "../lib/async-seq";

/** What the gateway answers to a hash, from the order's point of view. */
export const TX_HASH_RESULTS = [
  /** It pays this order and its block is final: the order completes (the watcher's next tick at the latest). */
  "credited",
  /** It pays this order; the order completes once the block is final. */
  "not_final",
  /** It pays this order after the order expired, within the late window: settled once final. */
  "late",
  /** No node knows this transaction yet. */
  "not_found",
  /** Known to the network, in no block yet. */
  "pending",
  /** Included but failed on chain: it moved nothing. */
  "failed",
  /** It moves tokens, none of them to this order's address. */
  "wrong_address",
  /** It pays this order's address in another token. */
  "wrong_token",
  /** It moves no token at all. */
  "no_token_transfer",
  /** It pays this order's address in its token, but not this order (another amount, or after the late window): kept for the merchant's review. */
  "not_this_order",
  /** The order was already paid by another transaction. */
  "already_paid",
] as const;
export type TxHashResult = (typeof TX_HASH_RESULTS)[number];

/** Plain words for each answer (the API's `message`; the hosted pages translate by result). */
export const TX_HASH_MESSAGES: Record<TxHashResult, string> = {
  credited: "The transaction pays this order; it is final and the order is credited.",
  not_final: "The transaction pays this order; the order completes once the block is final.",
  late: "The transaction pays this order after it expired; it is kept as a late payment for the merchant.",
  not_found: "No node knows this transaction yet. Check the hash and the network, or try again in a minute.",
  pending: "The transaction is not in a block yet. Try again once it is.",
  failed: "The transaction failed on chain and moved nothing.",
  wrong_address: "The transaction sends tokens to another address, not this order's.",
  wrong_token: "The transaction pays this order's address in another token.",
  no_token_transfer: "The transaction moves no token.",
  not_this_order: "The transaction pays this order's address, but not this order's amount; the merchant will review it.",
  already_paid: "This order was already paid by another transaction.",
};

export interface TxHashAnswer {
  result: TxHashResult;
  message: string;
  /** The order as it stands after the check. */
  order: PayinOrderRow;
}

const answer = (result: TxHashResult, order: PayinOrderRow): TxHashAnswer => ({ result, message: TX_HASH_MESSAGES[result], order });

/** The transfers of a looked-up transaction to this order's address, and of its token. */
function transfersToOrder(ctx: PayinCtx, o: PayinOrderRow, all: TxTokenTransfer[]) {
  const adapter = ctx.chains.get(o.chain as never)!;
  const same = (a: string) => {
    try {
      return adapter.normalizeAddress(a) === o.address;
    } catch {
      return false;
    }
  };
  const toAddress = all.filter((t) => same(t.to));
  return { toAddress, paying: toAddress.filter((t) => t.token === o.token) };
}

/** A looked-up transfer as the scan reports one (to: the canonical address it pays). */
export function incomingOf(chain: string, look: Extract<TxLookup, { state: "included" }>, t: TxTokenTransfer & { token: TokenSymbol }, to: string): IncomingTransfer {
  return {
    chain: chain as IncomingTransfer["chain"],
    token: t.token as IncomingTransfer["token"],
    txHash: look.txHash,
    logIndex: t.logIndex,
    blockNumber: look.blockNumber,
    blockHash: look.blockHash,
    blockTime: look.blockTime,
    from: t.from,
    to,
    amount: t.amount,
  };
}

/** What the recorded transfers mean for this order (never another order's facts). */
function verdict(o: PayinOrderRow, before: PayinOrderRow, recorded: TransferRow[], final: boolean): TxHashResult {
  const ours = recorded.find((t) => t.payinOrderId === o.id && (o.transferId === t.id || t.disposition === "late"));
  if (ours) return ours.disposition === "late" || o.status === "risk_settled" ? "late" : final || o.status === "completed" ? "credited" : "not_final";
  if (before.transferId !== null && !recorded.some((t) => t.id === before.transferId)) return "already_paid";
  return "not_this_order";
}

/** Whether the adapter of the order's chain can read a transaction by hash. */
export function canLookUp(ctx: PayinCtx, o: PayinOrderRow): boolean {
  return !!ctx.chains.get(o.chain as never)?.lookupTx;
}

/**
 * Reads `txHash` on the order's chain and credits it through the funnel when it pays the
 * order's address in the order's token. A malformed hash is 10001 (field txHash).
 */
export async function checkPayinTxHash(ctx: PayinCtx, o: PayinOrderRow, txHash: string): Promise<TxHashAnswer> {
  const adapter = ctx.chains.get(o.chain as never);
  if (!adapter?.lookupTx) throw invalid({ txHash: `transactions on ${o.chain} cannot be looked up by this gateway` });
  const look = await adapter.lookupTx(txHash);
  if (look.state === "malformed") throw invalid({ txHash: `not a ${o.chain} transaction hash` });
  if (look.state === "not_found" || look.state === "pending") return answer(look.state, o);
  if (!look.success) return answer("failed", o);
  const { toAddress, paying } = transfersToOrder(ctx, o, look.transfers);
  if (!paying.length) return answer(toAddress.length ? "wrong_token" : look.transfers.length ? "wrong_address" : "no_token_transfer", o);
  const now = ctx.clock.now();
  return await writeTx(ctx.db, async (tx) => {
    const before = (await orderById(tx, o.id))!;
    const recorded = await mapSeq(paying, async (t) => {
      const it = incomingOf(o.chain, look, { ...t, token: o.token as TokenSymbol }, o.address);
      await recordTransfer(ctx, tx, it, now);
      return (await transferByKey(tx, it.chain, it.txHash, it.logIndex))!;
    });
    const after = (await orderById(tx, o.id))!;
    return answer(verdict(after, before, recorded, look.final), after);
  });
}

/** Checks a minute per order, and per client (the merchant on the API, the payer's IP on the hosted pages). */
export const TX_HASH_PER_ORDER_PER_MINUTE = 6;
export const TX_HASH_PER_CLIENT_PER_MINUTE = 20;
const limits = new WeakMap<object, { order: RateLimiter<string>; client: RateLimiter<string> }>();

/** Takes one check from the order's and the client's buckets (10029 with retryAfter when either is empty). */
export function takeTxHashTurn(ctx: Pick<PayinCtx, "db" | "clock">, orderNo: string, client: string): void {
  let l = limits.get(ctx.db);
  if (!l) limits.set(ctx.db, (l = { order: new RateLimiter<string>(TX_HASH_PER_ORDER_PER_MINUTE), client: new RateLimiter<string>(TX_HASH_PER_CLIENT_PER_MINUTE) }));
  const now = ctx.clock.now();
  l.client.take(`client:${client}`, now);
  l.order.take(`order:${orderNo}`, now);
}
