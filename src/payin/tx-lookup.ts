// Look up a transaction (DESIGN 25, back office): what the chain says of any hash on any chain,
// and per token transfer what the gateway knows (credited to which order, unmatched, or
// unknown), with the import of an unknown transfer to a gateway address through the scan's
// funnel (idempotent: recordTransfer deduplicates by chain, transaction and index; audited).
// A merchant user sees the gateway's side only for its own addresses.
import { writeTx } from "../db/client";
import { recordAudit, type Actor } from "../audit/log";
import type { ChainCode, TxLookup, TxTokenTransfer } from "../chains/types";
import { incomingOf } from "./tx-hash";
import { findAddress } from "../wallet/addresses";
import { recordTransfer } from "./deposits";
import type { PayinCtx } from "./service";
import { orderById } from "./orders-store";
import { transferByKey, type TransferRow } from "../watcher/transfers-store";
import { OperatorError } from "./operator-error";
import { mapSeq } from "../lib/async-seq";

export interface LookedUpTransfer extends TxTokenTransfer {
  /** The recipient is one of the gateway's addresses (in the viewer's scope). */
  gatewayAddress: boolean;
  /** unknown: never recorded; else the transfer's disposition (matched, unmatched, late…). */
  known: "unknown" | "credited" | "unmatched" | "other";
  /** The order it paid, when credited (in the viewer's scope). */
  orderNo: string | null;
  unmatchedReason: string | null;
  /** Import is offered: a configured token to a gateway address, included and successful, not recorded. */
  importable: boolean;
}

export interface TxLookupReport {
  chain: ChainCode;
  lookup: TxLookup;
  transfers: LookedUpTransfer[];
}

type Scope = { merchantId: number | null };

function adapterOf(ctx: PayinCtx, chain: string) {
  const a = ctx.chains.get(chain as ChainCode);
  if (!a?.lookupTx) throw new OperatorError("lookup.chain_unavailable", { chain });
  return a;
}

async function ownAddress(ctx: PayinCtx, chain: string, to: string, scope: Scope) {
  const adapter = ctx.chains.get(chain as ChainCode)!;
  let canonical: string;
  try {
    canonical = adapter.normalizeAddress(to);
  } catch {
    return undefined;
  }
  const a = await findAddress(ctx.db, chain, canonical);
  return a && (scope.merchantId === null || a.merchantId === scope.merchantId) ? a : undefined;
}

async function knownOf(ctx: PayinCtx, row: TransferRow | undefined, scope: Scope): Promise<Pick<LookedUpTransfer, "known" | "orderNo" | "unmatchedReason">> {
  if (!row) return { known: "unknown", orderNo: null, unmatchedReason: null };
  const order = row.payinOrderId === null ? undefined : await orderById(ctx.db, row.payinOrderId);
  const visible = order && (scope.merchantId === null || order.merchantId === scope.merchantId);
  if (visible) return { known: "credited", orderNo: order.orderNo, unmatchedReason: null };
  if (row.disposition === "unmatched") return { known: "unmatched", orderNo: null, unmatchedReason: row.unmatchedReason };
  return { known: "other", orderNo: null, unmatchedReason: null };
}

/** What the chain and the gateway say of `hash` on `chain`. */
export async function lookUpTransaction(ctx: PayinCtx, chain: string, hash: string, scope: Scope): Promise<TxLookupReport> {
  const adapter = adapterOf(ctx, chain);
  const lookup = await adapter.lookupTx!(hash);
  const transfers =
    lookup.state === "included"
      ? await mapSeq(lookup.transfers, async (t): Promise<LookedUpTransfer> => {
          const own = await ownAddress(ctx, chain, t.to, scope);
          const row = own ? await transferByKey(ctx.db, chain, lookup.txHash, t.logIndex) : undefined;
          const known = own ? await knownOf(ctx, row, scope) : { known: "unknown" as const, orderNo: null, unmatchedReason: null };
          return { ...t, gatewayAddress: !!own, ...known, importable: !!own && !row && t.token !== null && lookup.success };
        })
      : [];
  return { chain: adapter.chain, lookup, transfers };
}

/**
 * Records an unknown transfer of `hash` (its `logIndex`) to a gateway address as the scan would,
 * read again from the chain now. Recording it twice changes nothing; the import is audited once.
 */
export async function importTransfer(ctx: PayinCtx, chain: string, hash: string, logIndex: number, actor: Actor, scope: Scope): Promise<TxLookupReport> {
  const report = await lookUpTransaction(ctx, chain, hash, scope);
  const look = report.lookup;
  const t = report.transfers.find((x) => x.logIndex === logIndex);
  if (look.state !== "included" || !t) throw new OperatorError("lookup.not_on_chain");
  if (!t.gatewayAddress || t.token === null) throw new OperatorError("lookup.not_importable");
  if (!t.importable) return report;
  const now = ctx.clock.now();
  const it = incomingOf(report.chain, look, { ...t, token: t.token }, ctx.chains.get(report.chain)!.normalizeAddress(t.to));
  await writeTx(ctx.db, async (tx) => {
    if (await transferByKey(tx, it.chain, it.txHash, it.logIndex)) return;
    await recordTransfer(ctx, tx, it, now);
    const row = (await transferByKey(tx, it.chain, it.txHash, it.logIndex))!;
    await recordAudit(tx, { ...actor, action: "transfer.import", target: `transfer:${row.id}`, after: { chain: it.chain, txHash: it.txHash, logIndex: it.logIndex, to: it.to, amount: it.amount.toString(), disposition: row.disposition }, at: now });
  });
  return lookUpTransaction(ctx, chain, hash, scope);
}
