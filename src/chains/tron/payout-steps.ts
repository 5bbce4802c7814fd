// TRON payout steps: the TRC20 transfer is signed with the source's HD key (no nonce on
// TRON: every transaction stands alone until its expiration), and before it is first
// sent the source gets TRX from the chain's gas wallet (index 0) when it is not activated
// or cannot burn the fee limit plus bandwidth of its signed, unsent payouts. The top-up
// is itself signed, stored in gas_topups and committed before it is broadcast.
import { and, eq, isNotNull } from "drizzle-orm";
import type { ChainModuleCtx } from "../module";
import { payoutOrders } from "../../db/schema";
import type { TronAdapter } from "./adapter";
import type { SignedTransfer, TokenSymbol } from "../types";
import { addressById } from "../../wallet/addresses";
import { gasTopupsFor } from "../../payout/gas-topup";
import { storedTx, type KeyedLock, type PayoutChainOps } from "../../payout/executor";
import type { PayoutOrderRow } from "../../payout/views";

type Ctx = ChainModuleCtx;

export function tronPayoutOps(ctx: Ctx, adapter: TronAdapter, locks: KeyedLock): PayoutChainOps {
  /** Sun the source needs for its signed but not yet broadcast payouts (this one included). */
  async function trxNeeded(o: PayoutOrderRow, tx: SignedTransfer): Promise<bigint> {
    const others = ctx.db
      .select()
      .from(payoutOrders)
      .where(and(eq(payoutOrders.fromAddressId, o.fromAddressId), eq(payoutOrders.status, "submitted"), isNotNull(payoutOrders.signedTx)))
      .all()
      .filter((r) => r.txHash !== tx.txHash);
    let sum = await adapter.trxNeeded(tx);
    for (const r of others) sum += await adapter.trxNeeded(storedTx(r));
    return sum;
  }

  const topups = gasTopupsFor(ctx, adapter, locks);

  return {
    async sign(o) {
      const a = addressById(ctx.db, o.fromAddressId)!;
      const key = adapter.deriveKey(ctx.seed, a.derivationIndex);
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
