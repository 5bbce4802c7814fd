/** @jsxImportSource @kitajs/html */
// The operator's exceptions queue: unmatched deposits ("Attach" to an order
// chosen by search), frozen orders ("Release", "Cancel order"), the deny list.
// The deposit page is shared (scoped) so a merchant sees its own deposits too.
import { Elysia } from "elysia";
import { chainCodes, hasChainModule } from "../../chains/registry";
import { fromBaseUnits } from "../../lib/money";
import { attachDeposit, denySender, dismissDeposit, listDenied, OperatorError, undenySender } from "../../payin/operator";
import { refundDeposit } from "../../payout/refunds";
import { holdTextOf } from "../../payin/hold";
import { DepositRefunds, depositRefundsOf, refundProblem } from "./refunds";
import { listUnmatched, UNMATCHED_REASONS, type UnmatchedReason } from "../../payin/unmatched";
import { NotFound } from "../errors";
import { decimalsOf, type DisplayCtx } from "../format";
import { action, actorOf, type BackofficeDeps, page, redirect, str, type Viewer } from "../guard";
import { attachCandidates, depositDetail } from "../queries/deposits";
import { parseFilter } from "../queries/filters";
import { listPayins } from "../queries/lists";
import { ActionButton, Csrf, DataTable, Notice, OrderLink, StatusBadge, Time } from "../views/common";
import { ChainRef } from "../views/explorer";
import { Layout } from "../views/layout";
import { locale, tr, trf, trm } from "../i18n";
import { errorText } from "../../i18n/catalog";
import { orderDetail } from "../queries/order";
import { acknowledgeUnrecorded, AckError, openUnrecorded, type UnrecordedRow } from "../../restore/reconcile";
import { releaseHeldPayouts } from "../../payout/store";
import { mapSeq } from "../../lib/async-seq";

/** Open unrecorded outgoing transfers grouped by source: one acknowledgement per source. */
function unrecordedBySource(rows: UnrecordedRow[]): Array<{ chain: string; address: string; rows: UnrecordedRow[] }> {
  const out = new Map<string, { chain: string; address: string; rows: UnrecordedRow[] }>();
  for (const r of rows) {
    const k = `${r.chain}:${r.address}`;
    if (!out.has(k)) out.set(k, { chain: r.chain, address: r.address, rows: [] });
    out.get(k)!.rows.push(r);
  }
  return [...out.values()];
}

function UnrecordedSection(p: { sources: ReturnType<typeof unrecordedBySource>; display: DisplayCtx; v: Viewer }): JSX.Element {
  const { sources } = p;
  if (!sources.length) return <></>;
  return (
    <>
      <h2>{trm("Unrecorded outgoing transfers")}</h2>
      <p class="muted">
        {trm("After a restore, these payout sources sent transfers the database does not know (made after the backup). Their payouts are held. Check on the explorer that each transfer is one you expect (it may already pay an order the merchant will retry), then acknowledge: the held payouts go out.")}
      </p>
      <DataTable
        label="Unrecorded outgoing transfers"
        head={["Chain", "Source", "Transfers", { hidden: "Action" }]}
        rows={sources}
        row={(g) => (
          <tr>
            <td safe>{g.chain}</td>
            <td>
              <ChainRef ctx={p.display} chain={g.chain} kind="address" value={g.address} />
            </td>
            <td class="wrap">
              <ul>
                {g.rows.map((t) => (
                  <li>
                    {t.txHash ? <ChainRef ctx={p.display} chain={t.chain} kind="tx" value={t.txHash} /> : <span safe>{trf("nonce {nonce}", { nonce: t.nonce ?? "?" })}</span>}{" "}
                    <span safe>{t.amount !== null && t.asset ? trf("{asset} {amount} base units", { asset: t.asset, amount: t.amount }) : ""}</span> <span class="mono" safe>{t.toAddress ? `→ ${t.toAddress}` : ""}</span>
                  </li>
                ))}
              </ul>
            </td>
            <td>
              <ActionButton viewer={p.v} action="/backoffice/exceptions/unrecorded/ack" fields={{ chain: g.chain, address: g.address }} label="Acknowledge" ariaLabel={trf("Acknowledge transfers from {address}", { address: g.address })} />
            </td>
          </tr>
        )}
      />
    </>
  );
}

const NOTICES: Record<string, string> = {
  denied: "Sender added to the deny list.",
  undenied: "Sender removed from the deny list.",
  refunded: "Refund created; it is listed below.",
  dismissed: "Deposit dismissed.",
  acknowledged: "Unrecorded transfers acknowledged; the source's held payouts go out at the next payout run.",
};

function resolutionText(t: { resolution: string | null; resolutionRef: string | null; resolutionNote: string | null }): string {
  if (!t.resolution) return tr("open");
  return `${t.resolution}${t.resolutionRef ? ` (${t.resolutionRef})` : ""}${t.resolutionNote ? `: ${t.resolutionNote}` : ""}`;
}

const reasonText = (r: string | null | undefined) => (r && r in UNMATCHED_REASONS ? tr(UNMATCHED_REASONS[r as UnmatchedReason]) : (r ?? ""));

/** What the exceptions page shows, read by its route handlers (the page itself runs no query). */
export interface ExceptionsData {
  unrecorded: ReturnType<typeof unrecordedBySource>;
  unmatched: Awaited<ReturnType<typeof listUnmatched>>["deposits"];
  frozen: Awaited<ReturnType<typeof listPayins>>["rows"];
  denied: Awaited<ReturnType<typeof listDenied>>;
  /** Why each frozen order is held, by orderNo (src/payin/hold.ts). */
  holds?: Record<string, string>;
}

/**
 * The operator's queue, or a merchant user's own part of it (issue 28): its unmatched deposits and
 * frozen orders; the deny list and unrecorded transfers stay the operator's.
 */
export async function loadExceptions(d: BackofficeDeps, v: Pick<Viewer, "role" | "merchantId"> = { role: "operator", merchantId: null }): Promise<ExceptionsData> {
  const operator = v.role === "operator";
  const frozen = (await listPayins(d.ctx.db, { merchantId: v.merchantId }, parseFilter({ status: "frozen_abnormal" }, ["frozen_abnormal"]), { limit: 200 })).rows;
  return {
    unrecorded: operator ? unrecordedBySource(await openUnrecorded(d.ctx.db)) : [],
    unmatched: (await listUnmatched(d.ctx, { state: "open", limit: 200, ...(operator ? {} : { merchantId: v.merchantId! }) })).deposits,
    frozen,
    denied: operator ? await listDenied(d.ctx) : [],
    holds: Object.fromEntries(await mapSeq(frozen, async (o) => [o.orderNo, await holdTextOf(d.ctx.db, o.orderNo)])),
  };
}

export function ExceptionsPage(p: { data: ExceptionsData; display: DisplayCtx; v: Viewer; notice?: string; error?: string }): string {
  const { v } = p;
  const operator = v.role === "operator";
  const { unmatched, frozen, denied } = p.data;
  return (
    <Layout title={tr("Exceptions")} viewer={v} path="/backoffice/exceptions">
      <Notice text={p.notice} />
      <Notice kind="error" text={p.error} />
      {operator ? <UnrecordedSection sources={p.data.unrecorded} display={p.display} v={v} /> : <></>}
      <h2>{trm("Unmatched deposits")}</h2>
      {unmatched.length ? (
        <DataTable
          label="Unmatched deposits"
          head={["Deposit", "Merchant", "Amount", "Why", "To address", "Block time", { hidden: "Action" }]}
          rows={unmatched}
          row={(t) => (
            <tr>
              <td>
                <a href={`/backoffice/deposits/${t.depositId}`} aria-label={trf("Review deposit #{depositId}", { depositId: t.depositId })} safe>
                  {`#${t.depositId}`}
                </a>
              </td>
              <td safe>{t.merchantUid ?? "—"}</td>
              <td safe>{`${t.amount} ${t.tokenSymbol} (${t.chainCode})`}</td>
              <td class="wrap" safe>
                {tr(t.reasonText ?? "")}
              </td>
              <td class="mono" safe>
                {t.toAddress}
              </td>
              <td>
                <Time ms={t.blockTime ? Date.parse(t.blockTime) : null} />
              </td>
              <td>
                <form method="get" action={`/backoffice/deposits/${t.depositId}`} class="inline">
                  <button type="submit" class="secondary" aria-label={trf("Attach deposit #{depositId}", { depositId: t.depositId })}>
                    {trm("Attach")}
                  </button>
                </form>{" "}
                <form method="get" action={`/backoffice/deposits/${t.depositId}`} class="inline">
                  <button type="submit" class="secondary" aria-label={trf("Refund deposit #{depositId}", { depositId: t.depositId })}>
                    {trm("Refund")}
                  </button>
                </form>
              </td>
            </tr>
          )}
        />
      ) : (
        <p>{trm("None.")}</p>
      )}
      <h2>{trm("Frozen orders")}</h2>
      {frozen.length ? (
        <DataTable
          label="Frozen orders"
          head={["Order", "Merchant", "Amount", "Paid", "Why", "Actions"]}
          rows={frozen}
          row={(o) => (
            <tr>
              <td>
                <OrderLink orderNo={o.orderNo} />
              </td>
              <td safe>{o.merchantUid}</td>
              <td safe>{`${o.amount} ${o.token}`}</td>
              <td safe>{o.paidAmount ? `${o.paidAmount} ${o.token}` : "—"}</td>
              <td class="wrap" safe>
                {tr(p.data.holds?.[o.orderNo] ?? "")}
              </td>
              <td>
                <form method="get" action={`/backoffice/orders/${o.orderNo}`} class="inline">
                  <button type="submit" aria-label={trf("Resolve {orderNo}", { orderNo: o.orderNo })}>
                    {trm("Resolve")}
                  </button>
                </form>{" "}
                {operator ? (
                  <>
                    <ActionButton viewer={v} action={`/backoffice/orders/${o.orderNo}/release`} label="Release" ariaLabel={trf("Release {orderNo}", { orderNo: o.orderNo })} kind="secondary" />{" "}
                    <ActionButton viewer={v} action={`/backoffice/orders/${o.orderNo}/cancel`} label="Cancel order" ariaLabel={trf("Cancel order {orderNo}", { orderNo: o.orderNo })} kind="secondary" />
                  </>
                ) : (
                  <></>
                )}
              </td>
            </tr>
          )}
        />
      ) : (
        <p>{trm("None.")}</p>
      )}
      {operator ? (
        <>
      <h2>{trm("Deny list")}</h2>
      <p class="muted">{trm("A payment from a listed sender freezes its order for review.")}</p>
      <form method="post" action="/backoffice/exceptions/deny" class="filters">
        <Csrf viewer={v} />
        <label for="deny-chain">
          {trm("Chain")}
          <select id="deny-chain" name="chain">
            {chainCodes().map((c) => (
              <option value={c}>{c}</option>
            ))}
          </select>
        </label>
        <label for="deny-address">
          {trm("Sender address")}
          <input id="deny-address" name="address" required maxlength="128" />
        </label>
        <label for="deny-reason">
          {trm("Deny reason")}
          <input id="deny-reason" name="reason" required maxlength="500" />
        </label>
        <button type="submit">{trm("Add to deny list")}</button>
      </form>
      <DataTable
        label="Deny list"
        head={["Chain", "Address", "Reason", "Added", { hidden: "Action" }]}
        rows={denied}
        empty="No sender is denied."
        row={(r) => (
          <tr>
            <td safe>{r.chainCode}</td>
            <td class="mono" safe>
              {r.address}
            </td>
            <td class="wrap" safe>
              {r.reason ?? ""}
            </td>
            <td>
              <Time ms={Date.parse(r.createdAt)} />
            </td>
            <td>
              <ActionButton viewer={v} action="/backoffice/exceptions/undeny" fields={{ chain: r.chainCode, address: r.address }} label="Remove" ariaLabel={trf("Remove {address} from the deny list", { address: r.address })} kind="secondary" />
            </td>
          </tr>
        )}
      />
        </>
      ) : (
        <></>
      )}
    </Layout>
  ) as string;
}

/** A deposit with the orders it may attach to and its refunds, read by its route handlers (the page runs no query). */
async function loadDeposit(d: BackofficeDeps, v: Viewer, id: number, q: string) {
  const dep = await depositDetail(d.ctx.db, { merchantId: v.merchantId }, id);
  if (!dep) throw new NotFound("No such deposit.");
  const { t } = dep;
  const canAttach = t.unmatchedReason !== null && t.resolution === null && t.status !== "reverted";
  return { dep, candidates: canAttach ? await attachCandidates(d.ctx.db, t, q) : [], refunds: await depositRefundsOf(d, t) };
}

function DepositPage(p: { data: Awaited<ReturnType<typeof loadDeposit>>; display: DisplayCtx; v: Viewer; q: string; error?: string; notice?: string }): string {
  const { v, display } = p;
  const { dep, candidates } = p.data;
  const { t } = dep;
  const amount = `${fromBaseUnits(BigInt(t.amount), decimalsOf(display)(t.chain, t.token), 6)} ${t.token}`;
  const open = t.unmatchedReason !== null && t.resolution === null;
  const canAttach = open && t.status !== "reverted";
  return (
    <Layout title={trf("Deposit #{id}", { id: t.id })} viewer={v} path="/backoffice/deposits">
      <Notice text={p.notice} />
      <Notice kind="error" text={p.error} />
      <dl class="kv">
        <dt>{trm("State")}</dt>
        <dd>
          <StatusBadge status={t.disposition} /> <StatusBadge status={t.status} />
        </dd>
        <dt>{trm("Merchant")}</dt>
        <dd safe>{dep.merchantUid ?? "—"}</dd>
        <dt>{trm("Amount")}</dt>
        <dd safe>{`${amount} (${t.chain})`}</dd>
        <dt>{trm("Transaction")}</dt>
        <dd>
          <ChainRef ctx={display} chain={t.chain} kind="tx" value={t.txHash} />
        </dd>
        <dt>{trm("From")}</dt>
        <dd>
          <ChainRef ctx={display} chain={t.chain} kind="address" value={t.fromAddress} />
        </dd>
        <dt>{trm("To")}</dt>
        <dd>
          <ChainRef ctx={display} chain={t.chain} kind="address" value={t.toAddress} />
        </dd>
        <dt>{trm("Block")}</dt>
        <dd safe>{trf("{block} · {n} confirmations", { block: t.blockNumber, n: t.confirmations })}</dd>
        <dt>{trm("Block time")}</dt>
        <dd>
          <Time ms={t.blockTime} />
        </dd>
        {t.unmatchedReason ? (
          <>
            <dt>{trm("Unmatched because")}</dt>
            <dd safe>{reasonText(t.unmatchedReason)}</dd>
            <dt>{trm("Resolution")}</dt>
            <dd safe>{resolutionText(t)}</dd>
          </>
        ) : (
          <></>
        )}
        <dt>{trm("Order")}</dt>
        <dd>
          {dep.orderNo ? (
            <OrderLink orderNo={dep.orderNo} />
          ) : (
            "—"
          )}
        </dd>
      </dl>
      {canAttach ? (
        <>
          <h2>{trm("Attach to an order")}</h2>
          <p class="muted">{trm("Orders of the same address and token that are waiting for payment or expired.")}</p>
          <form method="get" action={`/backoffice/deposits/${t.id}`} class="inline">
            <label for="order-q">{trm("Order")}</label>
            <input id="order-q" name="order" value={p.q} placeholder={tr("orderNo or merchantOrderNo")} />
            <button type="submit">{trm("Find order")}</button>
          </form>
          {candidates.length ? (
            <DataTable
              label="Orders to attach to"
              head={["Order", "Merchant order", "Amount", "Status", { hidden: "Action" }]}
              rows={candidates}
              row={(o) => (
                <tr>
                  <td class="mono" safe>
                    {o.orderNo}
                  </td>
                  <td safe>{o.merchantOrderNo}</td>
                  <td safe>{`${fromBaseUnits(BigInt(o.amount), o.decimals, 6)} ${o.token}`}</td>
                  <td>
                    <StatusBadge status={o.status} />
                  </td>
                  <td>
                    <ActionButton viewer={v} action={`/backoffice/deposits/${t.id}/attach`} fields={{ orderNo: o.orderNo }} label="Attach" ariaLabel={trf("Attach to {orderNo}", { orderNo: o.orderNo })} />
                  </td>
                </tr>
              )}
            />
          ) : (
            <p>{trm(tr(p.q ? "No order to attach to matches that search." : "No order to attach to."))}</p>
          )}
        </>
      ) : (
        <></>
      )}
      <DepositRefunds refunds={p.data.refunds} display={display} v={v} t={t} decimals={decimalsOf(display)(t.chain, t.token)} />
      {open ? (
        <>
          <h2>{trm("Dismiss")}</h2>
          <form method="post" action={`/backoffice/deposits/${t.id}/dismiss`} class="inline">
            <Csrf viewer={v} />
            <label for="dismiss-note">{trm("Note")}</label>
            <input id="dismiss-note" name="note" required maxlength="500" />
            <button type="submit" class="secondary">
              {trm("Dismiss")}
            </button>
          </form>
        </>
      ) : (
        <></>
      )}
    </Layout>
  ) as string;
}

const idParam = (s: string) => (/^\d{1,15}$/.test(s) ? Number(s) : -1);

export function exceptionsRoutes(d: BackofficeDeps) {
  // The handlers load, the page renders.
  const exceptions = async (v: Viewer, msg: { notice?: string; error?: string }) => ExceptionsPage({ v, data: await loadExceptions(d, v), display: d.ctx, ...msg });
  return new Elysia({ name: "backoffice-exceptions" })
    .get("/backoffice/exceptions", page(d, {}, async (v, { query }) => await exceptions(v, { notice: NOTICES[query.done ?? ""] })))
    .get(
      "/backoffice/deposits/:id",
      page(d, {}, async (v, { params, query }) => {
        const q = (query.order ?? "").slice(0, 64);
        return DepositPage({ data: await loadDeposit(d, v, idParam(params.id), q), display: d.ctx, v, q, notice: NOTICES[query.done ?? ""] });
      }),
    )
    .post(
      "/backoffice/deposits/:id/refund",
      action(d, { reauth: "always" }, async (v, { params, body }) => {
        const id = idParam(params.id);
        const link = str(body.mode) === "link";
        const toAddress = str(body.toAddress).trim();
        try {
          if (!link && !toAddress) throw new OperatorError("refund.address_missing");
          await refundDeposit(d.ctx, id, { amount: str(body.amount).trim(), ...(link ? {} : { toAddress }) }, actorOf(v), { merchantId: v.merchantId ?? undefined });
        } catch (e) {
          const why = refundProblem(e);
          if (why !== null) return DepositPage({ data: await loadDeposit(d, v, id, ""), display: d.ctx, v, q: "", error: why });
          throw e;
        }
        return redirect(`/backoffice/deposits/${id}?done=refunded`);
      }),
    )
    .post(
      "/backoffice/deposits/:id/dismiss",
      action(d, {}, async (v, { params, body }) => {
        const id = idParam(params.id);
        try {
          await dismissDeposit(d.ctx, id, str(body.note), actorOf(v), { merchantId: v.merchantId ?? undefined });
        } catch (e) {
          if (e instanceof OperatorError) return DepositPage({ data: await loadDeposit(d, v, id, ""), display: d.ctx, v, q: "", error: errorText(locale(), e) });
          throw e;
        }
        return redirect(`/backoffice/deposits/${id}?done=dismissed`);
      }),
    )
    .post(
      "/backoffice/deposits/:id/attach",
      action(d, { reauth: true }, async (v, { params, body }) => {
        const id = idParam(params.id);
        // A merchant user attaches its own deposits to its own orders (issue 28).
        const dep = await depositDetail(d.ctx.db, { merchantId: v.merchantId }, id);
        if (!dep) throw new NotFound("No such deposit.");
        const o = await orderDetail(d.ctx.db, { merchantId: v.merchantId }, str(body.orderNo));
        if (!o?.payin) return DepositPage({ data: await loadDeposit(d, v, id, ""), display: d.ctx, v, q: "", error: "Choose a pay-in order to attach to." });
        try {
          await attachDeposit(d.ctx, id, o.payin.orderNo, actorOf(v), { merchantId: v.merchantId ?? undefined });
        } catch (e) {
          if (e instanceof OperatorError) return DepositPage({ data: await loadDeposit(d, v, id, ""), display: d.ctx, v, q: "", error: errorText(locale(), e) });
          throw e;
        }
        d.kick();
        return redirect(`/backoffice/orders/${o.payin.orderNo}?done=attached`);
      }),
    )
    .post(
      "/backoffice/exceptions/unrecorded/ack",
      action(d, { role: "operator", reauth: true }, async (v, { body }) => {
        try {
          await acknowledgeUnrecorded(d.ctx.db, { chain: str(body.chain), address: str(body.address) }, actorOf(v), d.ctx.clock.now(), { releaseHeldPayouts });
        } catch (e) {
          if (e instanceof AckError) return await exceptions(v, { error: errorText(locale(), e) });
          throw e;
        }
        return redirect("/backoffice/exceptions?done=acknowledged");
      }),
    )
    .post(
      "/backoffice/exceptions/deny",
      action(d, { role: "operator" }, async (v, { body }) => {
        const chain = str(body.chain);
        const address = str(body.address).trim();
        const reason = str(body.reason).trim().slice(0, 500);
        if (!hasChainModule(chain) || !address || address.length > 128 || !reason) {
          return await exceptions(v, { error: "Give a chain, a sender address and a reason." });
        }
        try {
          await denySender(d.ctx, chain, address, reason, actorOf(v));
        } catch (e) {
          if (e instanceof OperatorError) return await exceptions(v, { error: errorText(locale(), e) });
          throw e;
        }
        return redirect("/backoffice/exceptions?done=denied");
      }),
    )
    .post(
      "/backoffice/exceptions/undeny",
      action(d, { role: "operator" }, async (v, { body }) => {
        const chain = str(body.chain);
        const address = str(body.address);
        try {
          await undenySender(d.ctx, chain, address, actorOf(v));
        } catch (e) {
          if (e instanceof OperatorError) return await exceptions(v, { error: errorText(locale(), e) });
          throw e;
        }
        return redirect("/backoffice/exceptions?done=undenied");
      }),
    );
}
