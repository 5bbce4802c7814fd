// Gas top-ups (BSC: BNB, TRON: TRX): the chain's gas wallet (index 0) funds a
// payout's source before the payout is first broadcast. A top-up is itself a
// signed transaction, stored in gas_topups and committed before it is sent; one
// already under way for the order is always finished first, never duplicated.
import type { ChainModuleCtx } from "../module";
import { writeTx } from "../../db/client";
import { insertTopup, markTopup, openTopupFor, patchTopup, type TopupRow } from "./store";
import type { ChainAdapter, SignedTransfer } from "../types";
import { crashPoint } from "../../lib/crash";
import { costOf, recordCost } from "./costs";
import { RetryLater, type PayoutOrderRow, type PayoutStepEnv } from "../payout-steps";
import { sleep } from "../../lib/clock";

/** What a top-up reads: storage, time, logs and the seed the gas wallet's key comes from (what every chain's payout steps get). */
export type GasTopupDeps = ChainModuleCtx;

/** How long an attempt waits for its top-up to land before leaving it to the payout job. */
const TOPUP_WAIT_MS = 5_000;
const TOPUP_RETRY_MS = 2_000;

export interface NativeTransferSigner extends ChainAdapter {
  signNativeTransfer(req: { from: string; to: string; amount: bigint; privateKey: Uint8Array; hint?: Record<string, unknown> }): Promise<SignedTransfer>;
}

export const storedTopup = (t: TopupRow): SignedTransfer => ({ txHash: t.txHash, raw: t.signedTx, meta: JSON.parse(t.signedMeta) as Record<string, unknown> });

export function gasTopupsFor(
  ctx: GasTopupDeps,
  adapter: NativeTransferSigner,
  env: PayoutStepEnv,
  /** Chain-specific signing hint for the gas wallet (BSC: its next nonce). */
  hintFor: (gasAddress: string) => Promise<Record<string, unknown> | undefined> = async () => undefined,
) {
  const chain = adapter.chain;
  const { locks, addresses } = env;
  const setTopup = (id: number, set: Partial<TopupRow>) => patchTopup(ctx.db, id, { ...set, updatedAt: ctx.clock.now() });

  async function sign(o: PayoutOrderRow, amount: bigint): Promise<TopupRow> {
    const now = ctx.clock.now();
    const gas = writeTx(ctx.db, (tx) => addresses.gasWallet(tx, adapter, ctx.seed, now));
    return locks.run(`${chain}:${gas.address}`, async () => {
      const key = adapter.deriveKey(ctx.seed, gas.derivationIndex);
      const signed = await adapter.signNativeTransfer({ from: gas.address, to: o.fromAddress, amount, privateKey: key.privateKey, hint: await hintFor(gas.address) });
      const row = insertTopup(ctx.db, {
        chain,
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
      });
      ctx.logger.info("gas top-up signed", { chain, orderNo: o.orderNo, to: o.fromAddress, baseUnits: amount.toString(), txHash: signed.txHash });
      return row;
    });
  }

  /** Sends a stored top-up (again) and waits a little for it to land; true once it has. */
  async function drive(t: TopupRow): Promise<boolean> {
    if (t.status === "signed") {
      const r = await adapter.broadcast(storedTopup(t));
      crashPoint("payout:after-topup-broadcast");
      if (!r.ok) {
        setTopup(t.id, r.permanent ? { status: "failed", lastError: r.error } : { lastError: r.error });
        throw new RetryLater(`gas top-up not sent: ${r.error}`, TOPUP_RETRY_MS);
      }
      t = setTopup(t.id, { status: "broadcasted", lastError: null });
    }
    const deadline = ctx.clock.now() + TOPUP_WAIT_MS;
    for (;;) {
      const s = await adapter.txState(storedTopup(t));
      if (s.state === "included") {
        const cost = await costOf(adapter, storedTopup(t));
        const id = t.id;
        writeTx(ctx.db, (tx) => {
          // A failed top-up burned its fee too: both are recorded.
          if (cost) recordCost(tx, { chain, txHash: t.txHash, kind: "gas_topup", payoutOrderId: t.payoutOrderId, cost, now: ctx.clock.now() });
          markTopup(tx, id, s.success ? { status: "confirmed", updatedAt: ctx.clock.now() } : { status: "failed", lastError: "top-up failed on chain", updatedAt: ctx.clock.now() });
        });
        if (!s.success) throw new RetryLater("gas top-up failed on chain", TOPUP_RETRY_MS);
        return true;
      }
      if (s.state === "expired") {
        setTopup(t.id, { status: "failed", lastError: "top-up can never land (expired)" });
        throw new RetryLater("gas top-up expired", TOPUP_RETRY_MS);
      }
      if (s.state === "unknown") await adapter.broadcast(storedTopup(t));
      if (ctx.clock.now() > deadline) return false;
      await sleep(ctx.clock, 250);
    }
  }

  return {
    /**
     * Before a payout's first broadcast: finish a top-up under way for it, or send
     * `shortfall()` (0 = none needed) from the gas wallet. Throws RetryLater while
     * the top-up has not landed yet (the payout job retries by itself). `recheck`: a top-up
     * under way may have been sized for another transaction of the order (an EVM replacement
     * raised its fee): once it landed, what is still short is sent too.
     */
    async ensure(o: PayoutOrderRow, shortfall: () => Promise<bigint>, opts: { recheck?: boolean } = {}): Promise<void> {
      const open = openTopupFor(ctx.db, o.id);
      if (open) {
        if (!(await drive(open))) throw new RetryLater("waiting for the gas top-up to land", TOPUP_RETRY_MS);
        if (!opts.recheck) return;
      }
      const amount = await shortfall();
      if (amount <= 0n) return;
      const t = await sign(o, amount);
      crashPoint("payout:after-topup-sign-commit");
      if (!(await drive(t))) throw new RetryLater("waiting for the gas top-up to land", TOPUP_RETRY_MS);
    },
  };
}
