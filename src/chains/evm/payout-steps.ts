// EVM payout steps: nonces per address that survive restarts (taken from the
// stored signed transactions, never reused while one is unfinished), native-coin
// top-ups from the chain's gas wallet (index 0), themselves signed and stored
// before they are broadcast, and the replacement of a payout or top-up transaction
// that did not confirm within replace_after (same nonce, raised fees, up to the cap).
import type { ChainModuleCtx } from "../module";
import { topupMetas } from "../common/store";
import type { EvmAdapter, EvmTxMeta } from "./adapter";
import type { SignedTransfer, TokenSymbol } from "../types";
import { gasTopupsFor } from "../common/gas-topup";
import { sourceKey, type PayoutChainOps, type PayoutOrderRow, type PayoutStepEnv } from "../payout-steps";

type Ctx = ChainModuleCtx;

const nonceOf = (meta: string | null) => (meta ? Number((JSON.parse(meta) as Partial<EvmTxMeta>).nonce ?? -1) : -1);

/** Next nonce of `address`: past the node's pending count and past every unfinished transaction we stored for it. */
async function nextNonce(ctx: Ctx, adapter: EvmAdapter, env: PayoutStepEnv, address: string): Promise<number> {
  const chainNext = await adapter.pendingNonce(address);
  const payouts = (await env.payouts.unfinishedSignedMeta(ctx.db, adapter.chain, address)).map((meta) => ({ meta }));
  const topups = (await topupMetas(ctx.db, adapter.chain, address, { open: true })).map((meta) => ({ meta }));
  const stored = Math.max(-1, ...[...payouts, ...topups].map((r) => nonceOf(r.meta)));
  return Math.max(chainNext, stored + 1);
}

/** Worst-case wei a signed transaction may cost: gas limit × highest price per gas + the L1 data fee allowance (OP stack). */
export function maxCostOf(meta: Record<string, unknown>): bigint {
  return BigInt(String(meta.gasLimit)) * BigInt(String(meta.gasPrice)) + BigInt(String(meta.l1Fee ?? "0"));
}

export interface EvmPayoutOptions {
  /** chains.<C>.replace_after in ms. */
  replaceAfterMs?: number;
}

export function evmPayoutOps(ctx: Ctx, adapter: EvmAdapter, env: PayoutStepEnv, opts: EvmPayoutOptions = {}): PayoutChainOps {
  /** Native coin the source needs for its signed but not yet broadcast payouts (this one, or its replacement, included). */
  async function gasNeeded(o: PayoutOrderRow, tx: SignedTransfer): Promise<bigint> {
    const others = (await env.payouts.signedUnsent(ctx.db, o.fromAddressId))
      .filter((r) => r.signedMeta && (JSON.parse(r.signedMeta) as EvmTxMeta).nonce !== (tx.meta as EvmTxMeta).nonce);
    return others.reduce((s, r) => s + maxCostOf(JSON.parse(r.signedMeta!)), maxCostOf(tx.meta));
  }

  // A top-up that has not landed within replace_after is replaced as a payout is (same nonce, signReplacement's raised fees).
  const topups = gasTopupsFor(ctx, adapter, env, {
    hintFor: async (gas) => ({ nonce: await nextNonce(ctx, adapter, env, gas) }),
    replace: opts.replaceAfterMs === undefined ? undefined : { afterMs: opts.replaceAfterMs, sign: (prev, key) => adapter.signReplacement(prev, key) },
  });

  return {
    async sign(o) {
      const key = await sourceKey(ctx, adapter, env, o);
      const nonce = await nextNonce(ctx, adapter, env, o.fromAddress);
      return adapter.signTransfer({ token: o.token as TokenSymbol, from: o.fromAddress, to: o.toAddress, amount: BigInt(o.amount), privateKey: key.privateKey, hint: { nonce } });
    },

    replaceAfterMs: opts.replaceAfterMs,

    async replace(o, current) {
      return adapter.signReplacement(current, (await sourceKey(ctx, adapter, env, o)).privateKey);
    },

    async beforeBroadcast(o, tx) {
      // A replacement's raised fee may exceed what a top-up still under way was sized for.
      const replacement = (tx.meta as Partial<EvmTxMeta>).replaces !== undefined;
      await topups.ensure(
        o,
        async () => {
          const needed = await gasNeeded(o, tx);
          const balance = await adapter.nativeBalance(o.fromAddress);
          return balance >= needed ? 0n : needed - balance;
        },
        { recheck: replacement },
      );
    },
  };
}
