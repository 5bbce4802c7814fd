// TRON energy (DESIGN 21). In `stake` mode an energy wallet (HD index ENERGY_WALLET_INDEX on
// TRON's path) holds TRX staked for ENERGY (Stake 2.0). Before a TRC20 transfer from one of
// the gateway's addresses it delegates the energy the transfer needs to that source; once the
// transfer is final a job reclaims the delegation. Each delegation and each reclaim is signed,
// stored in energy_delegations and committed before it is broadcast, and only ever rebroadcast
// (or, once expired unsent, signed again), so a crash at any step neither loses the stake (a
// delegation is always reclaimed by the job) nor sends a payout twice (the payout's own
// transaction is untouched). Not enough stake free: `fallback` burns TRX as in `burn` mode, or
// waits (RetryLater) until the stake regenerates.
import { type Tx, writeTx } from "../../db/client";
import { costOf, recordCost } from "../common/costs";
import { delegationById, inFlightSun, insertDelegation, insertStakingTx, openDelegationFor, othersOutSun, patchDelegation, reclaimableDelegations, servedDelegations, setStakingTx, type DelegationRow } from "./store";
import { transition } from "./state";
import { crashPoint } from "../../lib/crash";
import { sleep } from "../../lib/clock";
import { fromBaseUnits, toBaseUnits } from "../../lib/money";
import type { ChainJob, ChainModuleCtx, StakingControl } from "../module";
import { RetryLater, type PayoutOrderRow, type PayoutStore } from "../payout-steps";
import type { DerivedKey, SignedTransfer, TxState } from "../types";
import type { TronChainApi, TronEnergy, TronTxMeta } from "./adapter";
import { isPg, pgSide } from "../../db/engine";

/** The epoch fence (DESIGN 22): PostgreSQL only (SQLite has one gateway), loaded there on first use. */
const fence = pgSide<typeof import("../../cluster/fence")>(() => require("../../cluster/fence"));

/**
 * The energy wallet's HD index on m/44'/195'/0'/0/i: the last non-hardened index, which
 * merchant addresses (counting up from 1) never reach, fixed so that a restored database
 * finds the same wallet and its stake.
 */
export const ENERGY_WALLET_INDEX = 0x7fffffff;
const SUN = 1_000_000n;
/** More sun than any stake: "cannot delegate" (the node gave no network totals: the wallet has never staked). */
const UNREACHABLE = 1n << 62n;
/** How long an attempt waits for its delegation to land before leaving it to the payout job. */
const LAND_WAIT_MS = 5_000;
const RETRY_MS = 2_000;
/** fallback = "wait": how soon a payout asks again for energy (usage recovers linearly over 24 h). */
export const ENERGY_WAIT_RETRY_MS = 60_000;
/** The reclaim job's pace. */
const RECLAIM_EVERY_MS = 3_000;


export const energyWallet = (ctx: Pick<ChainModuleCtx, "seed">, adapter: TronChainApi): DerivedKey => adapter.deriveKey(ctx.seed, ENERGY_WALLET_INDEX);

/** Sun of stake that gives `energy` at the network's totals: whole TRX (the chain counts stake in TRX), at least 1 TRX. */
export function sunForEnergy(energy: bigint, e: Pick<TronEnergy, "totalLimit" | "totalWeight">): bigint {
  if (e.totalLimit <= 0n) throw new Error("TRON node gave no TotalEnergyLimit");
  const trx = (energy * e.totalWeight + e.totalLimit - 1n) / e.totalLimit;
  return (trx < 1n ? 1n : trx) * SUN;
}
export const energyForSun = (sun: bigint, e: Pick<TronEnergy, "totalLimit" | "totalWeight">): bigint => (e.totalWeight > 0n ? ((sun / SUN) * e.totalLimit) / e.totalWeight : 0n);

const stored = (hash: string, raw: string, meta: string): SignedTransfer => ({ txHash: hash, raw, meta: JSON.parse(meta) as Record<string, unknown> });
const delegateTx = (r: DelegationRow) => stored(r.delegateTxHash, r.delegateSignedTx, r.delegateMeta);
const reclaimTx = (r: DelegationRow) => stored(r.reclaimTxHash!, r.reclaimSignedTx!, r.reclaimMeta!);

export interface EnergySteps {
  /**
   * Before a TRC20 payout is first broadcast in stake mode: makes sure the source has the
   * energy `tx` needs (delegating it when short). True: covered by stake; false: the payout
   * burns TRX (mode burn, or fallback burn). Throws RetryLater while a delegation has not
   * landed, or (fallback wait) while the stake has too little free.
   */
  ensure(o: PayoutOrderRow, tx: SignedTransfer): Promise<boolean>;
  /**
   * fallback = "wait", before a payout is stored: throws RetryLater while the stake could not
   * cover `tx` now, so a payout waits unsigned (a signed one would expire while it waits).
   */
  mayWait(o: PayoutOrderRow, tx: SignedTransfer): Promise<void>;
  /** Whether a payout has (or is getting) delegated energy. */
  covered(payoutOrderId: number): Promise<boolean>;
  /** The reclaim job: delegations of final payouts go back to the energy wallet. */
  reclaimAll(): Promise<number>;
}

export function energySteps(ctx: ChainModuleCtx, adapter: TronChainApi, payouts: PayoutStore, lock: <T>(key: string, fn: () => Promise<T>) => Promise<T>): EnergySteps {
  const chain = adapter.chain;
  /** One transition of a delegation, with what else belongs in its transaction (its cost record). */
  const update = async (id: number, event: string | null, set: Partial<DelegationRow>, also?: (tx: Tx) => Promise<unknown>): Promise<DelegationRow> =>
    await writeTx(ctx.db, async (tx) => {
      // A reclaim's signed transaction is stored under the leader's epoch (DESIGN 22).
      if (set.reclaimSignedTx !== undefined && isPg(tx)) await fence.assertLeading(tx);
      const cur = (await delegationById(tx, id))!;
      const status = event === null ? cur.status : transition(cur.status, event);
      const row = await patchDelegation(tx, id, cur.status, { ...set, status, updatedAt: ctx.clock.now() });
      // Another writer moved it first: its change (and cost record) stands.
      if (!row) return (await delegationById(tx, id))!;
      await also?.(tx);
      return row;
    });

  const openFor = async (payoutOrderId: number) => await openDelegationFor(ctx.db, payoutOrderId);

  /** Sun delegations signed but not yet seen on chain hold back (the node's answer does not count them yet). */
  const inFlight = async (): Promise<bigint> => await inFlightSun(ctx.db, chain);

  /** Sends a stored transaction (again) and waits a little for it; the state it reached. */
  async function land(tx: SignedTransfer, sent: boolean, onSent: () => Promise<unknown>, point: string): Promise<TxState | "refused"> {
    if (!sent) {
      const r = await adapter.broadcast(tx);
      crashPoint(point);
      if (!r.ok) {
        if (r.permanent) return "refused";
        throw new RetryLater(`energy transaction not sent: ${r.error}`, RETRY_MS);
      }
      await onSent();
    }
    const deadline = ctx.clock.now() + LAND_WAIT_MS;
    for (;;) {
      const s = await adapter.txState(tx);
      if (s.state === "included" || s.state === "expired") return s;
      if (s.state === "unknown") await adapter.broadcast(tx);
      if (ctx.clock.now() > deadline) return s;
      await sleep(ctx.clock, 250);
    }
  }

  /** Drives a delegation to `delegated`; true once there, false when it failed for good (the caller falls back). */
  async function driveDelegation(row: DelegationRow): Promise<boolean> {
    if (row.status === "delegated") return true;
    const s = await land(delegateTx(row), row.status === "broadcasted", async () => (row = await update(row.id, "broadcasted", { lastError: null })), "energy:after-delegate-broadcast");
    if (s === "refused" || s.state === "expired" || (s.state === "included" && !s.success)) {
      await update(row.id, "failed", { lastError: s === "refused" ? "delegation refused by the node" : s.state === "expired" ? "delegation expired unsent" : "delegation failed on chain" });
      return false;
    }
    if (s.state === "included") {
      const cost = await costOf(adapter, delegateTx(row));
      await update(row.id, "landed", { lastError: null }, async (t) => cost && await recordCost(t, { chain, txHash: row.delegateTxHash, kind: "delegate", payoutOrderId: row.payoutOrderId, cost, now: ctx.clock.now() }));
      return true;
    }
    throw new RetryLater("waiting for the energy delegation to land", RETRY_MS);
  }

  async function reclaim(row: DelegationRow, payoutTxHash: string | null): Promise<void> {
    const wallet = energyWallet(ctx, adapter);
    if (row.status === "delegated") {
      // What the payout took from the delegation, and what burning it would have cost.
      const rc = payoutTxHash ? await adapter.receipt(payoutTxHash) : null;
      const used = rc ? (rc.energyFromStake < BigInt(row.energy) ? rc.energyFromStake : BigInt(row.energy)) : 0n;
      const price = (await adapter.chainParams()).energyFee;
      const signed = await adapter.signStake({ op: "undelegate", from: wallet.address, to: row.receiver, amount: BigInt(row.amount), privateKey: wallet.privateKey });
      row = await update(row.id, "reclaim_signed", {
        reclaimTxHash: signed.txHash,
        reclaimSignedTx: signed.raw,
        reclaimMeta: JSON.stringify(signed.meta),
        energyUsed: used.toString(),
        sunSaved: (used * price).toString(),
      });
      crashPoint("energy:after-reclaim-sign-commit");
    }
    const s = await land(reclaimTx(row), false, async () => {}, "energy:after-reclaim-broadcast");
    if (s !== "refused" && s.state === "included" && s.success) {
      const cost = await costOf(adapter, reclaimTx(row));
      await update(row.id, "reclaimed", { lastError: null }, async (t) => cost && await recordCost(t, { chain, txHash: row.reclaimTxHash!, kind: "reclaim", payoutOrderId: row.payoutOrderId, cost, now: ctx.clock.now() }));
      return;
    }
    if (s !== "refused" && s.state !== "expired" && !(s.state === "included" && !s.success)) return; // still on its way
    // Refused, failed or expired: the chain says whether the stake is still out.
    const still = await adapter.delegatedTo(wallet.address, row.receiver);
    const othersOut = await othersOutSun(ctx.db, chain, row.receiver, row.id);
    if (still <= othersOut) {
      await update(row.id, "reclaimed", { lastError: null });
      return;
    }
    // Still delegated and its reclaim can never land: sign it again.
    const signed = await adapter.signStake({ op: "undelegate", from: wallet.address, to: row.receiver, amount: BigInt(row.amount), privateKey: wallet.privateKey });
    await update(row.id, "reclaim_signed", { reclaimTxHash: signed.txHash, reclaimSignedTx: signed.raw, reclaimMeta: JSON.stringify(signed.meta), lastError: "reclaim did not land; signed again" });
  }

  /** Sun to delegate so the source has the energy `tx` needs (0: it has it already). */
  async function shortOf(o: PayoutOrderRow, tx: SignedTransfer): Promise<{ sun: bigint; res: TronEnergy }> {
    const need = BigInt((tx.meta as Partial<TronTxMeta>).energy ?? "0");
    let res = await adapter.energyOf(o.fromAddress);
    if (res.available >= need) return { sun: 0n, res };
    // A source not activated yet has no resource answer ({}): the network's totals from the wallet's.
    if (res.totalLimit === 0n) res = { ...(await adapter.energyOf(energyWallet(ctx, adapter).address)), limit: 0n, used: 0n, available: 0n };
    if (res.totalLimit === 0n) return { sun: UNREACHABLE, res };
    return { sun: sunForEnergy(need - res.available, res), res };
  }
  const free = async (owner: string) => (await adapter.canDelegate(owner)) - await inFlight();

  return {
    covered: async (id) => await openFor(id) !== undefined,

    async mayWait(o, tx) {
      if (adapter.energy.mode !== "stake" || adapter.energy.fallback !== "wait" || (tx.meta as Partial<TronTxMeta>).kind !== "TRC20") return;
      const { sun } = await shortOf(o, tx);
      if (sun > 0n && (await free(energyWallet(ctx, adapter).address)) < sun) fallback(o);
    },

    async ensure(o, tx) {
      const meta = tx.meta as Partial<TronTxMeta>;
      if (adapter.energy.mode !== "stake" || meta.kind !== "TRC20") return false;
      const open = await openFor(o.id);
      if (open) {
        if (await driveDelegation(open)) return true;
        return fallback(o);
      }
      const { sun, res } = await shortOf(o, tx);
      if (sun === 0n) return true;
      const wallet = energyWallet(ctx, adapter);
      const row = await lock(`${chain}:${wallet.address}`, async () => {
        if ((await free(wallet.address)) < sun) return null;
        const signed = await adapter.signStake({ op: "delegate", from: wallet.address, to: o.fromAddress, amount: sun, privateKey: wallet.privateKey });
        const now = ctx.clock.now();
        const r = await writeTx(ctx.db, async (t) => {
          if (isPg(t)) await fence.assertLeading(t);
          return await insertDelegation(t, {
            chain,
            payoutOrderId: o.id,
            owner: wallet.address,
            receiver: o.fromAddress,
            amount: sun.toString(),
            energy: energyForSun(sun, res).toString(),
            delegateTxHash: signed.txHash,
            delegateSignedTx: signed.raw,
            delegateMeta: JSON.stringify(signed.meta),
            status: "signed",
            createdAt: now,
            updatedAt: now,
          });
        });
        ctx.logger.info("energy delegation signed", { chain, orderNo: o.orderNo, to: o.fromAddress, sun: sun.toString(), txHash: signed.txHash });
        return r;
      });
      if (!row) return fallback(o);
      crashPoint("energy:after-delegate-sign-commit");
      if (await driveDelegation(row)) return true;
      return fallback(o);
    },

    async reclaimAll() {
      const open = await reclaimableDelegations(ctx.db, chain);
      // Only delegations whose payout is finished: nothing more of it will land.
      const done = new Map((await payouts.finished(ctx.db, [...new Set(open.map((d) => d.payoutOrderId))])).map((o) => [o.id, o.txHash]));
      let n = 0;
      for (const d of open) {
        if (!done.has(d.payoutOrderId)) continue;
        try {
          await reclaim(d, done.get(d.payoutOrderId) ?? null);
          n++;
        } catch (e) {
          ctx.logger.warn("energy reclaim failed", { chain, id: d.id, error: String((e as Error)?.message ?? e) });
        }
      }
      return n;
    },
  };

  function fallback(o: PayoutOrderRow): boolean {
    if (adapter.energy.fallback === "burn") {
      ctx.logger.info("energy stake short: burning TRX for this transfer", { chain, orderNo: o.orderNo });
      return false;
    }
    throw new RetryLater("waiting for the energy stake to regenerate (fallback = wait)", ENERGY_WAIT_RETRY_MS);
  }
}

/** The reclaim job of an rpc-mode TRON adapter; it runs in burn mode too, so delegations made before a switch to burn still come back. */
export function energyJobs(ctx: ChainModuleCtx, adapter: TronChainApi, steps: EnergySteps): ChainJob[] {
  return [{ name: `energy-reclaim:${adapter.chain}`, everyMs: RECLAIM_EVERY_MS, run: () => steps.reclaimAll() }];
}

/** How long the CLI waits for a stake or unstake to be mined. */
const CLI_WAIT_MS = 90_000;

/** `stablegate energy stake|unstake|status` on an rpc-mode TRON adapter. */
export function energyControl(ctx: ChainModuleCtx, adapter: TronChainApi): StakingControl {
  const chain = adapter.chain;
  const wallet = () => energyWallet(ctx, adapter);

  async function send(op: "freeze" | "unfreeze", trx: string): Promise<string> {
    let sun: bigint;
    try {
      sun = toBaseUnits(trx, 6);
    } catch {
      throw new Error(`--trx must be a TRX amount such as 100 or 12.5, got ${JSON.stringify(trx)}`);
    }
    if (sun < SUN) throw new Error("--trx must be at least 1 TRX");
    const w = wallet();
    const st = await adapter.stakeOf(w.address);
    if (op === "freeze" && st.balance < sun) throw new Error(`the energy wallet ${w.address} holds ${fromBaseUnits(st.balance, 6, 0)} TRX; send it TRX first`);
    if (op === "unfreeze" && st.frozen < sun) throw new Error(`the energy wallet has ${fromBaseUnits(st.frozen, 6, 0)} TRX staked and not delegated`);
    const signed = await adapter.signStake({ op, from: w.address, amount: sun, privateKey: w.privateKey });
    const now = ctx.clock.now();
    const row = await writeTx(ctx.db, async (t) =>
      await insertStakingTx(t, { chain, op, address: w.address, amount: sun.toString(), txHash: signed.txHash, signedTx: signed.raw, status: "signed", createdAt: now, updatedAt: now }),
    );
    const set = async (status: "broadcasted" | "confirmed" | "failed", lastError: string | null = null) =>
      await writeTx(ctx.db, async (t) => await setStakingTx(t, row.id, { status, lastError, updatedAt: ctx.clock.now() }));
    const r = await adapter.broadcast(signed);
    if (!r.ok) {
      await set("failed", r.error);
      throw new Error(`the node refused the ${op === "freeze" ? "stake" : "unstake"}: ${r.error}`);
    }
    await set("broadcasted");
    const deadline = Date.now() + CLI_WAIT_MS;
    for (;;) {
      const s = await adapter.txState(signed);
      if (s.state === "included") {
        const cost = await costOf(adapter, signed);
        await writeTx(ctx.db, async (t) => cost && await recordCost(t, { chain, txHash: signed.txHash, kind: "stake", cost, now: ctx.clock.now() }));
        await set(s.success ? "confirmed" : "failed", s.success ? null : "failed on chain");
        if (!s.success) throw new Error(`the ${op === "freeze" ? "stake" : "unstake"} failed on chain (${signed.txHash})`);
        return signed.txHash;
      }
      if (s.state === "expired" || Date.now() > deadline) throw new Error(`the ${op === "freeze" ? "stake" : "unstake"} ${signed.txHash} was sent but not mined yet; check energy status later`);
      await new Promise((res) => setTimeout(res, 500));
    }
  }

  return {
    stake: (trx) => send("freeze", trx),
    unstake: (trx) => send("unfreeze", trx),
    stakeUnused: () =>
      adapter.energy.mode === "stake"
        ? null
        : `[chains.${chain}.energy] mode = "${adapter.energy.mode}": transfers burn TRX for their energy and this stake will not be used until mode = "stake" (docs/payouts.md)`,
    async status() {
      const w = wallet();
      const [st, en] = await Promise.all([adapter.stakeOf(w.address), adapter.energyOf(w.address)]);
      const served = await servedDelegations(ctx.db, chain);
      return {
        address: w.address,
        stakedTrx: fromBaseUnits(st.frozen + st.delegated, 6, 0),
        energyAvailable: en.available.toString(),
        energyDelegated: energyForSun(st.delegated, en).toString(),
        transfersServed: String(served?.n ?? 0),
        trxSaved: fromBaseUnits(BigInt(served?.saved ?? 0), 6, 0),
      };
    },
  };
}
