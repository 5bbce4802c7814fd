// Collection (DESIGN 13): sweeping a merchant's deposit addresses of one chain
// and token into a destination (a cold wallet). A run is previewed (one leg per
// address whose available balance reaches the minimum, estimated gas),
// confirmed, then each leg becomes an ordinary payout order (merchantOrderNo
// COL-<run>-<leg>: idempotent, so a crash resumes without a second leg); gas
// top-ups happen as for any payout. An optional cron schedule runs it unattended.
import { Cron } from "croner";
import { type Db, type Tx, writeTx } from "../db/client";
import { recordAudit, type Actor } from "../audit/log";
import { AppError, DomainError } from "../errors";
import { crashPoint } from "../lib/crash";
import { newId } from "../lib/ids";
import { fromBaseUnits, toBaseUnits } from "../lib/money";
import { chainAndToken } from "../orders/rules";
import { addressBalance, merchantAddresses, unfinishedFrom } from "../payout/balances";
import { fromMicro, toMicro } from "../payout/controls";
import { createPayout, type PayoutCtx } from "../payout/service";
import { currentKey, findMerchantById } from "../merchants/service";
import type { TokenSymbol } from "../chains/types";
import { chainModule } from "../chains/registry";
import { describeError } from "./batch";
import type { TreasuryJob, TreasuryRunner } from "./runner";
import { collectionProgressOf, tokenAmount } from "./progress";
import { estimateGas, type GasEstimate } from "./gas-estimate";

import {
  collectionSetting,
  type CollectionLeg,
  type CollectionRun,
  type CollectionSetting,
  confirmedLegAmounts,
  finishRunningRun,
  insertLeg,
  insertRun,
  markScheduled,
  patchLeg,
  patchRun,
  plannedLegs,
  runById,
  runningRunIds,
  scheduledCollectionSettings,
  upsertCollectionSetting,
} from "./store";
import { forEachSeq } from "../lib/async-seq";

// The treasury's storage is store.ts; these are its reads the back office uses.
export { collectionSetting, collectionSettingsOf, listRuns, runLegs, type CollectionLeg, type CollectionRun, type CollectionSetting } from "./store";

/** A collection setting or run refused: a code of src/errors.ts DOMAIN_ERRORS with its parameters. */
export class CollectionError extends DomainError {}

/** The chain/token refusals of orders/rules.ts chainAndToken, by their API code. */
const CHAIN_TOKEN_PROBLEM: Partial<Record<number, "collection.chain_unavailable" | "collection.token_unsupported" | "collection.token_not_on_chain">> = {
  31001: "collection.chain_unavailable",
  31002: "collection.token_unsupported",
  31003: "collection.token_not_on_chain",
};

const MINIMUM = /^\d+(\.\d{1,6})?$/;

export interface CollectionSettingInput {
  chainCode: string;
  tokenSymbol: string;
  destination: string;
  minimum: string;
  /** Cron pattern (UTC), "" or null: no schedule. */
  schedule?: string | null;
  /**
   * The user re-entered their password (or code) for this save. Only such a destination is used
   * by the schedule (DESIGN 10): one saved without it waits for a manual, confirmed run.
   */
  confirmedWithPassword?: boolean;
}

/** Saves the destination, minimum and schedule of one chain and token; audited. */
export async function setCollectionSetting(ctx: Pick<PayoutCtx, "db" | "clock" | "chains">, merchantId: number, input: CollectionSettingInput, actor: Actor): Promise<CollectionSetting> {
  let adapter;
  try {
    adapter = chainAndToken(ctx, input.chainCode, input.tokenSymbol).adapter;
  } catch (e) {
    const code = e instanceof AppError ? CHAIN_TOKEN_PROBLEM[e.code] : undefined;
    if (!code) throw e;
    throw new CollectionError(code, { chain: input.chainCode, token: input.tokenSymbol });
  }
  const dest = input.destination.trim();
  if (!adapter.isValidAddress(dest)) throw new CollectionError("collection.destination_invalid", { chain: adapter.chain });
  const destination = adapter.normalizeAddress(dest);
  const minimum = input.minimum.trim();
  if (!MINIMUM.test(minimum) || /^0+(\.0+)?$/.test(minimum)) throw new CollectionError("collection.minimum_invalid");
  const schedule = input.schedule?.trim() || null;
  if (schedule) {
    try {
      new Cron(schedule, { paused: true, timezone: "UTC" });
    } catch (e) {
      throw new CollectionError("collection.schedule_invalid", { reason: (e as Error).message });
    }
  }
  const now = ctx.clock.now();
  return await writeTx(ctx.db, async (tx) => {
    const own = (await merchantAddresses(tx, merchantId, adapter.chain)).some((a) => a.address === destination);
    if (own) throw new CollectionError("collection.destination_own");
    const m = await findMerchantById(tx, merchantId);
    if (!m) throw new CollectionError("merchant.id_unknown", { merchantId });
    const before = await collectionSetting(tx, merchantId, adapter.chain, input.tokenSymbol) ?? null;
    const confirmedDestination = input.confirmedWithPassword ? destination : (before?.confirmedDestination ?? null);
    const row = { merchantId, chain: adapter.chain, token: input.tokenSymbol, destination, minimum, schedule, confirmedDestination, lastScheduledAt: before?.lastScheduledAt ?? now, updatedAt: now };
    const saved = await upsertCollectionSetting(tx, row);
    const view = (s: CollectionSetting | null) => (s ? { destination: s.destination, minimum: s.minimum, schedule: s.schedule, confirmed: s.confirmedDestination === s.destination } : null);
    await recordAudit(tx, { ...actor, action: "collection.settings", target: `merchant:${m.uid}:${adapter.chain}:${input.tokenSymbol}`, before: view(before), after: view(saved), at: now });
    return saved;
  });
}

/** Leg amount: the available balance at API precision (6 decimals); dust below it stays. */
function legAmount(available: bigint, decimals: number): bigint {
  return fromMicro(toMicro(available, decimals), decimals);
}

/** "Collect now": plans one leg per address holding at least the minimum; nothing moves until confirmed. */
export async function previewCollection(ctx: PayoutCtx, merchantId: number, chainCode: string, tokenSymbol: string, actor: Actor, trigger: "manual" | "schedule" = "manual"): Promise<CollectionRun> {
  const setting = await collectionSetting(ctx.db, merchantId, chainCode, tokenSymbol);
  if (!setting) throw new CollectionError("collection.no_destination", { chain: chainCode, token: tokenSymbol });
  const { adapter, token } = chainAndToken(ctx, chainCode, tokenSymbol);
  const min = toBaseUnits(setting.minimum, token.decimals);
  const legs: Array<{ addressId: string; fromAddress: string; amount: bigint }> = [];
  // [collection] keep_dust: what the chain leaves on each address (TRON: one base unit, DESIGN 21).
  const dust = ctx.config.collection?.keep_dust ? (chainModule(adapter.chain).collectionDust ?? 0n) : 0n;
  for (const a of await merchantAddresses(ctx.db, merchantId, adapter.chain)) {
    if ((await unfinishedFrom(ctx.db, a.id)).retiring) continue;
    const available = (await addressBalance(ctx.db, a.id, token.symbol)).available;
    const amount = legAmount(available > dust ? available - dust : 0n, token.decimals);
    if (amount > 0n && amount >= min) legs.push({ addressId: a.id, fromAddress: a.address, amount });
  }
  const total = legs.reduce((s, l) => s + l.amount, 0n);
  const gas: GasEstimate = await estimateGas(adapter, legs.length, {
    from: legs[0]?.fromAddress ?? setting.destination,
    to: setting.destination,
    token: token.symbol as TokenSymbol,
    amount: legs[0]?.amount ?? 1n,
  });
  const now = ctx.clock.now();
  const id = newId("CR");
  return await writeTx(ctx.db, async (tx) => {
    const run = await insertRun(tx, {
      id,
      merchantId,
      chain: adapter.chain,
      token: token.symbol,
      destination: setting.destination,
      minimum: setting.minimum,
      status: "preview",
      trigger,
      legCount: legs.length,
      total: total.toString(),
      gas: JSON.stringify(gas),
      createdBy: actor.actor,
      createdAt: now,
      updatedAt: now,
    });
    await forEachSeq(legs, async (l, i) => await insertLeg(tx, { runId: id, legNo: i + 1, addressId: l.addressId, fromAddress: l.fromAddress, amount: l.amount.toString(), state: "planned", updatedAt: now }));
    return run;
  });
}

export async function getRun(db: Db, merchantId: number, id: string): Promise<CollectionRun> {
  const r = await runById(db, id, merchantId);
  if (!r) throw new CollectionError("collection.run_unknown", { id });
  return r;
}

export function runGas(r: CollectionRun): GasEstimate {
  return JSON.parse(r.gas) as GasEstimate;
}

/** "Confirm collection" (the caller has re-authenticated the user); audited; confirming twice is harmless. */
export async function confirmCollection(deps: { db: Db; now: () => number }, merchantId: number, runId: string, actor: Actor): Promise<CollectionRun> {
  return await writeTx(deps.db, async (tx) => {
    const r = await getRun(tx, merchantId, runId);
    if (r.status !== "preview") return r;
    const now = deps.now();
    const next = r.legCount > 0 ? "running" : "done";
    const m = (await findMerchantById(tx, merchantId))!;
    await recordAudit(tx, { ...actor, action: "collection.confirm", target: `merchant:${m.uid}:collection:${r.id}`, after: { chain: r.chain, token: r.token, destination: r.destination, legs: r.legCount, total: tokenAmount(r.chain, r.token, r.total) }, at: now });
    return await patchRun(tx, runId, { status: next, confirmedBy: actor.actor, confirmedAt: now, finishedAt: next === "done" ? now : null, updatedAt: now });
  });
}

/** A running collection as the treasury runner drives it: each planned leg becomes a payout order. */
function collectionJob(ctx: PayoutCtx, runId: string): TreasuryJob<CollectionLeg> {
  let run: CollectionRun | undefined;
  let decimals = 0;
  const setLeg = async (tx: Tx, leg: CollectionLeg, patch: Partial<CollectionLeg>, now: number) =>
    await patchLeg(tx, runId, leg.legNo, { ...patch, updatedAt: now });
  return {
    kind: "collection",
    item: "leg",
    id: runId,
    open: async (db) => {
      run = await runById(db, runId);
      if (!run || run.status !== "running") return null;
      decimals = chainAndToken(ctx, run.chain, run.token).token.decimals;
      return { merchantId: run.merchantId, items: await plannedLegs(db, runId) };
    },
    no: (leg) => leg.legNo,
    input: (leg) => ({
      chainCode: run!.chain,
      tokenSymbol: run!.token,
      fromAddress: leg.fromAddress,
      toAddress: run!.destination,
      amount: fromBaseUnits(BigInt(leg.amount), decimals, 0),
      merchantOrderNo: `COL-${runId}-${leg.legNo}`,
    }),
    created: async (tx, leg, r, now) => await setLeg(tx, leg, { state: "created", payoutOrderId: r.orderId }, now),
    refused: async (tx, leg, e, now) => await setLeg(tx, leg, { state: "rejected", errorCode: e.code, errorMessage: describeError(e) }, now),
    finish: async (db, now) => {
      await writeTx(db, async (tx) => await finishRunningRun(tx, runId, now));
    },
  };
}

/** Creates the leg payouts of a running run; resumable at any point (legs are idempotent by merchantOrderNo). */
export async function runCollection(ctx: PayoutCtx, runId: string, treasury: TreasuryRunner): Promise<void> {
  await treasury.run(ctx, collectionJob(ctx, runId));
}

/** Per status of the run's leg payouts (from treasury/progress.ts, the one view); planned: legs with no order yet. */
export async function runProgress(db: Db, runId: string): Promise<Record<"planned" | "rejected" | "submitted" | "broadcasted" | "confirmed" | "failed", number>> {
  const p = await collectionProgressOf(db, runId);
  const ordered = p.orders.submitted + p.orders.broadcasted + p.orders.confirmed + p.orders.failed;
  return { planned: p.items - ordered - p.rejected, rejected: p.rejected, ...p.orders };
}

/** The schedule sends only to the destination last confirmed with a password (DESIGN 10 "Hardening"). */
export function scheduleMaySend(s: CollectionSetting): boolean {
  return s.confirmedDestination !== null && s.confirmedDestination === s.destination;
}

export const SCHEDULE_ACTOR: Actor = { actor: "schedule", role: "system" };

/**
 * Scheduled job: starts every due scheduled collection (previewed and
 * confirmed at once, as the schedule's owner asked), then drives running runs.
 * A missed slot (the gateway was down) runs once, not once per missed slot.
 */
export async function runCollections(ctx: PayoutCtx, treasury: TreasuryRunner): Promise<void> {
  const now = ctx.clock.now();
  for (const s of await scheduledCollectionSettings(ctx.db)) {
    let due: Date | null;
    try {
      due = new Cron(s.schedule!, { paused: true, timezone: "UTC" }).nextRun(new Date(s.lastScheduledAt ?? s.updatedAt));
    } catch {
      continue;
    }
    if (!due || due.getTime() > now) continue;
    if (!scheduleMaySend(s)) {
      ctx.logger.warn("scheduled collection skipped: the destination was not confirmed with a password; save it again in the back office", { merchantId: s.merchantId, chain: s.chain, token: s.token });
      await writeTx(ctx.db, async (tx) => await markScheduled(tx, s, now));
      continue;
    }
    await writeTx(ctx.db, async (tx) => await markScheduled(tx, s, now));
    if (!ctx.chains.has(s.chain as never)) continue;
    try {
      const run = await previewCollection(ctx, s.merchantId, s.chain, s.token, SCHEDULE_ACTOR, "schedule");
      await confirmCollection({ db: ctx.db, now: () => ctx.clock.now() }, s.merchantId, run.id, SCHEDULE_ACTOR);
    } catch (e) {
      ctx.logger.warn("scheduled collection failed", { merchantId: s.merchantId, chain: s.chain, token: s.token, error: String((e as Error)?.message ?? e) });
    }
  }
  for (const id of await runningRunIds(ctx.db)) {
    await runCollection(ctx, id, treasury);
  }
}

/** Sum of confirmed legs (base units): what reached the destination. */
export async function collectedTotal(db: Db, runId: string): Promise<bigint> {
  return (await confirmedLegAmounts(db, runId)).reduce((s, amount) => s + BigInt(amount), 0n);
}
