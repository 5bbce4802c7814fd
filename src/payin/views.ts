// What merchants see: the API object (spec 2.1) and the callback payload (spec 6.3).
import type { payinOrders } from "../db/schema";
import { iso } from "../lib/clock";
import { amountOf } from "../orders/amount";
import type { ChainAdapter, ChainCode, TokenInfo } from "../chains/types";
import { paymentUri } from "./payment-uri";
import { tokensFor } from "../chains/registry";
import type { Config } from "../config/schema";
import type { Static } from "@sinclair/typebox";
import type { PayinCallbackPayload, PayinOrderView } from "./schemas";

export type PayinOrderRow = typeof payinOrders.$inferSelect;

/** The pay-in object as OpenAPI publishes it (./schemas.ts): a field on one side only fails typecheck. */
export type PayinOrderBody = Static<typeof PayinOrderView>;
/** The callback fields of spec 6.3 this module writes; the outbox adds eventId and eventTime. */
export type PayinCallbackFields = Omit<Static<typeof PayinCallbackPayload>, "eventId" | "eventTime">;

export interface ViewDeps {
  publicUrl: string;
  token(chain: ChainCode, symbol: string): TokenInfo;
}

export function payinView(deps: ViewDeps, o: PayinOrderRow, bindKey?: string | null): PayinOrderBody {
  const token = deps.token(o.chain as ChainCode, o.token);
  return {
    orderNo: o.orderNo,
    merchantOrderNo: o.merchantOrderNo,
    ...(bindKey ? { bindKey } : {}),
    chainCode: o.chain,
    tokenSymbol: o.token,
    amount: amountOf(o, o.amount)!,
    paidAmount: amountOf(o, o.paidAmount),
    address: o.address,
    cashierUrl: `${deps.publicUrl}/checkout/${o.checkoutToken}`,
    paymentUri: paymentUri(o.chain as ChainCode, token, o.address, o.mode === "shared" ? BigInt(o.amount) : null, o.orderNo),
    ...(o.redirectUrl ? { redirectUrl: o.redirectUrl } : {}),
    status: o.status,
    txHash: o.txHash,
    fromAddress: o.fromAddress,
    confirmations: o.confirmations,
    expireAt: iso(o.expireAt),
    createdAt: iso(o.createdAt)!,
    detectedAt: iso(o.detectedAt),
    confirmedAt: iso(o.confirmedAt),
    completedAt: iso(o.completedAt),
  };
}

export function payinCallbackPayload(o: PayinOrderRow, merchantUid: string, bindKey: string | null): PayinCallbackFields {
  return {
    merchantUid,
    orderNo: o.orderNo,
    merchantOrderNo: o.merchantOrderNo,
    mode: o.mode,
    businessType: o.mode === "exclusive" ? "exclusive_deposit" : "payin_order",
    bindKey,
    expectedAmount: amountOf(o, o.amount),
    paidAmount: amountOf(o, o.paidAmount),
    chainCode: o.chain,
    tokenSymbol: o.token,
    txHash: o.txHash,
    fromAddress: o.fromAddress,
    status: o.status,
    confirmations: o.confirmations,
  };
}

export function viewDeps(ctx: { publicUrl: string; chains: ReadonlyMap<ChainCode, ChainAdapter>; config: Pick<Config, "chains"> }): ViewDeps {
  return {
    get publicUrl() {
      return ctx.publicUrl;
    },
    // A chain disabled since the order was made still has its token facts in config: its orders stay readable.
    token: (chain, symbol) => (ctx.chains.get(chain)?.tokens ?? tokensFor(chain, ctx.config.chains[chain])).find((t) => t.symbol === symbol)!,
  };
}
