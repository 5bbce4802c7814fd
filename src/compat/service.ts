// Compatibility orders (DESIGN 19): a shop plugin's order, priced in `[compat] currency` through
// the rate book (DESIGN 18) and paid on `[compat] payment`, is an ordinary shared pay-in with the
// shop's order id as its merchantOrderNo; its shop side (price, notify URL, EPay's echo fields)
// is a compat_orders row written in the same transaction. The pay-in funnel sends the shop only
// the paid callback (src/callbacks/compat.ts). Protocol-neutral: the epusdt and EPay views map
// the CompatProblem kinds to their own codes.
import type { Config } from "../config/schema";
import { type DbOrTx, writeTx } from "../db/client";
import { AppError } from "../errors";
import type { CompatProtocol } from "../lib/compat-signing";
import { newOrderNo, newTimedToken } from "../lib/ids";
import { Big } from "../lib/money";
import { IDENTIFIER_CHARS } from "../orders/fields";
import { chainAndToken, checkAmount, checkNotifyUrl } from "../orders/rules";
import { textProblem } from "../lib/text";
import { currentKey, type Merchant } from "../merchants/service";
import { nudgedSharedAddress } from "../payin/invoice-network";
import { type PayinCtx, writeCallback } from "../payin/service";
import type { PayinOrderRow } from "../payin/views";
import { currentRate } from "../rates/book";
import { payerAmount } from "../rates/amount";
import { priceDecimals } from "../rates/currencies";
import { compatSideOf } from "../payin/compat-side-store";
import { orderByMerchantOrderNo, orderByOrderNo, payinByCheckoutToken } from "../payin/orders-store";
import { insertCompatOrder, type CompatOrderRow } from "./store";
import { filterSeq } from "../lib/async-seq";

/** What the compatibility services read (the app context satisfies it as it is). */
export type CompatCtx = PayinCtx & { config: Pick<Config, "rates" | "compat">; publicUrl: string };

/** Why an order was refused, protocol-neutral. */
export type CompatProblemKind =
  | "invalid" // a field the protocol defines is malformed (epusdt 400)
  | "reused" // the order id is taken by an order with another amount (epusdt 10002)
  | "no_wallet" // the payment network is not enabled (epusdt 10003)
  | "amount" // below the smallest unit or outside the token's limits (epusdt 10004)
  | "busy" // every nudged amount is open on every pool address (epusdt 10005)
  | "rate" // no current rate for the currency (epusdt 10006)
  | "unsupported"; // a network selector this gateway never serves (tron.trx, an unknown trade type: epusdt 400)

export class CompatProblem extends Error {
  constructor(
    readonly kind: CompatProblemKind,
    message: string,
  ) {
    super(message);
  }
}

export interface CompatOrderInput {
  protocol: CompatProtocol;
  /** The shop's order id (epusdt order_id, EPay out_trade_no): the pay-in's merchantOrderNo. */
  orderId: string;
  /** The price as the shop sent it, in [compat] currency (decimal text). */
  price: string;
  notifyUrl: string;
  /** Where the payer goes back to (epusdt redirect_url, EPay return_url). */
  returnUrl: string | null;
  /** EPay's echo fields. */
  payType?: string;
  name?: string;
  param?: string;
  /** The "CHAIN:TOKEN" the plugin selected (trade_type, token + network, an EPay type); else [compat] payment. */
  network?: string;
  /** GMPay's epusdt fork: its answer and callback shape, and the `pid` it sent. */
  dialect?: "gmpay";
  shopPid?: string;
}

export interface CompatOrder {
  order: PayinOrderRow;
  compat: CompatOrderRow;
}

const ID_RE = new RegExp(`^${IDENTIFIER_CHARS}$`);
const MAX_PRICE = "1000000000000";

/** The chosen pair (else [compat] payment), or 10003-kind when that chain is not enabled here. */
function paymentNetwork(ctx: CompatCtx, network?: string) {
  const pair = network ?? ctx.config.compat.payment;
  const [chain = "", token = ""] = pair.split(":");
  try {
    return chainAndToken(ctx, chain, token);
  } catch (e) {
    if (e instanceof AppError) throw new CompatProblem("no_wallet", `${pair} is not enabled on this gateway`);
    throw e;
  }
}

/** The protocol's chain and token names (epusdt's optional `network`/`token` fields are compared with these). */
export function compatPayment(ctx: Pick<CompatCtx, "config">): { chain: string; token: string; currency: string } {
  const [chain = "", token = ""] = ctx.config.compat.payment.split(":");
  return { chain, token, currency: ctx.config.compat.currency };
}

/** Price rules: a decimal > 0 with at most the currency's fractional digits (CNY: 0.01 is the smallest). */
function checkPrice(ctx: CompatCtx, price: string): void {
  if (!/^\d+(\.\d+)?$/.test(price)) throw new CompatProblem("invalid", "amount must be a decimal number");
  const currency = ctx.config.compat.currency;
  const d = priceDecimals(currency);
  const frac = price.split(".")[1]?.replace(/0+$/, "") ?? "";
  if (frac.length > d) throw new CompatProblem("amount", `amount takes at most ${d} fractional digits in ${currency}`);
  const v = new Big(price);
  if (v.lte(0)) throw new CompatProblem("amount", `amount must be at least ${new Big(1).div(10 ** d).toFixed()} ${currency}`);
  if (v.gt(MAX_PRICE)) throw new CompatProblem("amount", `amount must be at most ${MAX_PRICE} ${currency}`);
}

function checkFields(ctx: CompatCtx, input: CompatOrderInput): void {
  const idProblem = textProblem(input.orderId, 128) ?? (ID_RE.test(input.orderId) ? null : "must not contain control characters or bidirectional overrides");
  if (idProblem) throw new CompatProblem("invalid", `${input.protocol === "epay" ? "out_trade_no" : "order_id"} ${idProblem}`);
  checkPrice(ctx, input.price);
  const url = (field: string, v: string) => {
    try {
      if (v.length > 2048) throw new CompatProblem("invalid", `${field} must be at most 2048 characters`);
      checkNotifyUrl(ctx, v, field);
    } catch (e) {
      if (e instanceof AppError) throw new CompatProblem("invalid", `${field} ${Object.values((e.data?.fields ?? {}) as Record<string, string>)[0] ?? "is not a valid URL"}`);
      throw e;
    }
  };
  url("notify_url", input.notifyUrl);
  if (input.returnUrl) url(input.protocol === "epay" ? "return_url" : "redirect_url", input.returnUrl);
  for (const [field, v, max] of [["type", input.payType, 32], ["name", input.name, 256], ["param", input.param, 512], ["pid", input.shopPid, 64]] as const) {
    const p = v === undefined ? null : textProblem(v, max, 0);
    if (p) throw new CompatProblem("invalid", `${field} ${p}`);
  }
}

/** The same order id again: the same amount returns the order (whatever its status); any other is refused. */
async function sameOrder(tx: DbOrTx, o: PayinOrderRow, input: CompatOrderInput): Promise<CompatOrder> {
  const c = o.compat === input.protocol ? await compatSideOf(tx, o.id) : undefined;
  if (!c) throw new CompatProblem("reused", `order id ${input.orderId} is already used by another order of this merchant`);
  if (!new Big(c.priceAmount).eq(input.price)) throw new CompatProblem("reused", `order id ${input.orderId} already exists with amount ${c.priceAmount}`);
  return { order: o, compat: c };
}

/** The rule errors of the pay-in layer, in compatibility terms. */
function asProblem(e: unknown): never {
  if (e instanceof AppError) {
    if (e.code === 56001) throw new CompatProblem("rate", `no current ${String(e.data?.priceCurrency ?? "")} rate`.trim());
    if (e.code === 40105) throw new CompatProblem("busy", "every receiving address has this amount open; try again shortly");
    if (e.code === 10001) throw new CompatProblem("amount", `the payment amount ${Object.values((e.data?.fields ?? {}) as Record<string, string>)[0] ?? "is out of range"}`);
  }
  throw e;
}

export async function createCompatOrder(ctx: CompatCtx, merchant: Merchant, input: CompatOrderInput): Promise<CompatOrder & { created: boolean }> {
  checkFields(ctx, input);
  const { adapter, token } = paymentNetwork(ctx, input.network);
  const currency = ctx.config.compat.currency;
  const apiKeyId = (await currentKey(ctx.db, merchant.id))?.id;
  if (!apiKeyId) throw new Error(`merchant ${merchant.uid} has no current API key`);
  const now = ctx.clock.now();
  return await writeTx(ctx.db, async (tx) => {
    const existing = await orderByMerchantOrderNo(tx, merchant.id, input.orderId);
    if (existing) return { ...await sameOrder(tx, existing, input), created: false };
    let quote: { rate: string };
    let picked: Awaited<ReturnType<typeof nudgedSharedAddress>>;
    try {
      quote = await currentRate(ctx, currency, token.symbol);
      const amount = payerAmount(input.price, currency, quote.rate, ctx.config.rates.spread_percent);
      const units = checkAmount(ctx, adapter.chain, token.symbol, amount, token.decimals);
      picked = await nudgedSharedAddress(ctx, tx, merchant.id, adapter, token.symbol, token.decimals, units, now);
    } catch (e) {
      asProblem(e);
    }
    const checkoutToken = newTimedToken(now);
    // EPay shops expect to come back with the signed result: the return link passes through the gateway.
    const redirectUrl = input.returnUrl ? (input.protocol === "epay" ? `${ctx.publicUrl}/compat/epay/return/${checkoutToken}` : input.returnUrl) : null;
    const { order, compat } = await insertCompatOrder(
      tx,
      {
        orderNo: newOrderNo("PI", now),
        merchantId: merchant.id,
        merchantOrderNo: input.orderId,
        mode: "shared",
        chain: adapter.chain,
        token: token.symbol,
        decimals: token.decimals,
        amount: picked!.units.toString(),
        addressId: picked!.address.id,
        address: picked!.address.address,
        notifyUrl: input.notifyUrl,
        redirectUrl,
        apiKeyId,
        status: "waiting_payment",
        checkoutToken,
        expireAt: now + ctx.ms.expireAfter,
        createdAt: now,
        updatedAt: now,
        compat: input.protocol,
      },
      {
        protocol: input.protocol,
        priceAmount: input.price,
        priceCurrency: currency,
        rate: quote!.rate,
        notifyUrl: input.notifyUrl,
        returnUrl: input.returnUrl,
        payType: input.payType ?? null,
        name: input.name ?? null,
        param: input.param ?? null,
        createdAt: now,
        dialect: input.dialect ?? null,
        shopPid: input.shopPid ?? null,
      },
    );
    await writeCallback(tx, order, now);
    return { order, compat, created: true };
  });
}

/** A compatibility order of this merchant by its trade id (the pay-in's orderNo); another merchant's is unknown. */
export async function findCompatOrder(db: DbOrTx, merchantId: number, protocol: CompatProtocol, tradeId: string): Promise<CompatOrder | undefined> {
  const order = await orderByOrderNo(db, merchantId, tradeId);
  if (!order || order.compat !== protocol) return undefined;
  const compat = await compatSideOf(db, order.id);
  return compat ? { order, compat } : undefined;
}

/**
 * The networks ("CHAIN:TOKEN") a payer may pick for a price in [compat] currency: every enabled
 * one whose token has a current rate. None priced: the rate problem (epusdt 10006, EPay 422).
 */
export async function pricedNetworks(ctx: CompatCtx): Promise<string[]> {
  const currency = ctx.config.compat.currency;
  const priced = new Map<string, boolean>();
  const hasRate = async (token: string) => {
    if (!priced.has(token)) {
      try {
        await currentRate(ctx, currency, token);
        priced.set(token, true);
      } catch (e) {
        if (!(e instanceof AppError && e.code === 56001)) throw e;
        priced.set(token, false);
      }
    }
    return priced.get(token)!;
  };
  const all = [...ctx.chains.values()].flatMap((a) => a.tokens.map((t) => ({ pair: `${a.chain}:${t.symbol}`, token: t.symbol })));
  const offered = (await filterSeq(all, async (n) => await hasRate(n.token))).map((n) => n.pair);
  if (all.length && !offered.length) throw new CompatProblem("rate", `no current ${currency} rate`);
  return offered;
}

/** A compatibility order of this merchant by the shop's own order id (EPay out_trade_no). */
export async function findCompatOrderByShopId(db: DbOrTx, merchantId: number, protocol: CompatProtocol, orderId: string): Promise<CompatOrder | undefined> {
  const order = await orderByMerchantOrderNo(db, merchantId, orderId);
  if (!order || order.compat !== protocol) return undefined;
  const compat = await compatSideOf(db, order.id);
  return compat ? { order, compat } : undefined;
}

/** The order behind a checkout link (EPay's return link). */
export async function compatOrderByCheckoutToken(db: DbOrTx, token: string): Promise<CompatOrder | undefined> {
  const order = await payinByCheckoutToken(db, token);
  if (!order || order.compat === null) return undefined;
  const compat = await compatSideOf(db, order.id);
  return compat ? { order, compat } : undefined;
}
