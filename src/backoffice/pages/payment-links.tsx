/** @jsxImportSource @kitajs/html */
// "Payment links" (DESIGN 18): a merchant user makes an invoice without writing API code (amount,
// currency, description, networks) and gets its link and QR code; the list shows every invoice
// with its status. An operator sees every merchant's.
import { Elysia } from "elysia";
import { action, actorOf, type BackofficeDeps, page, redirect, str, list as listOf, type Viewer } from "../guard";
import { NotFound } from "../errors";
import { Csrf, DataTable, Notice, OrderLink, StatusBadge, Time } from "../views/common";
import { Layout } from "../views/layout";
import { tr, trf, trm } from "../i18n";
import { AppError } from "../../errors";
import { createInvoice, enabledPayments } from "../../invoices/service";
import { invoiceCallbacks, listInvoices, type InvoiceListRow } from "../../invoices/list";
import { eventsOf } from "../../orders/events";
import { CallbackDeliveries, maxDeliveries } from "../views/callback-deliveries";
import { priceCurrencies } from "../../rates/currencies";
import { currentKey } from "../../merchants/service";
import { newTimedToken } from "../../lib/ids";
import { networkButtonName } from "../../checkout/i18n";
import { qrPath } from "../../checkout/qr";
import type { ChainCode, TokenSymbol } from "../../chains/types";

const PATH = "/backoffice/payment-links";
const PAGE = 50;
/** A link is usually sent by chat or e-mail: it stays payable a day unless told otherwise. */
const DEFAULT_VALID_MINUTES = 1440;

interface Draft {
  amount: string;
  currency: string;
  description: string;
  networks: string[];
  minutes: string;
}

const label = (value: string) => {
  const [c, t] = value.split(":") as [ChainCode, TokenSymbol];
  return networkButtonName(c, t);
};

/** An AppError as one sentence for the form: the message and each named field's reason. */
function problemText(e: AppError): string {
  const fields = (e.data as { fields?: Record<string, string> } | null)?.fields;
  const names: Record<string, string> = { priceAmount: "Amount", priceCurrency: "Currency", description: "Description", payments: "Networks", expireMinutes: "Valid for" };
  if (fields) return Object.entries(fields).map(([k, why]) => `${names[k] ? tr(names[k]) : k}: ${tr(why)}`).join(tr("; "));
  return e.message;
}

function NewLinkForm(p: { data: LinksData; v: Viewer; draft: Draft }): JSX.Element {
  const { currencies, offered } = p.data;
  return (
    <form method="post" action={PATH} class="stack" aria-labelledby="new-link">
      <h2 id="new-link" safe>
        {tr("New payment link")}
      </h2>
      <Csrf viewer={p.v} />
      <label for="pl-amount" safe>{tr("Amount")}</label>
      <input id="pl-amount" name="amount" inputmode="decimal" required value={p.draft.amount} placeholder="100.00" />
      <label for="pl-currency" safe>{tr("Currency")}</label>
      <select id="pl-currency" name="currency">
        {currencies.map((c) => (
          <option value={c} selected={c === p.draft.currency} safe>
            {c}
          </option>
        ))}
      </select>
      <label for="pl-description" safe>{tr("Description")}</label>
      <input id="pl-description" name="description" maxlength="256" value={p.draft.description} placeholder={tr("What the payer is paying for")} />
      <fieldset class="checks">
        <legend safe>{tr("Networks")}</legend>
        {offered.map((n) => (
          <label class="check">
            <input type="checkbox" name="networks" value={n} checked={p.draft.networks.length === 0 || p.draft.networks.includes(n)} /> <span safe>{label(n)}</span>
          </label>
        ))}
      </fieldset>
      <label for="pl-minutes" safe>{tr("Valid for (minutes)")}</label>
      <input id="pl-minutes" name="minutes" inputmode="numeric" value={p.draft.minutes} />
      <button type="submit" safe>{tr("Create payment link")}</button>
    </form>
  );
}

function LinksTable(p: { v: Viewer; rows: InvoiceListRow[] }): JSX.Element {
  const operator = p.v.role === "operator";
  return (
    <DataTable
      label={tr("Payment links")}
      head={[...(operator ? [tr("Merchant")] : []), tr("Invoice"), tr("Price"), tr("Description"), tr("Status"), tr("Paid with"), tr("Created"), tr("Expires")]}
      rows={p.rows}
      empty={tr("No payment links or invoices yet.")}
      row={(r) => (
        <tr>
          {operator ? <td safe>{r.merchantUid}</td> : null}
          <td class="mono">
            <a href={`${PATH}/${encodeURIComponent(r.invoiceNo)}`} safe>
              {r.invoiceNo}
            </a>
          </td>
          <td safe>{`${r.priceAmount} ${r.priceCurrency}`}</td>
          <td class="wrap" safe>
            {r.description ?? ""}
          </td>
          <td>
            <StatusBadge status={r.status} />
          </td>
          <td safe>{r.network ? `${r.amount} ${r.network.split(" ")[1]} (${r.network.split(" ")[0]})` : "—"}</td>
          <td>
            <Time ms={r.createdAt} />
          </td>
          <td>
            <Time ms={r.expireAt} />
          </td>
        </tr>
      )}
    />
  );
}

/** What the payment links page shows, read by its route handlers (the page runs no query). */
async function loadLinks(d: BackofficeDeps, v: Viewer, pageNo: number) {
  return {
    rows: await listInvoices(d.ctx.db, { merchantId: v.merchantId ?? undefined, limit: PAGE + 1, offset: pageNo * PAGE }),
    currencies: priceCurrencies(d.ctx.config),
    offered: enabledPayments(d.ctx),
  };
}
type LinksData = Awaited<ReturnType<typeof loadLinks>>;

function LinksPage(p: { data: LinksData; v: Viewer; page: number; draft?: Draft; error?: string }): string {
  const { data, v } = p;
  const { rows } = data;
  const draft = p.draft ?? { amount: "", currency: data.currencies[0]!, description: "", networks: [], minutes: String(DEFAULT_VALID_MINUTES) };
  return (
    <Layout title="Payment links" viewer={v} path={PATH}>
      <Notice kind="error" text={p.error && tr(p.error)} />
      {v.role === "merchant" ? (
        <NewLinkForm data={data} v={v} draft={draft} />
      ) : (
        <p class="muted" safe>
          {tr("Invoices and payment links of every merchant. Merchants create payment links from their own back office.")}
        </p>
      )}
      <h2 safe>{tr("Invoices and payment links")}</h2>
      <LinksTable v={v} rows={rows.slice(0, PAGE)} />
      <nav class="pager" aria-label={tr("Pages")}>
        {p.page > 0 ? (
          <a href={`${PATH}?page=${p.page - 1}`} safe>
            {tr("Previous")}
          </a>
        ) : null}
        {rows.length > PAGE ? (
          <a href={`${PATH}?page=${p.page + 1}`} safe>
            {tr("Next")}
          </a>
        ) : null}
      </nav>
    </Layout>
  ) as string;
}

/** A payment link with its timeline and callbacks, read by its route handler (the page runs no query). */
async function loadLink(d: BackofficeDeps, v: Viewer, invoiceNo: string) {
  const r = (await listInvoices(d.ctx.db, { merchantId: v.merchantId ?? undefined, invoiceNo, limit: 1 }))[0];
  if (!r) throw new NotFound(tr("There is no such payment link."));
  return { r, events: await eventsOf(d.ctx.db, r.invoiceNo), callbacks: await invoiceCallbacks(d.ctx.db, r.invoiceNo), now: d.users.now(), maxDeliveries: maxDeliveries(d) };
}

function LinkPage(p: { data: Awaited<ReturnType<typeof loadLink>>; v: Viewer; created: boolean }): string {
  const { v, data } = p;
  const { r } = data;
  return (
    <Layout title={trf("Payment link {invoiceNo}", { invoiceNo: r.invoiceNo })} viewer={v} path={PATH}>
      <Notice text={p.created ? tr("Payment link created. Send the link or show the QR code to the payer.") : undefined} />
      <h2 safe>{tr("Link")}</h2>
      <p class="secret" data-testid="payment-link" safe>
        {r.invoiceUrl}
      </p>
      <p>
        <a href={r.invoiceUrl} target="_blank" rel="noopener noreferrer" safe>
          {tr("Open the payment page")}
        </a>
      </p>
      <div class="qr-box" data-testid="payment-link-qr">
        <QrCode text={r.invoiceUrl} label={trf("QR code of the payment link {invoiceNo}", { invoiceNo: r.invoiceNo })} />
      </div>
      <dl class="kv">
        {v.role === "operator" ? (
          <>
            <dt safe>{tr("Merchant")}</dt>
            <dd safe>{r.merchantUid}</dd>
          </>
        ) : null}
        <dt safe>{tr("Price")}</dt>
        <dd safe>{`${r.priceAmount} ${r.priceCurrency}`}</dd>
        <dt safe>{tr("Description")}</dt>
        <dd safe>{r.description ?? "—"}</dd>
        <dt safe>{tr("Status")}</dt>
        <dd>
          <StatusBadge status={r.status} />
        </dd>
        <dt safe>{tr("Merchant order no.")}</dt>
        <dd class="mono" safe>
          {r.merchantOrderNo}
        </dd>
        <dt safe>{tr("Created")}</dt>
        <dd>
          <Time ms={r.createdAt} />
        </dd>
        <dt safe>{tr("Expires")}</dt>
        <dd>
          <Time ms={r.expireAt} />
        </dd>
        <dt safe>{tr("Pay-in")}</dt>
        <dd>{r.orderNo ? <OrderLink orderNo={r.orderNo} /> : trm("The payer has not chosen a network yet.")}</dd>
        <dt safe>{tr("Paid")}</dt>
        <dd safe>{r.paidAmount ? `${r.paidAmount} ${r.network ?? ""}` : "—"}</dd>
      </dl>
      <h2 safe>{tr("Timeline")}</h2>
      <ol class="timeline" aria-label={tr("Status timeline")}>
        {data.events.map((e) => (
          <li>
            <Time ms={e.at} /> <strong safe>{`${e.fromStatus ?? "new"} → ${e.toStatus}`}</strong> <span safe>{`— ${causeOfInvoice(e.event)}`}</span>
          </li>
        ))}
      </ol>
      <h2 safe>{tr("Callbacks")}</h2>
      <CallbackDeliveries viewer={v} now={data.now} maxDeliveries={data.maxDeliveries} callbacks={data.callbacks} back={`${PATH}/${r.invoiceNo}`} empty={tr("No callback for this invoice.")} />
      <p>
        <a href={PATH} safe>
          {tr("All payment links")}
        </a>
      </p>
    </Layout>
  ) as string;
}

/** The link as a QR code (the checkout's encoder), drawn as JSX so every value is escaped. */
function QrCode(p: { text: string; label: string }): JSX.Element {
  const { size, d } = qrPath(p.text);
  return (
    <svg xmlns="http://www.w3.org/2000/svg" viewBox={`0 0 ${size} ${size}`} role="img" aria-label={p.label} shape-rendering="crispEdges">
      <rect width={String(size)} height={String(size)} fill="#fff" />
      <path fill="#0f172a" d={d} />
    </svg>
  );
}

/** Why an invoice's status changed, in words. */
function causeOfInvoice(raw: string): string {
  const e = JSON.parse(raw) as { type: string; source?: string; orderNo?: string; payinStatus?: string };
  if (e.type === "created") return tr(e.source === "backoffice" ? "payment link created in the back office" : "invoice created through the API");
  if (e.type === "expire") return tr("expired before the payer chose a network");
  if (e.type === "payin") return trf("its pay-in {orderNo} is {status}", { orderNo: e.orderNo ?? "", status: e.payinStatus ?? "" });
  return e.type;
}

export function paymentLinkRoutes(d: BackofficeDeps) {
  return new Elysia({ name: "backoffice-payment-links" })
    .get(PATH, page(d, {}, async (v, { query }) => {
      const pageNo = Math.max(0, Number.parseInt(query.page ?? "0", 10) || 0);
      return LinksPage({ data: await loadLinks(d, v, pageNo), v, page: pageNo });
    }))
    .get(`${PATH}/:invoiceNo`, page(d, {}, async (v, { params, query }) => LinkPage({ data: await loadLink(d, v, params.invoiceNo!), v, created: query.created === "1" })))
    .post(
      PATH,
      action(d, { role: "merchant" }, async (v, { body }) => {
        const draft: Draft = { amount: str(body.amount).trim(), currency: str(body.currency), description: str(body.description).trim(), networks: listOf(body.networks), minutes: str(body.minutes).trim() };
        const key = v.merchantId === null ? undefined : await currentKey(d.ctx.db, v.merchantId);
        if (!key || v.merchantId === null) throw new NotFound();
        const minutes = /^\d{1,5}$/.test(draft.minutes) ? Number(draft.minutes) : Number.NaN;
        try {
          if (!draft.networks.length) throw new AppError(10001, { fields: { payments: "choose at least one network" } });
          if (!/^(0|[1-9]\d*)(\.\d{1,6})?$/.test(draft.amount)) throw new AppError(10001, { fields: { priceAmount: "must be a number such as 100 or 99.50" } });
          if (!(minutes >= 5 && minutes <= 1440)) throw new AppError(10001, { fields: { expireMinutes: "must be a whole number of minutes from 5 to 1440" } });
          const inv = await createInvoice(
            d.ctx,
            v.merchantId,
            key.id,
            {
              merchantOrderNo: `link-${newTimedToken(d.ctx.clock.now()).slice(0, 24)}`,
              priceAmount: draft.amount,
              priceCurrency: draft.currency,
              ...(draft.description ? { description: draft.description } : {}),
              payments: draft.networks,
              expireMinutes: minutes,
            },
            { source: "backoffice", actor: actorOf(v) },
          );
          d.kick();
          return redirect(`${PATH}/${encodeURIComponent(inv.invoiceNo)}?created=1`);
        } catch (e) {
          if (e instanceof AppError) return LinksPage({ data: await loadLinks(d, v, 0), v, page: 0, draft, error: problemText(e) });
          throw e;
        }
      }),
    );
}
