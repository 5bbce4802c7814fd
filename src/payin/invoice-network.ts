// The payer picks the network of an invoice (DESIGN 18): the pay-in for that chain and token is
// created at priceAmount / rate (rate locked now, for the order's lifetime), on a pool address of
// section 5; when that amount is taken on every pool address it is nudged up, one step at a time
// (at most 100), instead of 40105. Choosing another network while nothing was paid closes the old
// pay-in (cancelled) and points the invoice at the new one, in one transaction.
import { type Tx, writeTx } from "../db/client";
import { AppError } from "../errors";
import { newOrderNo, newTimedToken } from "../lib/ids";
import { chainAndToken, checkAmount } from "../orders/rules";
import { invoiceByToken, setInvoicePayin } from "../invoices/store";
import { paymentsOf, type InvoiceRow } from "../invoices/views";
import { currentRate } from "../rates/book";
import { payerAmount } from "../rates/amount";
import type { Config } from "../config/schema";
import { addSharedAddress, sharedPool } from "../wallet/addresses";
import type { ChainAdapter } from "../chains/types";
import { applyPayinEvent, type PayinCtx, writeCallback } from "./service";
import { currentPayin, freeSharedAddress, insertOrder, invoicePayinCount } from "./orders-store";
import type { PayinOrderRow } from "./views";

export const MAX_NUDGES = 100;

/** Why a choice was refused, in words the hosted page translates. */
export type ChoiceProblem = "closed" | "not_offered" | "payment_detected" | "no_rate" | "busy" | "amount_limits";

export class ChoiceError extends Error {
  constructor(public readonly problem: ChoiceProblem, detail?: string) {
    super(detail ?? problem);
  }
}

export type InvoiceNetworkCtx = PayinCtx & { config: Pick<Config, "rates"> };

/**
 * The pay-in for `network` ("CHAIN:TOKEN") of the invoice behind `pageToken`. Choosing the network
 * already chosen returns its order; another one closes the current order first (only while nothing
 * was paid to it).
 */
export async function chooseNetwork(ctx: InvoiceNetworkCtx, pageToken: string, network: string): Promise<{ invoice: InvoiceRow; order: PayinOrderRow }> {
  return await writeTx(ctx.db, async (tx) => {
    const inv = await invoiceByToken(tx, pageToken);
    if (!inv) throw new ChoiceError("closed", "unknown invoice");
    const now = ctx.clock.now();
    if (inv.status !== "open" || now >= inv.expireAt) throw new ChoiceError("closed");
    if (!paymentsOf(inv).includes(network)) throw new ChoiceError("not_offered");
    const current = await currentPayin(tx, inv);
    if (current && `${current.chain}:${current.token}` === network && current.status === "waiting_payment") return { invoice: inv, order: current };
    if (current && current.status !== "waiting_payment") throw new ChoiceError("payment_detected");
    const [chainCode = "", tokenSymbol = ""] = network.split(":");
    let adapter: ChainAdapter;
    let order: PayinOrderRow;
    try {
      const ct = chainAndToken(ctx, chainCode, tokenSymbol);
      adapter = ct.adapter;
      const quote = await currentRate(ctx, inv.priceCurrency, ct.token.symbol);
      const amount = payerAmount(inv.priceAmount, inv.priceCurrency, quote.rate, ctx.config.rates.spread_percent);
      const units = checkAmount(ctx, adapter.chain, ct.token.symbol, amount, ct.token.decimals);
      order = await insertInvoicePayin(ctx, tx, inv, adapter, ct.token.symbol, ct.token.decimals, units, quote.rate, now);
    } catch (e) {
      if (e instanceof AppError) throw new ChoiceError(PROBLEM_OF[e.code] ?? "not_offered", e.message);
      throw e;
    }
    const updated = await setInvoicePayin(tx, inv.id, order.id, now);
    // Announced now that it is the invoice's order (no invoice status change: still open).
    await writeCallback(tx, order, now);
    // The old order is no longer the invoice's: closing it moves nothing on the invoice.
    if (current) await applyPayinEvent(tx, current, { type: "cancel" }, {}, now);
    return { invoice: updated, order };
  });
}

const PROBLEM_OF: Partial<Record<number, ChoiceProblem>> = { 56001: "no_rate", 40105: "busy", 10001: "amount_limits", 31001: "not_offered", 31002: "not_offered", 31003: "not_offered" };

/**
 * One step of the nudge: a base unit, or for tokens with more than 6 decimals (BEP20's 18) the
 * 6th fractional digit, so the amount stays one a payer can type and every view shows exactly.
 */
export function nudgeStep(decimals: number): bigint {
  return 10n ** BigInt(Math.max(0, decimals - 6));
}

/**
 * A pool address for `base` units of the token, or for the smallest nudged amount above it
 * (at most MAX_NUDGES steps) that no open order holds on some pool address; else 40105.
 * Shared with the shop-plugin orders (src/compat/), whose prices repeat as often.
 */
export async function nudgedSharedAddress(
  ctx: Pick<PayinCtx, "seed" | "config">,
  tx: Tx,
  merchantId: number,
  adapter: ChainAdapter,
  token: string,
  decimals: number,
  base: bigint,
  now: number,
): Promise<{ address: { id: string; address: string }; units: bigint }> {
  const step = nudgeStep(decimals);
  for (let i = 0; i <= MAX_NUDGES; i++) {
    const units = base + BigInt(i) * step;
    const free = await freeSharedAddress(tx, merchantId, adapter.chain, token, units);
    if (free) return { address: free, units };
    // The exact amount first grows the pool, as a pay-in would, before any nudge.
    if (i === 0) {
      // On PostgreSQL sharedPool waits for a concurrent grower: the address it added may be free now.
      const pool = await sharedPool(tx, merchantId, adapter.chain);
      const freed = await freeSharedAddress(tx, merchantId, adapter.chain, token, units);
      if (freed) return { address: freed, units };
      if (pool.length < ctx.config.payin.shared_pool_size) return { address: await addSharedAddress(tx, adapter, ctx.seed, merchantId, now), units };
    }
  }
  throw new AppError(40105, { chainCode: adapter.chain, tokenSymbol: token });
}

async function insertInvoicePayin(ctx: PayinCtx, tx: Tx, inv: InvoiceRow, adapter: ChainAdapter, token: string, decimals: number, base: bigint, rate: string, now: number): Promise<PayinOrderRow> {
  const picked = await nudgedSharedAddress(ctx, tx, inv.merchantId, adapter, token, decimals, base, now);
  const attempt = await invoicePayinCount(tx, inv.id) + 1;
  return await insertOrder(tx, {
    orderNo: newOrderNo("PI", now),
    merchantId: inv.merchantId,
    merchantOrderNo: `${inv.invoiceNo}-${attempt}`,
    mode: "shared",
    chain: adapter.chain,
    token,
    decimals,
    amount: picked.units.toString(),
    addressId: picked.address.id,
    address: picked.address.address,
    notifyUrl: inv.notifyUrl,
    redirectUrl: inv.redirectUrl,
    apiKeyId: inv.apiKeyId,
    status: "waiting_payment",
    checkoutToken: newTimedToken(now),
    expireAt: inv.expireAt,
    createdAt: now,
    updatedAt: now,
    invoiceId: inv.id,
    invoiceRate: rate,
  });
}
