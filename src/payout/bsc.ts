// BSC payout steps: nonces per address that survive restarts (taken from the
// stored signed transactions, never reused while one is unfinished) and BNB
// top-ups from the chain's gas wallet (index 0), themselves signed and stored
// before they are broadcast.
import { and, desc, eq, inArray, isNotNull } from "drizzle-orm";
import type { AppContext } from "../app/context";
import { writeTx } from "../db/client";
import { gasTopups, payoutOrders } from "../db/schema";
import type { BscAdapter, BscTxMeta } from "../chains/bsc/adapter";
import type { ChainAdapter, SignedTransfer, TokenSymbol } from "../chains/types";
import { crashPoint } from "../lib/crash";
import { addressById, gasWallet } from "../wallet/addresses";
import { RetryLater, type KeyedLock, type PayoutChainOps } from "./executor";
import type { PayoutOrderRow } from "./views";

type Ctx = Pick<AppContext, "db" | "clock" | "seed" | "logger">;
export type TopupRow = typeof gasTopups.$inferSelect;

/** How long an attempt waits for its top-up to be mined before leaving it to the job. */
const TOPUP_WAIT_MS = 5_000;
const TOPUP_RETRY_MS = 2_000;

export function isBscAdapter(a: ChainAdapter): a is BscAdapter {
  return a.chain === "BSC" && a.mode === "rpc" && "signNativeTransfer" in a && "nativeBalance" in a;
}

const nonceOf = (meta: string | null) => (meta ? Number((JSON.parse(meta) as Partial<BscTxMeta>).nonce ?? -1) : -1);

/** Next nonce of `address`: past the node's pending count and past every unfinished transaction we stored for it. */
async function nextNonce(ctx: Ctx, adapter: BscAdapter, address: string): Promise<number> {
  const chainNext = Number(BigInt(await adapter.rpc.request<string>("eth_getTransactionCount", [address, "pending"])));
  const payouts = ctx.db
    .select({ meta: payoutOrders.signedMeta })
    .from(payoutOrders)
    .where(and(eq(payoutOrders.chain, "BSC"), eq(payoutOrders.fromAddress, address), inArray(payoutOrders.status, ["submitted", "broadcasted"]), isNotNull(payoutOrders.signedMeta)))
    .all();
  const topups = ctx.db
    .select({ meta: gasTopups.signedMeta })
    .from(gasTopups)
    .where(and(eq(gasTopups.chain, "BSC"), eq(gasTopups.fromAddress, address), inArray(gasTopups.status, ["signed", "broadcasted"])))
    .all();
  const stored = Math.max(-1, ...[...payouts, ...topups].map((r) => nonceOf(r.meta)));
  return Math.max(chainNext, stored + 1);
}

const gasCost = (meta: Record<string, unknown>) => BigInt(String(meta.gasLimit)) * BigInt(String(meta.gasPrice));
const stored = (t: TopupRow): SignedTransfer => ({ txHash: t.txHash, raw: t.signedTx, meta: JSON.parse(t.signedMeta) as Record<string, unknown> });

export function bscPayoutOps(ctx: Ctx, adapter: BscAdapter, locks: KeyedLock): PayoutChainOps {
  const setTopup = (id: number, set: Partial<TopupRow>) =>
    ctx.db.update(gasTopups).set({ ...set, updatedAt: ctx.clock.now() }).where(eq(gasTopups.id, id)).returning().get();

  /** BNB the source needs for its signed but not yet broadcast payouts (this one included). */
  function gasNeeded(o: PayoutOrderRow, tx: SignedTransfer): bigint {
    const others = ctx.db
      .select({ meta: payoutOrders.signedMeta })
      .from(payoutOrders)
      .where(and(eq(payoutOrders.fromAddressId, o.fromAddressId), eq(payoutOrders.status, "submitted"), isNotNull(payoutOrders.signedMeta)))
      .all()
      .filter((r) => r.meta && (JSON.parse(r.meta) as BscTxMeta).nonce !== (tx.meta as BscTxMeta).nonce);
    return others.reduce((s, r) => s + gasCost(JSON.parse(r.meta!)), gasCost(tx.meta));
  }

  async function signTopup(o: PayoutOrderRow, amount: bigint): Promise<TopupRow> {
    const now = ctx.clock.now();
    const gas = writeTx(ctx.db, (tx) => gasWallet(tx, adapter, ctx.seed, now));
    return locks.run(`BSC:${gas.address}`, async () => {
      const key = adapter.deriveKey(ctx.seed, gas.derivationIndex);
      const signed = await adapter.signNativeTransfer({ from: gas.address, to: o.fromAddress, amount, privateKey: key.privateKey, hint: { nonce: await nextNonce(ctx, adapter, gas.address) } });
      const row = ctx.db
        .insert(gasTopups)
        .values({
          chain: "BSC",
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
      ctx.logger.info("gas top-up signed", { orderNo: o.orderNo, to: o.fromAddress, wei: amount.toString(), txHash: signed.txHash });
      return row;
    });
  }

  /** Sends a stored top-up (again) and waits a little for it to be mined; true once it is. */
  async function driveTopup(t: TopupRow): Promise<boolean> {
    if (t.status === "signed") {
      const r = await adapter.broadcast(stored(t));
      crashPoint("payout:after-topup-broadcast");
      if (!r.ok) {
        if (r.permanent) setTopup(t.id, { status: "failed", lastError: r.error });
        throw new RetryLater(`gas top-up not sent: ${r.error}`, TOPUP_RETRY_MS);
      }
      t = setTopup(t.id, { status: "broadcasted", lastError: null });
    }
    const deadline = Date.now() + TOPUP_WAIT_MS;
    for (;;) {
      const s = await adapter.txState(stored(t));
      if (s.state === "included") {
        if (!s.success) {
          setTopup(t.id, { status: "failed", lastError: "top-up reverted" });
          throw new RetryLater("gas top-up reverted", TOPUP_RETRY_MS);
        }
        setTopup(t.id, { status: "confirmed" });
        return true;
      }
      if (s.state === "expired") {
        setTopup(t.id, { status: "failed", lastError: "nonce used by another transaction" });
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
      const nonce = await nextNonce(ctx, adapter, o.fromAddress);
      return adapter.signTransfer({ token: o.token as TokenSymbol, from: o.fromAddress, to: o.toAddress, amount: BigInt(o.amount), privateKey: key.privateKey, hint: { nonce } });
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
        if (!(await driveTopup(open))) throw new RetryLater("waiting for the gas top-up to be mined", TOPUP_RETRY_MS);
        return;
      }
      const needed = gasNeeded(o, tx);
      const balance = await adapter.nativeBalance(o.fromAddress);
      if (balance >= needed) return;
      const t = await signTopup(o, needed - balance);
      crashPoint("payout:after-topup-sign-commit");
      if (!(await driveTopup(t))) throw new RetryLater("waiting for the gas top-up to be mined", TOPUP_RETRY_MS);
    },
  };
}
