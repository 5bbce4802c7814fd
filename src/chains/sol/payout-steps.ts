// SOL payout steps: the gas wallet (index 0) is the fee payer of every payout, so a source
// needs no SOL: it pays the fee and the rent of a recipient token account the transfer creates.
// Solana has no nonces; a stored transaction is bound to its blockhash instead, and is only
// ever rebroadcast until that blockhash expires (then it fails, never re-signed).
import type { ChainModuleCtx } from "../module";
import { writeTx } from "../../db/client";
import type { SolAdapter, SolTxMeta } from "./adapter";
import type { TokenSymbol } from "../types";
import { RetryLater, sourceKey, type PayoutChainOps, type PayoutStepEnv } from "../payout-steps";

type Ctx = ChainModuleCtx;

const FEE_PAYER_RETRY_MS = 2_000;

export function solPayoutOps(ctx: Ctx, adapter: SolAdapter, env: PayoutStepEnv): PayoutChainOps {
  return {
    async sign(o) {
      const key = await sourceKey(ctx, adapter, env, o);
      const gas = await writeTx(ctx.db, async (tx) => await env.addresses.gasWallet(tx, adapter, ctx.seed, ctx.clock.now()));
      const feePayer = adapter.deriveKey(ctx.seed, gas.derivationIndex);
      return adapter.signTransfer({
        token: o.token as TokenSymbol,
        from: o.fromAddress,
        to: o.toAddress,
        amount: BigInt(o.amount),
        privateKey: key.privateKey,
        feePayerKey: feePayer.privateKey,
      });
    },

    // An empty gas wallet is an operator matter, not a refusal of the payout: wait for it
    // (the job retries by itself) while the transaction's blockhash is still valid.
    async beforeBroadcast(o, tx) {
      const meta = tx.meta as Partial<SolTxMeta>;
      if (!meta.feePayer || meta.feePayerLamports === undefined) return;
      const have = await adapter.nativeBalance(meta.feePayer);
      const need = BigInt(meta.feePayerLamports);
      if (have >= need) return;
      const state = await adapter.txState(tx);
      if (state.state !== "unknown") return; // landed already, or expired: broadcast decides
      ctx.logger.warn("SOL gas wallet cannot pay a payout's fee", { orderNo: o.orderNo, gasWallet: meta.feePayer, lamports: have.toString(), needed: need.toString() });
      throw new RetryLater(`SOL gas wallet ${meta.feePayer} has ${have} lamports, the payout needs ${need}`, FEE_PAYER_RETRY_MS);
    },
  };
}
