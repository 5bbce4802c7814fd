// TON payout steps (DESIGN 23): the jetton transfer is signed with the source's HD key at the
// wallet's next seqno (past every unfinished message stored for it, so two payouts from one
// wallet never share a seqno), and before it is first sent the source gets TON from the chain's
// gas wallet (index 0) when its balance cannot cover the TON its signed, unsent messages attach
// plus the wallet's fees (its deploy on the first transfer). The top-up is itself a signed
// message from the gas wallet, stored in gas_topups and committed before it is sent, at the gas
// wallet's next seqno past its open top-ups. A wallet takes seqnos in order only: a message whose
// seqno is ahead of the wallet's waits (RetryLater) for the ones before it to land.
import type { ChainModuleCtx } from "../module";
import { topupMetas } from "../common/store";
import { gasTopupsFor } from "../common/gas-topup";
import { RetryLater, sourceKey, storedTx, type PayoutChainOps, type PayoutOrderRow, type PayoutStepEnv } from "../payout-steps";
import type { SignedTransfer, TokenSymbol } from "../types";
import type { TonAdapter, TonTxMeta } from "./adapter";
import { WALLET_FEE_RESERVE } from "./send";

/** How soon a message waiting for the wallet's earlier seqnos is tried again. */
const SEQNO_WAIT_MS = 2_000;

const seqnoOf = (meta: string | null): number => {
  if (!meta) return -1;
  const m = JSON.parse(meta) as Partial<TonTxMeta>;
  return typeof m.seqno === "number" ? m.seqno : -1;
};

/** Nanotons a stored message takes from its wallet: what it attaches and the wallet's fees. */
export const tonNeededFor = (tx: SignedTransfer): bigint => BigInt((tx.meta as unknown as TonTxMeta).attached) + WALLET_FEE_RESERVE;

export function tonPayoutOps(ctx: ChainModuleCtx, adapter: TonAdapter, env: PayoutStepEnv): PayoutChainOps {
  /** The lowest seqno `address` may sign now: past every unfinished payout and open top-up stored for it (the wallet's own is read when signing). */
  async function seqnoFloor(address: string): Promise<number> {
    const payouts = await env.payouts.unfinishedSignedMeta(ctx.db, adapter.chain, address);
    const topups = await topupMetas(ctx.db, adapter.chain, address, { open: true });
    return Math.max(-1, ...[...payouts, ...topups].map(seqnoOf)) + 1;
  }

  /** Nanotons the source needs for its signed but not yet broadcast payouts (this one included). */
  async function tonNeeded(o: PayoutOrderRow, tx: SignedTransfer): Promise<bigint> {
    const others = (await env.payouts.signedUnsent(ctx.db, o.fromAddressId)).filter((r) => r.txHash !== tx.txHash);
    return others.reduce((s, r) => s + tonNeededFor(storedTx(r)), tonNeededFor(tx));
  }

  const topups = gasTopupsFor(ctx, adapter, env, { hintFor: async (gas) => ({ seqno: await seqnoFloor(gas) }) });

  return {
    async sign(o) {
      const key = await sourceKey(ctx, adapter, env, o);
      return adapter.signTransfer({ token: o.token as TokenSymbol, from: o.fromAddress, to: o.toAddress, amount: BigInt(o.amount), privateKey: key.privateKey, hint: { seqno: await seqnoFloor(o.fromAddress) } });
    },

    async beforeBroadcast(o, tx) {
      const w = await adapter.wallet(o.fromAddress);
      const { seqno, validUntil } = tx.meta as unknown as TonTxMeta;
      if (w.seqno < seqno) {
        // Past its valid_until it can never land: the broadcast says so (the payout fails, nothing sent).
        if (Math.floor((await adapter.head()).time / 1000) > validUntil) return;
        // An earlier message of this wallet has not landed yet: the wallet would refuse this one.
        throw new RetryLater(`waiting for seqno ${w.seqno} of ${o.fromAddress} to land before sending seqno ${seqno}`, SEQNO_WAIT_MS);
      }
      // Sent already (its seqno is taken): nothing to fund; the broadcast finds it on chain or waits for its valid_until.
      if (w.seqno > seqno) return;
      await topups.ensure(o, async () => {
        const needed = await tonNeeded(o, tx);
        const { balance } = await adapter.wallet(o.fromAddress);
        return balance >= needed ? 0n : needed - balance;
      });
    },
  };
}
