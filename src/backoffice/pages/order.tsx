/** @jsxImportSource @kitajs/html */
// The order page (both roles, scoped): status timeline with the cause of each
// change, transfers with explorer links, every callback delivery attempt with
// "Resend"; and the operator's "Freeze", "Release", "Cancel order".
import { CostList } from "../views/costs";
import { costsOfPayin, costsOfPayout, type CostRow } from "../queries/costs";
import { Elysia } from "elysia";
import { CallbackBusy, CallbackNotFound, resendCallback } from "../../callbacks/resend";
import { fromBaseUnits } from "../../lib/money";
import { canTransition, type PayinStatus } from "../../payin/state";
import { recordAudit } from "../../audit/log";
import { writeTx } from "../../db/client";
import { NotFound } from "../errors";
import { DomainError } from "../../errors";
import { errorText } from "../../i18n/catalog";
import { action, actorOf, type BackofficeDeps, page, redirect, str, type Viewer } from "../guard";
import { cancelOrder, freezeOrder, OperatorError, releaseOrder } from "../../payin/operator";
import type { PayinOrderRow } from "../../payin/views";
import { attemptCount, callbackScopeOk, type OrderDetail, orderDetail } from "../queries/order";
import type { DisplayCtx } from "../format";
import { ActionButton, Csrf, DataTable, Notice, OrderLink, StatusBadge, statusLabel, Time } from "../views/common";
import { invoiceNoOf } from "../../invoices/list";
import { compatSideOf } from "../../payin/compat-side-store";
import { ChainRef } from "../views/explorer";
import { Layout } from "../views/layout";
import { locale, tr, trf, trm } from "../i18n";
import { CallbackDeliveries, maxDeliveries } from "../views/callback-deliveries";
import { backofficeRefundNo, OrderRefunds, orderRefundsOf, refundProblem, ResolveFrozen, resolveOptionsOf } from "./refunds";
import { createRefund } from "../../payout/refunds";
import { RESOLUTIONS, resolveFrozen, type Resolution } from "../../payin/resolve";

const NOTICES: Record<string, string> = {
  resent: "Callback queued again; its new attempt is listed below.",
  frozen: "Order frozen.",
  released: "Order released.",
  cancelled: "Order cancelled.",
  attached: "Deposit attached to this order.",
  refunded: "Refund created; it is listed below.",
  resolved: "Payment resolved; what it produced is in the timeline.",
};

/** Why a status changed, in words (the funnel's event). */
export function causeOf(kind: "payin" | "payout", raw: string): string {
  let e: Record<string, unknown> & { type: string };
  try {
    e = JSON.parse(raw);
  } catch {
    return raw;
  }
  switch (e.type) {
    case "paid":
      return e.senderDenied ? tr("payment seen from a deny-listed sender") : tr("payment seen in a block");
    case "confirmations":
      return trf("{count}/{required} confirmations", { count: String(e.count), required: String(e.required) });
    case "expire":
      return tr("not paid before it expired");
    case "reorg":
      return tr("the paying transfer was dropped by a chain reorganisation");
    case "late_confirmed":
      return tr("a payment after expiry reached finality");
    case "freeze":
      return tr("frozen by an operator");
    case "cancel":
      return tr("cancelled by an operator");
    case "release":
      return e.paid === "in_full" ? tr("released: paid in full on time") : e.paid === "short_or_late" ? tr("released: paid short or late") : tr("released: nothing was paid");
    case "wrong_amount":
      return tr("a different amount arrived: held for review");
    case "deposit":
      return tr("deposit to an exclusive address");
    case "broadcasted":
      return tr("transaction accepted by the node");
    case "confirmed":
      return kind === "payout" ? tr("transaction final on chain") : statusLabel("confirmed");
    case "fail":
      return trf("failed at stage {stage}", { stage: String(e.stage) });
    default:
      return e.type;
  }
}

interface TimelineItem {
  at: number;
  title: string;
  detail: string;
  status?: string;
}

function createdBy(o: OrderDetail): string {
  if (o.payin?.mode === "exclusive") return tr("exclusive deposit order");
  if (o.payin?.compat) return trf("order created by a shop plugin ({plugin})", { plugin: o.payin.compat === "epay" ? "EPay" : "epusdt" });
  return tr("order created through the API");
}

function timeline(o: OrderDetail): TimelineItem[] {
  const created = (o.payin ?? o.payout)!;
  const items: TimelineItem[] = [{ at: created.createdAt, title: tr("created"), detail: createdBy(o) }];
  for (const e of o.events) items.push({ at: e.at, title: `${e.fromStatus === null ? tr("new") : statusLabel(e.fromStatus)} → ${statusLabel(e.toStatus)}`, status: e.toStatus, detail: causeOf(o.kind, e.event) });
  for (const a of o.audit) {
    const after = a.after ? (JSON.parse(a.after) as Record<string, unknown>) : {};
    const why = typeof after.reason === "string" ? `: ${after.reason}` : typeof after.note === "string" ? `: ${after.note}` : "";
    items.push({ at: a.at, title: a.action, detail: `${trf("by {actor}", { actor: a.actor })} (${a.role}${a.ip ? `, ${a.ip}` : ""})${why}` });
  }
  return items.sort((a, b) => a.at - b.at);
}

/** What the order page shows besides the order itself, read by its route handlers (the page runs no query). */
async function loadOrderPage(d: BackofficeDeps, o: OrderDetail) {
  return {
    o,
    invoiceNo: o.payin?.invoiceId != null ? await invoiceNoOf(d.ctx.db, o.payin.invoiceId) : null,
    compat: o.payin?.compat != null ? await compatSideOf(d.ctx.db, o.payin.id) : undefined,
    costs: o.payout ? await costsOfPayout(d.ctx.db, o.payout.id) : await costsOfPayin(d.ctx.db, o.payin!),
    resolve: o.payin ? await resolveOptionsOf(d, o.payin) : null,
    refunds: o.payin ? await orderRefundsOf(d, o.payin) : { rows: [], left: 0n },
    now: d.users.now(),
    maxDeliveries: maxDeliveries(d),
  };
}
type OrderPageData = Awaited<ReturnType<typeof loadOrderPage>>;

function OrderPage(p: { data: OrderPageData; display: DisplayCtx; v: Viewer; notice?: string; error?: string }): string {
  const { v, display, data } = p;
  const { o } = data;
  const row = (o.payin ?? o.payout)!;
  const fmt = (units: string | null) => (units === null ? "—" : `${fromBaseUnits(BigInt(units), row.decimals, 6)} ${row.token}`);
  const status = row.status as PayinStatus;
  const back = `/backoffice/orders/${row.orderNo}`;
  return (
    <Layout title={trf(o.kind === "payin" ? "Pay-in {orderNo}" : "Payout {orderNo}", { orderNo: row.orderNo })} viewer={v} path={o.kind === "payin" ? "/backoffice/payins" : "/backoffice/payouts"}>
      <Notice text={p.notice} />
      <Notice kind="error" text={p.error} />
      <dl class="kv">
        <dt>{trm("Status")}</dt>
        <dd>
          <StatusBadge status={row.status} />
        </dd>
        <dt>{trm("Merchant")}</dt>
        <dd safe>{`${o.merchantUid} · ${o.merchantName}`}</dd>
        <dt>{trm("Merchant order")}</dt>
        <dd safe>{row.merchantOrderNo}</dd>
        <dt>{trm("Chain")}</dt>
        <dd safe>{`${row.chain} ${row.token}`}</dd>
        <dt>{trm("Amount")}</dt>
        <dd safe>{fmt(row.amount)}</dd>
        {o.payin ? (
          <>
            <dt>{trm("Paid")}</dt>
            <dd safe>{fmt(o.payin.paidAmount)}</dd>
            <dt>{trm("Address")}</dt>
            <dd>
              <ChainRef ctx={display} chain={row.chain} kind="address" value={o.payin.address} />
            </dd>
            <dt>{trm("Expires")}</dt>
            <dd>
              <Time ms={o.payin.expireAt} />
            </dd>
            {o.payin.invoiceId !== null ? (
              <>
                <dt>{trm("Invoice")}</dt>
                <dd>
                  <OrderLink orderNo={data.invoiceNo!} />
                  <span safe>{trf(" (rate {rate}; its callbacks are the invoice's)", { rate: o.payin.invoiceRate ?? "1" })}</span>
                </dd>
              </>
            ) : null}
            {o.payin.compat !== null ? <ShopPlugin c={data.compat} /> : null}
          </>
        ) : (
          <>
            <dt>{trm("Fee")}</dt>
            <dd safe>{fmt(o.payout!.fee)}</dd>
            <dt>{trm("To")}</dt>
            <dd>
              <ChainRef ctx={display} chain={row.chain} kind="address" value={o.payout!.toAddress} />
            </dd>
            <dt>{trm("From")}</dt>
            <dd>
              <ChainRef ctx={display} chain={row.chain} kind="address" value={o.payout!.fromAddress} />
            </dd>
            {o.payout!.lastError ? (
              <>
                <dt>{trm("Last error")}</dt>
                <dd safe>{o.payout!.lastError}</dd>
              </>
            ) : (
              <></>
            )}
          </>
        )}
        <dt>{trm("Transaction")}</dt>
        <dd>
          <ChainRef ctx={display} chain={row.chain} kind="tx" value={row.txHash} />
        </dd>
      </dl>

      {v.role === "operator" && o.payin ? (
        <div class="actions">
          {canTransition(status, { type: "freeze" }) ? (
            <form method="post" action={`${back}/freeze`} class="inline">
              <Csrf viewer={v} />
              <label for="reason">{trm("Reason")}</label>
              <input id="reason" name="reason" maxlength="500" placeholder={tr("optional")} />
              <button type="submit" class="danger">
                {trm("Freeze")}
              </button>
            </form>
          ) : (
            <></>
          )}
          {status === "frozen_abnormal" ? (
            <ActionButton viewer={v} action={`${back}/release`} label="Release" />
          ) : (
            <></>
          )}
          {canTransition(status, { type: "cancel" }) ? (
            <ActionButton viewer={v} action={`${back}/cancel`} label="Cancel order" kind="secondary" />
          ) : (
            <></>
          )}
        </div>
      ) : (
        <></>
      )}

      <NetworkCost payout={o.kind === "payout"} rows={data.costs} />

      {o.payin ? (
        <>
          <ResolveFrozen options={data.resolve} v={v} o={o.payin} back={back} />
          <OrderRefunds refunds={data.refunds} display={display} v={v} o={o.payin} back={back} />
        </>
      ) : (
        <></>
      )}

      <h2>{trm("Timeline")}</h2>
      <ol class="timeline" aria-label={tr("Status timeline")}>
        {timeline(o).map((t) => (
          <li>
            <Time ms={t.at} /> <strong safe>{t.title}</strong> <span safe>{`— ${t.detail}`}</span>
          </li>
        ))}
      </ol>

      {o.kind === "payin" ? (
        <>
          <h2>{trm("Transfers")}</h2>
          {o.transfers.length ? (
            <DataTable
              label="Transfers"
              head={["Transaction", "From", "Amount", "Block", "Confirmations", "State"]}
              rows={o.transfers}
              row={(t) => (
                <tr>
                  <td>
                    <ChainRef ctx={display} chain={t.chain} kind="tx" value={t.txHash} />
                  </td>
                  <td>
                    <ChainRef ctx={display} chain={t.chain} kind="address" value={t.fromAddress} />
                  </td>
                  <td safe>{fmt(t.amount)}</td>
                  <td safe>{String(t.blockNumber)}</td>
                  <td safe>{String(t.confirmations)}</td>
                  <td>
                    <StatusBadge status={t.status} />
                  </td>
                </tr>
              )}
            />
          ) : (
            <p>{trm("No transfer yet.")}</p>
          )}
        </>
      ) : (
        <></>
      )}

      <h2>{trm("Callbacks")}</h2>
      {o.callbacks.length ? (
        <p>
          <a href={`/backoffice/callbacks?order=${row.orderNo}`}>{trm("This order's callbacks in the callbacks list")}</a>
        </p>
      ) : (
        <></>
      )}
      <CallbackDeliveries viewer={v} now={data.now} maxDeliveries={data.maxDeliveries} callbacks={o.callbacks} back={back} defaultUrl={o.merchantDefaultUrl} empty="No callback for this order." />
    </Layout>
  ) as string;
}

export function orderRoutes(d: BackofficeDeps) {
  const load = async (v: Viewer, orderNo: string) => {
    const o = await orderDetail(d.ctx.db, { merchantId: v.merchantId }, orderNo);
    if (!o) throw new NotFound("No such order.");
    return o;
  };
  const payinAction = (name: string, reauth: boolean, fn: (v: Viewer, o: OrderDetail, body: Record<string, unknown>) => Promise<unknown>) =>
    action(d, { role: "operator", reauth }, async (v, { params, body }) => {
      const o = await load(v, params.orderNo);
      if (!o.payin) throw new NotFound("No such pay-in order.");
      try {
        await fn(v, o, body);
      } catch (e) {
        if (e instanceof DomainError) return OrderPage({ data: await loadOrderPage(d, await load(v, params.orderNo)), display: d.ctx, v, error: errorText(locale(), e) });
        throw e;
      }
      d.kick();
      return redirect(`/backoffice/orders/${o.payin.orderNo}?done=${name}`);
    });
  // Refunds and the guided resolution: both roles (scoped by load), confirmed with the password.
  const moneyAction = (name: string, fn: (v: Viewer, o: PayinOrderRow, body: Record<string, unknown>, once: string | null) => Promise<unknown>) =>
    action(d, { reauth: "always" }, async (v, { params, body, once }) => {
      const o = await load(v, params.orderNo);
      if (!o.payin) throw new NotFound("No such pay-in order.");
      try {
        // The refund's payout goes out with the next payout run (every second), like a batch's.
        await fn(v, o.payin, body, once ?? null);
      } catch (e) {
        const why = refundProblem(e);
        if (why !== null) return OrderPage({ data: await loadOrderPage(d, await load(v, params.orderNo)), display: d.ctx, v, error: why });
        throw e;
      }
      d.kick();
      return redirect(`/backoffice/orders/${o.payin.orderNo}?done=${name}`);
    });
  return new Elysia({ name: "backoffice-order" })
    .post(
      "/backoffice/orders/:orderNo/refund",
      moneyAction("refunded", async (v, o, b, once) => {
        const link = str(b.mode as string) === "link";
        const toAddress = str(b.toAddress as string).trim();
        if (!link && !toAddress) throw new OperatorError("refund.address_missing");
        return await createRefund(d.ctx, o.merchantId, o.orderNo, { refundNo: backofficeRefundNo(once, d.ctx.clock.now()), amount: str(b.amount as string).trim(), ...(link ? {} : { toAddress }) }, { source: "backoffice", actor: actorOf(v) });
      }),
    )
    .post(
      "/backoffice/orders/:orderNo/resolve",
      moneyAction("resolved", async (v, o, b) => {
        const choice = str(b.choice as string) as Resolution;
        if (!RESOLUTIONS.includes(choice)) throw new OperatorError("resolve.choose");
        const r = await resolveFrozen(d.ctx, o.orderNo, choice, { note: str(b.note as string), toAddress: str(b.toAddress as string) }, actorOf(v), { merchantId: v.merchantId ?? undefined });
        return r.refund ?? undefined;
      }),
    )
    .get(
      "/backoffice/orders/:orderNo",
      page(d, {}, async (v, { params, query }) => OrderPage({ data: await loadOrderPage(d, await load(v, params.orderNo)), display: d.ctx, v, notice: NOTICES[query.done ?? ""] })),
    )
    .post(
      "/backoffice/orders/:orderNo/freeze",
      // A reason is asked for, not required: the audit entry names who froze it either way.
      payinAction("frozen", false, async (v, o, b) => await freezeOrder(d.ctx, o.payin!.orderNo, str(b.reason as string).trim() || `frozen in the back office by ${v.user.username}`, actorOf(v))),
    )
    .post("/backoffice/orders/:orderNo/release", payinAction("released", true, async (v, o) => await releaseOrder(d.ctx, o.payin!.orderNo, actorOf(v))))
    .post("/backoffice/orders/:orderNo/cancel", payinAction("cancelled", false, async (v, o) => await cancelOrder(d.ctx, o.payin!.orderNo, actorOf(v))))
    .post(
      "/backoffice/callbacks/:eventId/resend",
      action(d, {}, async (v, { params, body }) => {
        const c = await callbackScopeOk(d.ctx.db, { merchantId: v.merchantId }, params.eventId);
        if (!c) throw new NotFound("No such callback.");
        const back = (() => {
          const b = str(body.back);
          return b.startsWith("/backoffice/") && !b.startsWith("//") ? b : `/backoffice/orders/${c.orderNo}`;
        })();
        const before = await attemptCount(d.ctx.db, c.id);
        try {
          await writeTx(d.ctx.db, async (tx) => {
            await resendCallback(tx, c.id, d.users.now(), { merchantId: v.merchantId ?? undefined });
            await recordAudit(tx, { ...actorOf(v), action: "callback.resend", target: `${c.kind}:${c.orderNo}`, after: { eventId: c.id }, at: d.users.now() });
          });
        } catch (e) {
          if (e instanceof CallbackBusy || e instanceof CallbackNotFound) return redirect(back);
          throw e;
        }
        d.kick();
        // Give the worker a moment so the page shows the new attempt (delivery has a timeout of its own).
        for (let i = 0; i < 60; i++) {
          const n = await attemptCount(d.ctx.db, c.id);
          if (n > before) break;
          await Bun.sleep(50);
        }
        return redirect(back.includes("?") ? back : `${back}?done=resent`);
      }),
    );
}

/** What the gateway spent on chain for the order: always on a payout; on a pay-in once its refunds or the sweep of its money cost something. */
function NetworkCost(p: { payout: boolean; rows: readonly CostRow[] }): JSX.Element {
  if (!p.payout && p.rows.length === 0) return <></>;
  return (
    <>
      <h2>{trm("Network cost")}</h2>
      <CostList rows={p.rows} />
    </>
  );
}

/** A shop plugin's order (DESIGN 19): its price in the shop's currency and what the shop hears. */
function ShopPlugin({ c }: { c: Awaited<ReturnType<typeof compatSideOf>> }): JSX.Element {
  if (!c) return <></>;
  return (
    <>
      <dt>{trm("Shop plugin")}</dt>
      <dd safe>{trf("{plugin}: {price} {currency} at rate {rate}; the shop is called back at {url} once the order completes", { plugin: c.protocol === "epay" ? "EPay" : "epusdt", price: c.priceAmount, currency: c.priceCurrency, rate: c.rate, url: c.notifyUrl })}</dd>
    </>
  );
}
