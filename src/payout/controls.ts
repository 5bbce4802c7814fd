// Merchant payout controls (DESIGN 6) as data on the merchant row: on/off
// switch, per-payout and daily limits, a fee schedule and a prepaid fee
// balance. Limits, fees and the fee balance are USD-like decimal strings
// shared by every stablecoin; inside they are 6-decimal micro-units (bigint).
import { type Db, type DbOrTx, type Tx, writeTx } from "../db/client";
import { orderIdFloor } from "../orders/id-at";
import { AppError, DomainError } from "../errors";
import { Big, fromBaseUnits, toBaseUnits } from "../lib/money";
import { findMerchantById, type MerchantPatch } from "../merchants/store";
import { feeBalanceOf, feeEntryFor, notFailedSince, recordFeeMove, setMerchantControls, unfinishedFees } from "./store";

export const MICRO_DECIMALS = 6;

/** Token base units -> micro-units (request amounts have at most 6 fractional digits, so this is exact for them). */
export function toMicro(units: bigint, decimals: number): bigint {
  return decimals >= MICRO_DECIMALS ? units / 10n ** BigInt(decimals - MICRO_DECIMALS) : units * 10n ** BigInt(MICRO_DECIMALS - decimals);
}
export function fromMicro(micro: bigint, decimals: number): bigint {
  return decimals >= MICRO_DECIMALS ? micro * 10n ** BigInt(decimals - MICRO_DECIMALS) : micro / 10n ** BigInt(MICRO_DECIMALS - decimals);
}
const micro = (decimal: string) => toBaseUnits(decimal, MICRO_DECIMALS);
const decimal = (m: bigint) => fromBaseUnits(m, MICRO_DECIMALS, MICRO_DECIMALS);

export interface PayoutControls {
  payoutsEnabled: boolean;
  /** null: no limit. */
  payoutLimitPerTx: string | null;
  payoutLimitDaily: string | null;
  payoutFeeFixed: string;
  /** Fraction of the amount, e.g. "0.001" = 0.1 %. */
  payoutFeeRate: string;
}

/** fixed + amount × rate, rounded up to the micro-unit (a fee is never rounded in the merchant's favour to zero). */
export function payoutFee(c: Pick<PayoutControls, "payoutFeeFixed" | "payoutFeeRate">, amountMicro: bigint): bigint {
  const variable = new Big(amountMicro.toString()).times(c.payoutFeeRate).round(0, Big.roundUp);
  return micro(c.payoutFeeFixed) + BigInt(variable.toFixed(0));
}

const DAY_MS = 86_400_000;

/** Sum (micro-units) of the merchant's payouts created this UTC day that did not fail. */
async function usedToday(tx: DbOrTx, merchantId: number, now: number): Promise<bigint> {
  const start = now - (now % DAY_MS);
  return (await notFailedSince(tx, merchantId, await orderIdFloor(tx, "payout_orders", start), start))
    .reduce((s, r) => s + toMicro(BigInt(r.amount), r.decimals), 0n);
}

/** Fees (micro-units) held back for the merchant's unfinished payouts. */
export async function reservedFees(tx: DbOrTx, merchantId: number): Promise<bigint> {
  return (await unfinishedFees(tx, merchantId))
    .reduce((s, r) => s + toMicro(BigInt(r.fee), r.decimals), 0n);
}

/** The switch and limits (51002). Runs inside the creating transaction so concurrent payouts see each other. */
export async function checkLimits(tx: Tx, merchantId: number, amountMicro: bigint, now: number): Promise<void> {
  const m = (await findMerchantById(tx, merchantId))!;
  if (m.status !== "active") throw new AppError(51002, { reason: "merchant_disabled" });
  if (!m.payoutsEnabled) throw new AppError(51002, { reason: "payouts_disabled" });
  if (m.payoutLimitPerTx !== null && amountMicro > micro(m.payoutLimitPerTx)) {
    throw new AppError(51002, { reason: "per_payout_limit", limit: m.payoutLimitPerTx });
  }
  if (m.payoutLimitDaily !== null) {
    const used = await usedToday(tx, merchantId, now);
    if (used + amountMicro > micro(m.payoutLimitDaily)) {
      throw new AppError(51002, { reason: "daily_limit", limit: m.payoutLimitDaily, usedToday: decimal(used) });
    }
  }
}

/** The fee (micro-units) for this amount; 51004 when the fee balance net of reservations does not cover it. */
export async function checkFee(tx: Tx, merchantId: number, amountMicro: bigint): Promise<bigint> {
  const m = (await findMerchantById(tx, merchantId))!;
  const fee = payoutFee(m, amountMicro);
  if (fee > 0n) {
    const free = micro(m.feeBalance) - await reservedFees(tx, merchantId);
    if (free < fee) throw new AppError(51004, { fee: decimal(fee), available: decimal(free < 0n ? 0n : free) });
  }
  return fee;
}

// ---- editing (the back office calls these) ----

const DECIMAL = /^\d+(\.\d{1,6})?$/;

/** Payout controls or a fee-balance move refused: a code of src/errors.ts DOMAIN_ERRORS with its parameters. */
export class ControlsError extends DomainError {}

const LIMIT_INVALID = { payoutLimitPerTx: "controls.limit_per_tx_invalid", payoutLimitDaily: "controls.limit_daily_invalid" } as const;

export async function getPayoutControls(db: DbOrTx, merchantId: number): Promise<PayoutControls & { feeBalance: string }> {
  const m = await findMerchantById(db, merchantId);
  if (!m) throw new ControlsError("merchant.id_unknown", { merchantId });
  return {
    payoutsEnabled: m.payoutsEnabled,
    payoutLimitPerTx: m.payoutLimitPerTx,
    payoutLimitDaily: m.payoutLimitDaily,
    payoutFeeFixed: m.payoutFeeFixed,
    payoutFeeRate: m.payoutFeeRate,
    feeBalance: m.feeBalance,
  };
}

/** Sets any subset of the controls; amounts are decimal strings (<= 6 fractional digits), the rate a fraction in [0, 1). */
export async function setPayoutControls(db: Db, merchantId: number, patch: Partial<PayoutControls>, now: number): Promise<PayoutControls> {
  for (const k of ["payoutLimitPerTx", "payoutLimitDaily"] as const) {
    const v = patch[k];
    if (v !== undefined && v !== null && !DECIMAL.test(v)) throw new ControlsError(LIMIT_INVALID[k]);
  }
  if (patch.payoutFeeFixed !== undefined && !DECIMAL.test(patch.payoutFeeFixed)) throw new ControlsError("controls.fee_fixed_invalid");
  if (patch.payoutFeeRate !== undefined && !(/^0(\.\d{1,8})?$/.test(patch.payoutFeeRate))) throw new ControlsError("controls.fee_rate_invalid");
  const set: MerchantPatch = { updatedAt: now };
  for (const k of ["payoutsEnabled", "payoutLimitPerTx", "payoutLimitDaily", "payoutFeeFixed", "payoutFeeRate"] as const) {
    if (patch[k] !== undefined) (set as Record<string, unknown>)[k] = patch[k];
  }
  // Its own transaction (joined when the caller has one open, as the audited back-office change does).
  return await writeTx(db, async (tx) => {
    const m = await setMerchantControls(tx, merchantId, set);
    if (!m) throw new ControlsError("merchant.id_unknown", { merchantId });
    return await getPayoutControls(tx, merchantId);
  });
}

/** Moves the fee balance by `delta` (decimal string, may be negative for an adjustment) with a journal entry. */
export async function adjustFeeBalance(
  db: Db,
  merchantId: number,
  delta: string,
  opts: { kind?: "credit" | "adjustment"; ref: string; note?: string; now: number },
): Promise<string> {
  const neg = delta.startsWith("-");
  const abs = neg ? delta.slice(1) : delta;
  if (!DECIMAL.test(abs)) throw new ControlsError("controls.delta_invalid");
  const d = neg ? -micro(abs) : micro(abs);
  return await writeTx(db, async (tx) => await moveFeeBalance(tx, merchantId, d, { kind: opts.kind ?? (neg ? "adjustment" : "credit"), refType: "manual", refId: opts.ref, note: opts.note, now: opts.now }));
}

/** Inside a transaction: fee balance += d (micro-units), journaled; idempotent per (kind, ref). */
export async function moveFeeBalance(
  tx: Tx,
  merchantId: number,
  d: bigint,
  e: { kind: "credit" | "payout_fee" | "adjustment"; refType: string; refId: string; note?: string; now: number },
): Promise<string> {
  const done = await feeEntryFor(tx, e.kind, e.refType, e.refId);
  if (done) return done.balanceAfter;
  const balance = await feeBalanceOf(tx, merchantId);
  if (balance === undefined) throw new ControlsError("merchant.id_unknown", { merchantId });
  const after = micro(balance) + d;
  // Fees of unfinished payouts are reserved, and manual debits may not eat into
  // them, so a payout's fee debit never takes the balance below zero.
  if (e.kind !== "payout_fee" && d < 0n && after < await reservedFees(tx, merchantId)) {
    throw new ControlsError("controls.below_reserved");
  }
  const afterStr = decimal(after < 0n ? 0n : after);
  await recordFeeMove(tx, merchantId, afterStr, { kind: e.kind, amount: d.toString(), refType: e.refType, refId: e.refId, note: e.note ?? null, createdAt: e.now });
  return afterStr;
}
