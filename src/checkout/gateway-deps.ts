// Connects the hosted pages to real orders and bindings, by their unguessable link tokens.
import { SandboxChain } from "../chains/sandbox/chain";
import type { Cipher } from "../secrets/cipher";
import type { Config } from "../config/schema";
import { clientIpResolver } from "../lib/client-ip";
import type { ChainCode, TokenSymbol } from "../chains/types";
import { iso } from "../lib/clock";
import { addressById } from "../wallet/addresses";
import { amountOf } from "../orders/amount";
import { paymentUri } from "../payin/payment-uri";
import { payinView, viewDeps } from "../payin/views";
import type { CheckoutDeps, CheckoutRefundView, InvoicePageStatus, PayinStatus } from "./types";
import { displayAmount } from "./status-view";
import { isSandboxGateway } from "../ops/readiness";
import { ChoiceError, chooseNetwork, type InvoiceNetworkCtx } from "../payin/invoice-network";
import { invoiceById, invoiceByToken } from "../invoices/store";
import { bindingByPageToken } from "../payin/bindings-store";
import { currentPayin, ordersOfBinding, payinByCheckoutToken } from "../payin/orders-store";
import { findMerchantById } from "../merchants/service";
import { paymentsOf } from "../invoices/views";
import { networkButtonName } from "./i18n";
import { giveRefundAddress, refundByToken, refundsOfOrder, RefundRefused, type RefundCtx } from "../payout/refunds";
import { AppError } from "../errors";
import { holdReason } from "../payin/hold";
import { checkPayinTxHash, takeTxHashTurn } from "../payin/tx-hash";

const REFUND_STATE: Record<string, CheckoutRefundView["state"]> = { awaiting_address: "awaiting_address", submitted: "on_its_way", broadcasted: "on_its_way", confirmed: "sent", failed: "failed" };

/** What the hosted pages' lookups read from the gateway (and the invoice page's network choice writes with). */
export type CheckoutGatewayCtx = InvoiceNetworkCtx & RefundCtx & { publicUrl: string; cipher: Cipher; config: Pick<Config, "server"> };

/**
 * `afterRefundAddress` runs the first attempt of a refund's new payout (the payout job would
 * pick it up otherwise).
 */
export function gatewayCheckoutDeps(
  ctx: CheckoutGatewayCtx,
  afterSimulate: (chain: ChainCode) => Promise<void>,
  afterRefundAddress: (payoutOrderId: number) => Promise<unknown> = async () => {},
): CheckoutDeps {
  const views = viewDeps(ctx);
  const clientIp = clientIpResolver(ctx.config.server.trusted_proxies);
  const merchantName = async (id: number) => (await findMerchantById(ctx.db, id))?.name ?? "";
  const orderByToken = async (token: string) => await payinByCheckoutToken(ctx.db, token);
  const invoiceOf = async (id: number | null) => {
    const inv = id === null ? undefined : await invoiceById(ctx.db, id);
    return inv ? { invoiceUrl: inv.invoiceUrl, invoicePrice: `${inv.priceAmount} ${inv.priceCurrency}` } : {};
  };
  /** A cancelled order's latest refund, as its payer's page says it. */
  const refundOfCancelled = async (o: { id: number }): Promise<CheckoutRefundView | null> => {
    const r = (await refundsOfOrder(ctx.db, o.id)).at(-1);
    if (!r) return null;
    const state = REFUND_STATE[r.status] ?? "on_its_way";
    return { state, amount: `${displayAmount(amountOf(r, r.amount)!)} ${r.token}`, url: r.pageToken ? `/refund/${encodeURIComponent(r.pageToken)}` : null };
  };
  return {
    now: () => ctx.clock.now(),
    forms: { db: ctx.db, cipher: ctx.cipher, now: () => ctx.clock.now() },
    clientIp: clientIpResolver(ctx.config.server.trusted_proxies),
    // DESIGN 8: simulating is for a whole-sandbox gateway only (never in a mixed test config).
    sandbox: (chain) => isSandboxGateway(ctx) && ctx.chains.get(chain) instanceof SandboxChain,
    onError: (context, err) => ctx.logger.error(context, { error: String((err as Error)?.stack ?? err) }),
    async findOrder(token) {
      const o = await orderByToken(token);
      if (!o) return null;
      const v = payinView(views, o);
      return {
        merchantName: await merchantName(o.merchantId),
        orderNo: o.orderNo,
        merchantOrderNo: o.merchantOrderNo,
        chainCode: o.chain as ChainCode,
        tokenSymbol: o.token as TokenSymbol,
        amount: v.amount,
        paidAmount: v.paidAmount,
        address: o.address,
        paymentUri: v.paymentUri,
        status: o.status as PayinStatus,
        expireAt: v.expireAt,
        confirmations: o.confirmations,
        requiredConfirmations: ctx.chains.get(o.chain as ChainCode)?.requiredConfirmations ?? 1,
        txHash: o.txHash,
        createdAt: v.createdAt,
        completedAt: v.completedAt,
        redirectUrl: o.redirectUrl,
        holdReason: await holdReason(ctx.db, o),
        refund: o.status === "cancelled" ? await refundOfCancelled(o) : null,
        ...await invoiceOf(o.invoiceId),
      };
    },
    async findDeposit(token) {
      const b = await bindingByPageToken(ctx.db, token);
      if (!b) return null;
      const a = (await addressById(ctx.db, b.addressId))!;
      const info = views.token(b.chain as ChainCode, b.token);
      const recent = await ordersOfBinding(ctx.db, b.id, 10);
      return {
        merchantName: await merchantName(b.merchantId),
        chainCode: b.chain as ChainCode,
        tokenSymbol: b.token as TokenSymbol,
        address: a.address,
        paymentUri: paymentUri(b.chain as ChainCode, info, a.address, null),
        label: b.label,
        recentDeposits: recent.map((o) => ({ amount: amountOf(o, o.paidAmount ?? o.amount)!, status: o.status as PayinStatus, txHash: o.txHash, createdAt: iso(o.createdAt)! })),
      };
    },
    invoices: {
      async findInvoice(token) {
        const inv = await invoiceByToken(ctx.db, token);
        if (!inv) return null;
        const p = await currentPayin(ctx.db, inv);
        return {
          merchantName: await merchantName(inv.merchantId),
          invoiceNo: inv.invoiceNo,
          priceAmount: inv.priceAmount,
          priceCurrency: inv.priceCurrency,
          description: inv.description,
          status: inv.status as InvoicePageStatus,
          expireAt: iso(inv.expireAt)!,
          // A chain disabled since the invoice was made is not offered any more.
          networks: paymentsOf(inv).filter((value) => ctx.chains.has(value.split(":")[0] as ChainCode)).map((value) => {
            const [chain, token] = value.split(":") as [ChainCode, TokenSymbol];
            return { value, chainCode: chain, tokenSymbol: token, label: networkButtonName(chain, token) };
          }),
          current: p ? { checkoutToken: p.checkoutToken, network: `${p.chain}:${p.token}`, changeable: p.status === "waiting_payment" } : null,
        };
      },
      async chooseNetwork(token, network) {
        try {
          return { checkoutToken: (await chooseNetwork(ctx, token, network)).order.checkoutToken };
        } catch (e) {
          if (e instanceof ChoiceError) return { problem: e.problem };
          throw e;
        }
      },
    },
    refunds: {
      async findRefund(token) {
        const r = await refundByToken(ctx.db, token);
        if (!r) return null;
        return {
          merchantName: await merchantName(r.merchantId),
          orderNo: r.orderNo,
          chainCode: r.chain as ChainCode,
          tokenSymbol: r.token as TokenSymbol,
          amount: amountOf(r, r.amount)!,
          status: r.status,
          toAddress: r.toAddress,
          txHash: r.txHash,
        };
      },
      async giveAddress(token, address) {
        try {
          const { payout } = await giveRefundAddress(ctx, token, address);
          if (payout) await afterRefundAddress(payout.id);
          return { ok: true };
        } catch (e) {
          if (e instanceof AppError && e.code === 54003) return { problem: "own" };
          if (e instanceof AppError && e.code === 10001) return { problem: "invalid" };
          if (e instanceof RefundRefused) return { problem: "unavailable" };
          throw e;
        }
      },
    },
    async checkTxHash(token, txHash, request) {
      const o = await orderByToken(token);
      if (!o) return "unavailable";
      try {
        takeTxHashTurn(ctx, o.orderNo, `ip:${clientIp(request) ?? "unknown"}`);
        return (await checkPayinTxHash(ctx, o, txHash)).result;
      } catch (e) {
        if (e instanceof AppError && e.code === 10029) return "rate_limited";
        if (e instanceof AppError && e.code === 10001) return "malformed";
        ctx.logger.warn("checkout: transaction hash check failed", { orderNo: o.orderNo, error: String((e as Error)?.message ?? e) });
        return "unavailable";
      }
    },
    async simulatePayment(token) {
      const o = await orderByToken(token);
      if (!o) throw new Error("unknown order");
      const chain = ctx.chains.get(o.chain as ChainCode);
      if (!(chain instanceof SandboxChain) || !isSandboxGateway(ctx)) throw new Error("not a sandbox gateway");
      await chain.transfer({ token: o.token as TokenSymbol, to: o.address, amount: BigInt(o.amount) });
      await afterSimulate(chain.chain);
    },
  };
}
