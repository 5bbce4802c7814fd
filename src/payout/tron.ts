// TRON payout steps: the TRC20 transfer is signed with the source's HD key (no nonce on
// TRON: every transaction stands alone until its expiration), and before it is first
// sent the source gets TRX from the chain's gas wallet (index 0) when it is not activated
// or cannot burn the fee limit plus bandwidth of its signed, unsent payouts. The top-up
// is itself signed, stored in gas_topups and committed before it is broadcast.
import { and, desc, eq, inArray, isNotNull } from "drizzle-orm";
import type { AppContext } from "../app/context";
import { writeTx } from "../db/client";
import { gasTopups, payoutOrders } from "../db/schema";
import type { TronAdapter } from "../chains/tron/adapter";
import type { ChainAdapter, SignedTransfer, TokenSymbol } from "../chains/types";
import { crashPoint } from "../lib/crash";
import { addressById, gasWallet } from "../wallet/addresses";
import { RetryLater, storedTx, type KeyedLock, type PayoutChainOps } from "./executor";
import type { PayoutOrderRow } from "./views";

type Ctx = Pick<AppContext, "db" | "clock" | "seed" | "logger">;
type TopupRow = typeof gasTopups.$inferSelect;

/** How long an attempt waits for its top-up to be included before leaving it to the job. */
const TOPUP_WAIT_MS = 5_000;
const TOPUP_RETRY_MS = 2_000;

export function isTronAdapter(a: ChainAdapter): a is TronAdapter {
  return a.chain === "TRON" && a.mode === "rpc" && "signNativeTransfer" in a && "trxNeeded" in a;
}

const stored = (t: TopupRow): SignedTransfer => ({ txHash: t.txHash, raw: t.signedTx, meta: JSON.parse(t.signedMeta) as Record<string, unknown> });

export function tronPayoutOps(ctx: Ctx, adapter: TronAdapter, locks: KeyedLock): PayoutChainOps {
  const setTopup = (id: number, set: Partial<TopupRow>) =>
    ctx.db.update(gasTopups).set({ ...set, updatedAt: ctx.clock.now() }).where(eq(gasTopups.id, id)).returning().get();

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

  async function signTopup(o: PayoutOrderRow, amount: bigint): Promise<TopupRow> {
    const now = ctx.clock.now();
    const gas = writeTx(ctx.db, (tx) => gasWallet(tx, adapter, ctx.seed, now));
    return locks.run(`TRON:${gas.address}`, async () => {
      const key = adapter.deriveKey(ctx.seed, gas.derivationIndex);
      const signed = await adapter.signNativeTransfer({ from: gas.address, to: o.fromAddress, amount, privateKey: key.privateKey });
      const row = ctx.db
        .insert(gasTopups)
        .values({
          chain: "TRON",
          payoutOrderId: o.id,
          fromAddress: gas.address,
          toAddress: o.fromAddress,
          amount: amount.toString(),
          txHash: signed.txHash,
          signedTx: signed.raw,
          signedMeta: JSON.stringify(signed.meta),
          status: "signed",
          createdAt: now,
          updatedAt: now,
        })
        .returning()
        .get();
      ctx.logger.info("gas top-up signed", { orderNo: o.orderNo, to: o.fromAddress, sun: amount.toString(), txHash: signed.txHash });
      return row;
    });
  }

  /** Sends a stored top-up (again) and waits a little for it to be included; true once it is. */
  async function driveTopup(t: TopupRow): Promise<boolean> {
    if (t.status === "signed") {
      const r = await adapter.broadcast(stored(t));
      crashPoint("payout:after-topup-broadcast");
      if (!r.ok) {
        if (r.permanent) setTopup(t.id, { status: "failed", lastError: r.error });
        else setTopup(t.id, { lastError: r.error });
        throw new RetryLater(`gas top-up not sent: ${r.error}`, TOPUP_RETRY_MS);
      }
      t = setTopup(t.id, { status: "broadcasted", lastError: null });
    }
    const deadline = Date.now() + TOPUP_WAIT_MS;
    for (;;) {
      const s = await adapter.txState(stored(t));
      if (s.state === "included") {
        if (!s.success) {
          setTopup(t.id, { status: "failed", lastError: "top-up failed on chain" });
          throw new RetryLater("gas top-up failed on chain", TOPUP_RETRY_MS);
        }
        setTopup(t.id, { status: "confirmed" });
        return true;
      }
      if (s.state === "expired") {
        setTopup(t.id, { status: "failed", lastError: "expired before it was included" });
        throw new RetryLater("gas top-up expired", TOPUP_RETRY_MS);
      }
      if (s.state === "unknown") await adapter.broadcast(stored(t));
      if (Date.now() > deadline) return false;
      await Bun.sleep(250);
    }
  }

  return {
    async sign(o) {
      const a = addressById(ctx.db, o.fromAddressId)!;
      const key = adapter.deriveKey(ctx.seed, a.derivationIndex);
      return adapter.signTransfer({ token: o.token as TokenSymbol, from: o.fromAddress, to: o.toAddress, amount: BigInt(o.amount), privateKey: key.privateKey });
    },

    async beforeBroadcast(o, tx) {
      // A top-up already under way for this order is finished first (never a second one beside it).
      const open = ctx.db
        .select()
        .from(gasTopups)
        .where(and(eq(gasTopups.payoutOrderId, o.id), inArray(gasTopups.status, ["signed", "broadcasted"])))
        .orderBy(desc(gasTopups.id))
        .get();
      if (open) {
        if (!(await driveTopup(open))) throw new RetryLater("waiting for the gas top-up to be included", TOPUP_RETRY_MS);
        return;
      }
      const [needed, acct] = await Promise.all([trxNeeded(o, tx), adapter.account(o.fromAddress)]);
      if (acct.activated && acct.balance >= needed) return;
      // A TRX transfer to a new account activates it (the gas wallet pays the activation fee).
      const t = await signTopup(o, needed - (acct.activated ? acct.balance : 0n));
      crashPoint("payout:after-topup-sign-commit");
      if (!(await driveTopup(t))) throw new RetryLater("waiting for the gas top-up to be included", TOPUP_RETRY_MS);
    },
  };
}
