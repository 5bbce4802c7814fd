// TRON payout steps: the TRC20 transfer is signed with the source's HD key (no nonce on
// TRON: every transaction stands alone until its expiration), and before it is first
// sent the source gets TRX from the chain's gas wallet (index 0) when it is not activated
// or cannot burn the fee limit plus bandwidth of its signed, unsent payouts. The top-up
// is itself signed, stored in gas_topups and committed before it is broadcast.
// In `[chains.TRON.energy] mode = "stake"` the energy a TRC20 transfer needs is delegated
// to the source first (energy.ts), so the top-up covers only activation and bandwidth;
// without enough stake free, `fallback` burns TRX (the full fee limit is topped up) or waits.
import type { ChainModuleCtx } from "../module";
import type { TronChainApi } from "./adapter";
import type { SignedTransfer, TokenSymbol } from "../types";
import { gasTopupsFor } from "../common/gas-topup";
import { sourceKey, storedTx, type PayoutChainOps, type PayoutOrderRow, type PayoutStepEnv } from "../payout-steps";
import { energySteps } from "./energy";
import type { TronTxMeta } from "./adapter";

type Ctx = ChainModuleCtx;

export function tronPayoutOps(ctx: Ctx, adapter: TronChainApi, env: PayoutStepEnv): PayoutChainOps {
  const energy = energySteps(ctx, adapter, env.payouts, (key, fn) => env.locks.run(key, fn));

  /** Sun a stored transaction needs from its sender: without the fee limit when delegated energy pays for it. */
  async function needOf(tx: SignedTransfer, delegated: boolean): Promise<bigint> {
    const all = await adapter.trxNeeded(tx);
    return delegated ? all - BigInt((tx.meta as Partial<TronTxMeta>).feeLimit ?? "0") : all;
  }

  /** Sun the source needs for its signed but not yet broadcast payouts (this one included). */
  async function trxNeeded(o: PayoutOrderRow, tx: SignedTransfer, delegated: boolean): Promise<bigint> {
    const others = (await env.payouts.signedUnsent(ctx.db, o.fromAddressId)).filter((r) => r.txHash !== tx.txHash);
    let sum = await needOf(tx, delegated);
    for (const r of others) sum += await needOf(storedTx(r), await energy.covered(r.id));
    return sum;
  }

  const topups = gasTopupsFor(ctx, adapter, env);
  const topUp = (o: PayoutOrderRow, tx: SignedTransfer, delegated: boolean) =>
    topups.ensure(o, async () => {
      const [needed, acct] = await Promise.all([trxNeeded(o, tx, delegated), adapter.account(o.fromAddress)]);
      if (acct.activated && acct.balance >= needed) return 0n;
      // A TRX transfer to a new account activates it (the gas wallet pays the activation fee).
      return needed - (acct.activated ? acct.balance : 0n);
    });

  return {
    async sign(o) {
      const key = await sourceKey(ctx, adapter, env, o);
      const signed = await adapter.signTransfer({ token: o.token as TokenSymbol, from: o.fromAddress, to: o.toAddress, amount: BigInt(o.amount), privateKey: key.privateKey });
      // fallback = "wait": nothing is stored (so nothing can expire unsent) until the stake can cover it.
      await energy.mayWait(o, signed);
      return signed;
    },

    async beforeBroadcast(o, tx) {
      if (adapter.energy.mode === "stake" && (tx.meta as Partial<TronTxMeta>).kind === "TRC20") {
        // Energy is delegated only to an existing account: activation (and bandwidth) first.
        await topUp(o, tx, true);
        if (await energy.ensure(o, tx)) return;
      }
      await topUp(o, tx, false);
    },
  };
}
