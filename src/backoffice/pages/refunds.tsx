/** @jsxImportSource @kitajs/html */
// Refunds in the back office (DESIGN 20, issue 28): "Refund" on a paid order's page and on an
// unmatched deposit (Amount; "Payer's address", or "Send a refund link"), the order's refunds, and
// the guided resolution of a frozen order (accept as paid, refund all, refund the difference), each
// saying what it produces, confirmed with the password and noted in the audit log. Both roles; a
// merchant user acts on its own orders and deposits only.
import { AppError, DomainError } from "../../errors";
import { errorText } from "../../i18n/catalog";
import { fromBaseUnits } from "../../lib/money";
import { HOLD_TEXT } from "../../payin/hold";
import type { PayinOrderRow } from "../../payin/views";
import { depositRefundable, refundableAmount, refundsOfDeposit, refundsOfOrder } from "../../payout/refunds";
import { resolutionOptions, type MadeText } from "../../payin/resolve";
import type { RefundRow } from "../../payout/refund-views";
import type { BackofficeDeps, Viewer } from "../guard";
import type { DisplayCtx } from "../format";
import { Csrf, DataTable, StatusBadge, Time } from "../views/common";
import { ChainRef } from "../views/explorer";
import { locale, tr, trf, trm } from "../i18n";

type TransferRow = Parameters<typeof depositRefundable>[1];

/**
 * A back-office refund's refundNo: from the form's one-time token, so the form sent twice names
 * the same refund (refundNo is idempotent per order, in the refund's own transaction), else the time.
 */
export const backofficeRefundNo = (once: string | null, now: number): string => (once ? `bo-${once.replace(".", "-")}` : `bo-${now}`);

/** The words for a refused refund or resolution (the API's codes, the services' own refusals), or null for other errors. */
export function refundProblem(e: unknown): string | null {
  // An operator action or a refund refused (a refused "Accept as paid", a look-alike deposit, …) in the page's language, by its code.
  if (e instanceof DomainError) return errorText(locale(), e);
  if (!(e instanceof AppError)) return null;
  const data = e.data as Record<string, unknown> | null;
  if (e.code === 55001) return trf("That is more than can be refunded ({left} left).", { left: String(data?.refundable ?? "0") });
  if (e.code === 54003) return tr("That address is one of the merchant's own: give the payer's address.");
  if (e.code === 10001) {
    const fields = (data?.fields ?? {}) as Record<string, string>;
    return trf("Check the form: {problems}.", { problems: Object.entries(fields).map(([k, v]) => `${k === "toAddress" ? tr("payer's address") : k} ${v}`).join("; ") });
  }
  return `${e.message}${data?.reason ? `: ${String(data.reason)}` : ""}.`;
}

/**
 * What the Amount field takes: a decimal with at most the token's decimal places (18 for BEP20
 * USDT, 6 on TRON), so the prefilled remainder of a refund with more places than six submits,
 * and more places than the token has are refused in the browser (the server refuses them too).
 */
export const refundAmountPattern = (decimals: number): string => (decimals > 0 ? `^(0|[1-9]\\d*)(\\.\\d{1,${decimals}})?$` : "^(0|[1-9]\\d*)$");

function RefundForm(p: { v: Viewer; action: string; max: string; token: string; decimals: number }): JSX.Element {
  return (
    <form method="post" action={p.action} class="filters" aria-label={tr("Refund")}>
      <Csrf viewer={p.v} />
      <label for="refund-amount">
        {trm("Amount")}
        <input
          id="refund-amount"
          name="amount"
          required
          inputmode="decimal"
          pattern={refundAmountPattern(p.decimals)}
          title={trf("A {token} amount with at most {decimals} decimal places", { token: p.token, decimals: String(p.decimals) })}
          value={p.max}
          aria-describedby="refund-help"
        />
      </label>
      <label for="refund-address">
        {trm("Payer's address")}
        <input id="refund-address" name="toAddress" maxlength="128" autocomplete="off" spellcheck="false" aria-describedby="refund-help" />
      </label>
      <button type="submit" name="mode" value="address">
        {trm("Refund")}
      </button>
      <button type="submit" name="mode" value="link" class="secondary">
        {trm("Send a refund link")}
      </button>
      <p id="refund-help" class="muted" safe>
        {trf(`Up to {max} {token}. With the payer's address it is sent at once, as a payout from the merchant's addresses (the receiving address first); "Send a refund link" makes a page where the payer enters the address. You confirm with your password.`, { max: p.max, token: p.token })}
      </p>
    </form>
  );
}

/** An order's or deposit's refunds and what is left to refund, read by the page's loader. */
export interface RefundsData {
  rows: RefundRow[];
  left: bigint;
}

/** The order page's refund data (nothing is refundable while the order is frozen). */
export async function orderRefundsOf(d: BackofficeDeps, o: PayinOrderRow): Promise<RefundsData> {
  return { rows: await refundsOfOrder(d.ctx.db, o.id), left: o.status === "frozen_abnormal" ? 0n : await refundableAmount(d.ctx.refundPayins, d.ctx.db, o) };
}

/** The deposit page's refund data: a confirmed unmatched deposit (open, or partly refunded) is refundable. */
export async function depositRefundsOf(d: BackofficeDeps, t: TransferRow): Promise<RefundsData> {
  const refundable = t.unmatchedReason !== null && t.status === "confirmed" && (t.resolution === null || t.resolution === "refunded");
  return { rows: await refundsOfDeposit(d.ctx.db, t.id), left: refundable ? await depositRefundable(d.ctx.db, t) : 0n };
}

/** A frozen order's resolution options (null for any other order), read by the order page's loader. */
export const resolveOptionsOf = async (d: BackofficeDeps, o: PayinOrderRow) => (o.status === "frozen_abnormal" ? await resolutionOptions(d.ctx, o) : null);

function RefundTable(p: { display: DisplayCtx; rows: RefundRow[] }): JSX.Element {
  return (
    <DataTable
      label="Refunds"
      head={["Refund", "Amount", "To", "Status", "Payout", "Created"]}
      rows={p.rows}
      row={(r) => (
        <tr>
          <td class="mono" safe>
            {r.refundNo}
          </td>
          <td safe>{`${fromBaseUnits(BigInt(r.amount), r.decimals, 6)} ${r.token}`}</td>
          <td class="wrap">
            {r.toAddress ? (
              <ChainRef ctx={p.display} chain={r.chain} kind="address" value={r.toAddress} />
            ) : r.refundUrl ? (
              <span>
                {trm("waiting for the payer:")} <a href={r.refundUrl} safe>{r.refundUrl}</a>
              </span>
            ) : (
              "—"
            )}
          </td>
          <td>
            <StatusBadge status={r.status} />
            {r.status === "failed" ? (
              <p class="muted" safe>
                {trf("Not sent: {reason}. Its amount can be refunded again.", { reason: r.lastError ?? tr("see its payout") })}
              </p>
            ) : r.lastError ? (
              <p class="muted" safe>
                {trf("Last error: {error}", { error: r.lastError })}
              </p>
            ) : (
              <></>
            )}
          </td>
          <td>{r.payoutOrderNo ? <a href={`/backoffice/orders/${r.payoutOrderNo}`} safe>{r.payoutOrderNo}</a> : "—"}</td>
          <td>
            <Time ms={r.createdAt} />
          </td>
        </tr>
      )}
    />
  );
}

/**
 * The order page's refund part: the form while something is refundable (prefilled with all of it:
 * after a failed refund, its amount again, also on an order cancelled by "Refund all"), and the
 * order's refunds, a failed one with why its payout failed.
 */
export function OrderRefunds(p: { refunds: RefundsData; display: DisplayCtx; v: Viewer; o: PayinOrderRow; back: string }): JSX.Element {
  const { v, o } = p;
  const { rows, left } = p.refunds;
  if (!rows.length && left === 0n) return <></>;
  return (
    <>
      <h2>{trm("Refunds")}</h2>
      {left > 0n ? <RefundForm v={v} action={`${p.back}/refund`} max={fromBaseUnits(left, o.decimals, 0)} token={o.token} decimals={o.decimals} /> : <></>}
      {rows.length ? <RefundTable display={p.display} rows={rows} /> : <></>}
    </>
  );
}

/** A text made in src/payin/resolve.ts, in the page's language. */
const said = (t: MadeText) => trf(t.template, t.values);

/**
 * A frozen order's one guided choice: why it is held, the refunds already made, what each option
 * produces beside its radio button (a refused one disabled, with why), nothing chosen beforehand,
 * a note, the password; beside "Resolve" the consequence of the choice made (CSS :has, no script).
 */
export function ResolveFrozen(p: { options: Awaited<ReturnType<typeof resolveOptionsOf>>; v: Viewer; o: PayinOrderRow; back: string }): JSX.Element {
  const { v, o } = p;
  const r = p.options;
  if (o.status !== "frozen_abnormal" || !r) return <></>;
  return (
    <section aria-labelledby="resolve-title">
      <h2 id="resolve-title">{trm("Resolve this payment")}</h2>
      <p safe>{trf("On hold because it was {why}.", { why: r.reason ? tr(HOLD_TEXT[r.reason]) : tr("frozen") })}</p>
      {r.refunds ? (
        <p id="resolve-refunds" safe>
          {said(r.refunds)}
        </p>
      ) : (
        <></>
      )}
      {r.waiting ? (
        <p class="muted" safe>
          {tr(r.waiting)}
        </p>
      ) : (
        <form method="post" action={`${p.back}/resolve`} class="resolve">
          <Csrf viewer={v} />
          <fieldset>
            <legend>{trm("What should happen")}</legend>
            {r.options.map((x) => (
              <div class="choice">
                <input type="radio" id={`resolve-${x.choice}`} name="choice" value={x.choice} required disabled={x.refused !== undefined} aria-describedby={`resolve-${x.choice}-outcome`} />
                <label for={`resolve-${x.choice}`} safe>
                  {tr(x.label)}
                </label>
                <p id={`resolve-${x.choice}-outcome`} class="muted" safe>
                  {x.refused ? said(x.refused) : said(x.text)}
                </p>
              </div>
            ))}
          </fieldset>
          <label for="resolve-address">
            {trm("Payer's address")}
            <input id="resolve-address" name="toAddress" maxlength="128" autocomplete="off" spellcheck="false" aria-describedby="resolve-address-help" />
          </label>
          <p id="resolve-address-help" class="muted">
            {trm("For a refund: where it goes. Leave it empty to send the payer a refund link instead.")}
          </p>
          <label for="resolve-note">
            {trm("Note")}
            <input id="resolve-note" name="note" required maxlength="500" aria-describedby="resolve-note-help" />
          </label>
          <p id="resolve-note-help" class="muted">
            {trm("Why you chose this; it is kept in the audit log. You confirm with your password.")}
          </p>
          <div class="resolve-go">
            <button type="submit" aria-describedby="resolve-consequence">
              {trm("Resolve")}
            </button>
            <p id="resolve-consequence" class="consequence">
              <span class="none">{trm("Nothing is chosen yet: choose what should happen above.")}</span>
              {r.options
                .filter((x) => !x.refused)
                .map((x) => (
                  <span data-for={x.choice} safe>
                    {`${tr(x.label)}: ${said(x.text)}`}
                  </span>
                ))}
            </p>
          </div>
        </form>
      )}
    </section>
  );
}

/** The deposit page's refund part (replaces "Mark refunded"). */
export function DepositRefunds(p: { refunds: RefundsData; display: DisplayCtx; v: Viewer; t: TransferRow; decimals: number }): JSX.Element {
  const { v, t } = p;
  const { rows, left } = p.refunds;
  if (!rows.length && left === 0n) return <></>;
  return (
    <>
      <h2>{trm("Refund")}</h2>
      {left > 0n ? <RefundForm v={v} action={`/backoffice/deposits/${t.id}/refund`} max={fromBaseUnits(left, p.decimals, 0)} token={t.token} decimals={p.decimals} /> : <></>}
      {rows.length ? <RefundTable display={p.display} rows={rows} /> : <></>}
    </>
  );
}
