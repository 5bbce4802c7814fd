// Invoices (DESIGN 18): creation (idempotent by merchantOrderNo, as pay-ins), queries, expiry of
// invoices nobody chose a network for, and followPayin: the pay-in funnel hands every status change
// of an invoice's pay-in here, and the invoice follows it with its own callback, in the same transaction.
import type { Config } from "../config/schema";
import type { Db, DbOrTx, Tx } from "../db/client";
import { writeTx } from "../db/client";
import type { payinOrders } from "../db/schema";
import { findMerchantById } from "../merchants/service";
import { dueOpenInvoiceIds, insertInvoice, invoiceById, invoiceByMerchantOrderNo, invoiceByNo, updateInvoiceIf } from "./store";
import { AppError, invalid } from "../errors";
import type { ChainAdapter, ChainCode } from "../chains/types";
import type { Clock } from "../lib/clock";
import { newOrderNo, newTimedToken } from "../lib/ids";
import { compareAmounts, fromBaseUnits, toBaseUnits } from "../lib/money";
import { recordOrderEvent } from "../orders/events";
import { chainAndToken, checkNotifyUrl } from "../orders/rules";
import { enqueueCallback } from "../callbacks/outbox";
import { checkPriceCurrency, currentRate } from "../rates/book";
import { isTokenCurrency, priceDecimals } from "../rates/currencies";
import { FOLLOWS, SETTLED, type InvoiceStatus } from "./status";
import { invoiceCallbackPayload, paymentsOf, type InvoiceRow } from "./views";
import { type Actor, recordAudit } from "../audit/log";

type PayinRow = typeof payinOrders.$inferSelect;

/** What the invoice services read (the app context satisfies it as it is). */
export interface InvoiceCtx {
  db: Db;
  clock: Clock;
  /** Enabled chains only. */
  chains: ReadonlyMap<ChainCode, ChainAdapter>;
  config: Pick<Config, "payin" | "chains" | "callbacks" | "rates">;
  ms: { expireAfter: number };
  publicUrl: string;
}

export interface CreateInvoiceInput {
  merchantOrderNo: string;
  priceAmount: string;
  priceCurrency: string;
  notifyUrl?: string;
  redirectUrl?: string;
  description?: string;
  payments?: string[];
  expireMinutes?: number;
}

/** Every enabled chain and token pair, in registry order: the default `payments`. */
export function enabledPayments(ctx: Pick<InvoiceCtx, "chains">): string[] {
  return [...ctx.chains.values()].flatMap((a) => a.tokens.map((t) => `${a.chain}:${t.symbol}`));
}

/** "CHAIN:TOKEN" entries checked with the pay-in rules: 31001 (unknown or disabled chain), 31002, 31003. */
export function checkPayments(ctx: Pick<InvoiceCtx, "chains">, list: string[]): string[] {
  return list.map((p) => {
    const [chain = "", token = ""] = p.split(":");
    const { adapter, token: info } = chainAndToken(ctx, chain, token);
    return `${adapter.chain}:${info.symbol}`;
  });
}

/** The price as stored and shown: 2 fractional digits for fiat, 6 for USDT/USDC; 10001 past that or at 0. */
export function normalisePrice(amount: string, currency: string): string {
  const d = priceDecimals(currency);
  const frac = amount.split(".")[1]?.replace(/0+$/, "") ?? "";
  if (frac.length > d) throw invalid({ priceAmount: `${currency} prices take at most ${d} fractional digits` });
  const units = toBaseUnits(amount, d);
  if (units <= 0n) throw invalid({ priceAmount: "must be greater than 0" });
  return fromBaseUnits(units, d, d);
}

/** Where an invoice came from: the API, or a back-office user's "New payment link" (audited with the invoice). */
export type InvoiceSource = { source: "api" } | { source: "backoffice"; actor: Actor };

export async function createInvoice(ctx: InvoiceCtx, merchantId: number, apiKeyId: string, input: CreateInvoiceInput, origin: InvoiceSource = { source: "api" }): Promise<InvoiceRow> {
  const source = origin.source;
  checkPriceCurrency(ctx.config, input.priceCurrency);
  const price = normalisePrice(input.priceAmount, input.priceCurrency);
  if (compareAmounts(price, "1000000000000") > 0) throw invalid({ priceAmount: "must be at most 1000000000000" });
  const payments = input.payments ? checkPayments(ctx, input.payments) : enabledPayments(ctx);
  if (!payments.length) throw new AppError(31001, null, "No chain is enabled on this gateway");
  if (input.notifyUrl !== undefined) checkNotifyUrl(ctx, input.notifyUrl);
  if (input.redirectUrl !== undefined) checkNotifyUrl(ctx, input.redirectUrl, "redirectUrl");
  const expireMinutes = input.expireMinutes ?? Math.min(1440, Math.max(5, Math.round(ctx.ms.expireAfter / 60_000)));
  const description = input.description ? input.description : null;
  // A price some network can quote right now: 56001 names the currency before anything is written.
  if (!isTokenCurrency(input.priceCurrency)) await currentRate(ctx, input.priceCurrency, payments[0]!.split(":")[1]!);
  const now = ctx.clock.now();
  const wanted = { priceAmount: price, priceCurrency: input.priceCurrency, notifyUrl: input.notifyUrl ?? null, redirectUrl: input.redirectUrl ?? null, description, payments, expireMinutes };
  return await writeTx(ctx.db, async (tx) => {
    const existing = await invoiceByMerchantOrderNo(tx, merchantId, input.merchantOrderNo);
    if (existing) return sameInvoice(existing, wanted);
    const invoiceNo = newOrderNo("IV", now);
    const pageToken = newTimedToken(now);
    const row = await insertInvoice(tx, {
      invoiceNo,
      merchantId,
      merchantOrderNo: input.merchantOrderNo,
      ...wanted,
      payments: JSON.stringify(payments),
      apiKeyId,
      pageToken,
      invoiceUrl: `${ctx.publicUrl}/invoice/${pageToken}`,
      status: "open",
      source,
      expireAt: now + expireMinutes * 60_000,
      createdAt: now,
      updatedAt: now,
    });
    // A concurrent duplicate committed first: answer as a retry would.
    if (!row) return sameInvoice((await invoiceByMerchantOrderNo(tx, merchantId, input.merchantOrderNo))!, wanted);
    await recordOrderEvent(tx, { kind: "invoice", orderNo: invoiceNo, from: null, to: "open", event: { type: "created", source }, at: now });
    if (origin.source === "backoffice") {
      await recordAudit(tx, { ...origin.actor, action: "payment_link.create", target: `invoice:${invoiceNo}`, after: { priceAmount: price, priceCurrency: input.priceCurrency, description, payments, expireMinutes }, at: now });
    }
    await writeInvoiceCallback(tx, row, null, now);
    return row;
  });
}

/** Idempotent retry: the same business fields return the invoice, any difference is 10001. */
function sameInvoice(
  inv: InvoiceRow,
  w: { priceAmount: string; priceCurrency: string; notifyUrl: string | null; redirectUrl: string | null; description: string | null; payments: string[]; expireMinutes: number },
): InvoiceRow {
  const diff: Record<string, string> = {};
  const differs = "differs from the existing invoice with this merchantOrderNo";
  if (inv.priceAmount !== w.priceAmount) diff.priceAmount = differs;
  if (inv.priceCurrency !== w.priceCurrency) diff.priceCurrency = differs;
  if (inv.notifyUrl !== w.notifyUrl) diff.notifyUrl = differs;
  if (inv.redirectUrl !== w.redirectUrl) diff.redirectUrl = differs;
  if (inv.description !== w.description) diff.description = differs;
  if (JSON.stringify(paymentsOf(inv)) !== JSON.stringify(w.payments)) diff.payments = differs;
  if (inv.expireMinutes !== w.expireMinutes) diff.expireMinutes = differs;
  if (Object.keys(diff).length) throw invalid(diff, { invoiceNo: inv.invoiceNo });
  return inv;
}

/** An invoice of this merchant; another merchant's is as unknown as a missing one (56002). */
export async function getInvoice(db: DbOrTx, merchantId: number, invoiceNo: string): Promise<InvoiceRow> {
  const inv = await invoiceByNo(db, merchantId, invoiceNo);
  if (!inv) throw new AppError(56002, { invoiceNo });
  return inv;
}

// The invoices' storage is store.ts; these are its reads the checkout and the pay-ins use.
export { invoiceByToken } from "./store";

async function writeInvoiceCallback(tx: Tx, inv: InvoiceRow, payin: PayinRow | null, now: number): Promise<void> {
  const m = (await findMerchantById(tx, inv.merchantId))!;
  await enqueueCallback(tx, {
    merchantId: inv.merchantId,
    kind: "invoice",
    orderNo: inv.invoiceNo,
    status: inv.status,
    apiKeyId: inv.apiKeyId,
    url: inv.notifyUrl,
    payload: invoiceCallbackPayload(inv, payin, m.uid),
    now,
  });
}

/**
 * Moves an invoice to `to` with its timeline entry and callback (the one funnel for invoice
 * statuses); a compare-and-set on `inv.status`: when another writer moved it first, nothing more.
 */
async function moveInvoice(tx: Tx, inv: InvoiceRow, to: InvoiceStatus, payin: PayinRow | null, event: { type: string } & Record<string, unknown>, now: number): Promise<InvoiceRow> {
  const set: Partial<InvoiceRow> = { status: to, updatedAt: now, ...(SETTLED.includes(to) && inv.paidAt === null ? { paidAt: now } : {}) };
  const row = await updateInvoiceIf(tx, inv.id, inv.status, set);
  if (!row) return (await invoiceById(tx, inv.id))!;
  await recordOrderEvent(tx, { kind: "invoice", orderNo: inv.invoiceNo, from: inv.status, to, event, at: now });
  await writeInvoiceCallback(tx, row, payin, now);
  return row;
}

/**
 * Called by the pay-in funnel (src/payin/service.ts) for every status change of an order that
 * pays an invoice, in its transaction. The invoice follows its current pay-in; a pay-in the payer
 * switched away from changes nothing. Returns true when the order belongs to an invoice (its
 * own pay-in callback is then not sent: the merchant hears of the invoice).
 */
export async function followPayin(tx: Tx, p: PayinRow, now: number): Promise<boolean> {
  if (p.invoiceId === null) return false;
  const inv = await invoiceById(tx, p.invoiceId);
  if (!inv || inv.payinOrderId !== p.id) return true;
  const to = FOLLOWS[p.status];
  if (to && to !== inv.status) await moveInvoice(tx, inv, to, p, { type: "payin", orderNo: p.orderNo, payinStatus: p.status }, now);
  return true;
}

/** Scheduled: open invoices past expireAt whose payer never chose a network become expired. */
export async function expireDueInvoices(ctx: Pick<InvoiceCtx, "db" | "clock">, limit = 500): Promise<number> {
  const now = ctx.clock.now();
  const due = await dueOpenInvoiceIds(ctx.db, now, limit);
  for (const id of due) {
    await writeTx(ctx.db, async (tx) => {
      const inv = (await invoiceById(tx, id))!;
      if (inv.status === "open" && inv.payinOrderId === null) await moveInvoice(tx, inv, "expired", null, { type: "expire" }, now);
    });
  }
  return due.length;
}
