// Restore reconcile on an EVM chain (DESIGN 16): the node's nonce of a source against the
// highest nonce the database stored for it (payouts and gas top-ups, any status). Every nonce
// in between is a transaction the restored database does not know; the source's token
// transfers since the backup's cursor say what most of them were.
import { topupMetas } from "../common/store";
import type { PayoutStore } from "../payout-steps";
import type { ChainModuleCtx, OutgoingQuery, UnrecordedTransfer } from "../module";
import type { EvmAdapter, EvmTxMeta } from "./adapter";

const nonceOf = (meta: string | null) => (meta ? Number((JSON.parse(meta) as Partial<EvmTxMeta>).nonce ?? -1) : -1);

/** Highest nonce of a transaction the database signed for `address` (-1: none). */
export async function highestStoredNonce(ctx: Pick<ChainModuleCtx, "db">, payoutStore: PayoutStore, chain: string, address: string): Promise<number> {
  const payouts = (await payoutStore.signedMeta(ctx.db, chain, address)).map((meta) => ({ meta }));
  const topups = (await topupMetas(ctx.db, chain, address)).map((meta) => ({ meta }));
  return Math.max(-1, ...[...payouts, ...topups].map((r) => nonceOf(r.meta)));
}

export async function evmUnrecordedOutgoing(ctx: ChainModuleCtx, adapter: EvmAdapter, q: OutgoingQuery): Promise<UnrecordedTransfer[]> {
  const next = await adapter.pendingNonce(q.address);
  const stored = await highestStoredNonce(ctx, q.payouts, adapter.chain, q.address);
  if (next <= stored + 1) return [];
  const details = new Map<number, UnrecordedTransfer>();
  if (q.since !== null) {
    for (const t of await adapter.outgoingTokenTransfers(q.address, q.since + 1n)) {
      if (await q.known(t.txHash)) continue;
      const nonce = await adapter.transactionNonce(t.txHash);
      if (nonce === null || nonce <= stored) continue;
      details.set(nonce, { txHash: t.txHash, nonce, blockNumber: t.blockNumber, to: t.to, asset: t.token, amount: t.amount });
    }
  }
  const out: UnrecordedTransfer[] = [];
  for (let n = stored + 1; n < next; n++) out.push(details.get(n) ?? { txHash: null, nonce: n });
  return out;
}
