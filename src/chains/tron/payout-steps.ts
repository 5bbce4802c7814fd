// TRON payout steps: the TRC20 transfer is signed with the source's HD key (no nonce on
// TRON: every transaction stands alone until its expiration), and before it is first
// sent the source gets TRX from the chain's gas wallet (index 0) when it is not activated
// or cannot burn the fee limit plus bandwidth of its signed, unsent payouts. The top-up
// is itself signed, stored in gas_topups and committed before it is broadcast.
import type { ChainModuleCtx } from "../module";
import type { TronAdapter } from "./adapter";
import type { SignedTransfer, TokenSymbol } from "../types";
import { gasTopupsFor } from "../common/gas-topup";
import { sourceKey, storedTx, type PayoutChainOps, type PayoutOrderRow, type PayoutStepEnv } from "../payout-steps";

type Ctx = ChainModuleCtx;

export function tronPayoutOps(ctx: Ctx, adapter: TronAdapter, env: PayoutStepEnv): PayoutChainOps {
  /** Sun the source needs for its signed but not yet broadcast payouts (this one included). */
  async function trxNeeded(o: PayoutOrderRow, tx: SignedTransfer): Promise<bigint> {
    const others = env.payouts.signedUnsent(ctx.db, o.fromAddressId).filter((r) => r.txHash !== tx.txHash);
    let sum = await adapter.trxNeeded(tx);
    for (const r of others) sum += await adapter.trxNeeded(storedTx(r));
    return sum;
  }

  const topups = gasTopupsFor(ctx, adapter, env);

  return {
    async sign(o) {
      const key = sourceKey(ctx, adapter, env, o);
      return adapter.signTransfer({ token: o.token as TokenSymbol, from: o.fromAddress, to: o.toAddress, amount: BigInt(o.amount), privateKey: key.privateKey });
    },

    async beforeBroadcast(o, tx) {
      await topups.ensure(o, async () => {
        const [needed, acct] = await Promise.all([trxNeeded(o, tx), adapter.account(o.fromAddress)]);
        if (acct.activated && acct.balance >= needed) return 0n;
        // A TRX transfer to a new account activates it (the gas wallet pays the activation fee).
        return needed - (acct.activated ? acct.balance : 0n);
      });
    },
  };
}
