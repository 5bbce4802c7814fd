/** @jsxImportSource @kitajs/html */
// Callbacks (both roles, scoped; issue 30): every event with its state in words (queued,
// retrying at T, sending, delivered, gave up, held) and why it waits, its target, attempts and
// last error in plain words; filters (state, merchant, business type, order, dates); newest
// first by keyset, counted up to 1,000; bulk "Resend" of what gave up.
import { Elysia } from "elysia";
import { recordAudit } from "../../audit/log";
import { CallbackBusy, CallbackNotFound, resendCallback } from "../../callbacks/resend";
import { writeTx } from "../../db/client";
import { listMerchants } from "../../merchants/service";
import { action, actorOf, type BackofficeDeps, list, page, redirect, type Viewer } from "../guard";
import {
  BUSINESS_TYPES,
  CALLBACK_STATES,
  type CallbackFilter,
  type CallbackListRow,
  countCallbackEvents,
  listCallbackEvents,
  parseCallbackFilter,
  STATE_LABELS,
} from "../queries/callbacks";
import { filterQuery } from "../queries/filters";
import { COUNT_CAP, countLabel } from "../queries/keyset";
import { Csrf, DateRangeAndFilter, FilterSelect, Notice, OrderLink, StatusBadge, TableWrap, Time } from "../views/common";
import { EventStateBadge, eventState, eventTarget, maxDeliveries, plainErrorText, TargetText } from "../views/callback-deliveries";
import { Layout } from "../views/layout";
import { tr, trf, trm } from "../i18n";

const PATH = "/backoffice/callbacks";
/** Events resent by one "Resend every one that gave up" (the rest on the next press). */
const BULK_MAX = 500;

function FilterForm(p: { merchants: CallbacksData["merchants"]; v: Viewer; f: CallbackFilter }): JSX.Element {
  const r = p.f.raw;
  return (
    <form method="get" action={PATH} class="filters">
      {p.v.role === "operator" ? (
        <FilterSelect id="merchant" label={tr("Merchant")} value={r.merchant} options={p.merchants.map((m) => [m.uid, `${m.uid} · ${m.name}`] as const)} />
      ) : (
        <></>
      )}
      <FilterSelect id="state" label={tr("State")} value={r.state} options={CALLBACK_STATES.map((s) => [s, tr(STATE_LABELS[s])] as const)} />
      <FilterSelect id="type" label={tr("Business type")} value={r.type} options={BUSINESS_TYPES.map((t) => [t, tr(t)] as const)} />
      <label for="order">
        {trm("Order")}
        <input id="order" name="order" value={r.order ?? ""} placeholder={tr("orderNo")} maxlength="40" />
      </label>
      <DateRangeAndFilter raw={r} />
    </form>
  );
}

function Row(p: { max: number; c: CallbackListRow; now: number }): JSX.Element {
  const { c } = p;
  const s = eventState({ ...c, lastStatus: c.lastAttempt?.httpStatus ?? null }, p.now, p.max);
  const error = c.state === "delivered" ? null : plainErrorText(c.lastError, c.lastAttempt?.httpStatus ?? null);
  return (
    <tr data-event={c.eventId}>
      <td>
        {c.state === "failed" ? (
          <label class="check">
            <input type="checkbox" name="id" value={c.eventId} aria-label={trf("Select callback {eventId} of {orderNo}", { eventId: c.eventId, orderNo: c.orderNo })} />
          </label>
        ) : (
          <></>
        )}
      </td>
      <td data-label={tr("Event")}>
        <OrderLink orderNo={c.orderNo} /> <StatusBadge status={c.status} />
        <br />
        <span class="muted" safe>{`${c.kind} · ${c.merchantUid} · `}</span>
        <Time ms={c.createdAt} />
      </td>
      <td class="wrap" data-label={tr("State")}>
        <EventStateBadge s={s} /> <span safe>{tr(s.words)}</span>
      </td>
      <td class="wrap" data-label={tr("Target")}>
        <TargetText t={eventTarget({ state: c.state, url: c.url, attemptUrl: c.lastAttempt?.url ?? null, defaultUrl: c.defaultUrl })} />
      </td>
      <td data-label={tr("Attempts")} safe>
        {String(c.attempts)}
      </td>
      <td class="wrap" data-label={tr("Last error")} safe>
        {error ?? ""}
      </td>
    </tr>
  );
}

/** What the callbacks page shows for a query, read by its route handler (the page runs no query). */
async function loadCallbacks(d: BackofficeDeps, v: Viewer, query: Record<string, string | undefined>) {
  const f = parseCallbackFilter(query);
  const scope = { merchantId: v.merchantId };
  const before = query.before && /^\d{1,15}$/.test(query.before) ? Number(query.before) : undefined;
  return {
    f,
    before,
    pg: await listCallbackEvents(d.ctx.db, scope, f, { before }),
    total: await countCallbackEvents(d.ctx.db, scope, f),
    merchants: v.role === "operator" ? await listMerchants(d.ctx.db) : [],
    now: d.users.now(),
    max: maxDeliveries(d),
  };
}
type CallbacksData = Awaited<ReturnType<typeof loadCallbacks>>;

function CallbacksPage(p: { data: CallbacksData; v: Viewer; notice?: string }): string {
  const { v } = p;
  const { f, before, pg, total, now } = p.data;
  const failedShown = pg.rows.some((c) => c.state === "failed");
  const label = tr(f.state === "failed" ? "Failed callbacks" : "Callbacks");
  return (
    <Layout title="Callbacks" viewer={v} path={PATH}>
      <Notice text={p.notice && tr(p.notice)} />
      <FilterForm merchants={p.data.merchants} v={v} f={f} />
      <p class="actions">
        <span data-total={total > COUNT_CAP ? `${COUNT_CAP}+` : String(total)} safe>
          {trf("{count} found", { count: countLabel(total) })}
        </span>
        {f.state !== "failed" ? (
          <a href={`${PATH}${filterQuery(f, { state: "failed" })}`} safe>
            {tr("Only those that gave up")}
          </a>
        ) : (
          <></>
        )}
      </p>
      <form method="post" action={`${PATH}/resend`}>
        <Csrf viewer={v} />
        {Object.entries(f.raw).map(([k, val]) => (
          <input type="hidden" name={`f_${k}`} value={val} />
        ))}
        {failedShown ? (
          <p class="actions">
            <label class="inline">
              <input type="checkbox" data-select-all="id" /> {trm("Select all")}
            </label>
            <button type="submit" safe>{tr("Resend selected")}</button>
            <button type="submit" name="all" value="1" class="secondary" safe>
              {tr("Resend every one that gave up")}
            </button>
          </p>
        ) : (
          <></>
        )}
        <TableWrap label={label}>
          <table class="rowcards">
            <thead>
              <tr>
                <th scope="col">
                  <span class="sr" safe>
                    {tr("Select")}
                  </span>
                </th>
                <th scope="col" safe>{tr("Event")}</th>
                <th scope="col" safe>{tr("State")}</th>
                <th scope="col" safe>{tr("Target")}</th>
                <th scope="col" safe>{tr("Attempts")}</th>
                <th scope="col" safe>{tr("Last error")}</th>
              </tr>
            </thead>
            <tbody>
              {pg.rows.length ? (
                pg.rows.map((c) => <Row max={p.data.max} c={c} now={now} />)
              ) : (
                <tr>
                  <td colspan="6" safe>
                    {tr("No callback matches.")}
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </TableWrap>
      </form>
      <nav class="pager" aria-label={tr("Pages")}>
        {before ? (
          <a href={`${PATH}${filterQuery(f)}`} safe>
            {tr("Newest")}
          </a>
        ) : (
          <></>
        )}
        {pg.nextBefore ? (
          <a href={`${PATH}${filterQuery(f, { before: String(pg.nextBefore) })}`} safe>
            {tr("Older")}
          </a>
        ) : (
          <></>
        )}
      </nav>
    </Layout>
  ) as string;
}

export function callbacksRoutes(d: BackofficeDeps) {
  return new Elysia({ name: "backoffice-callbacks" })
    .get(PATH, page(d, {}, async (v, { query }) => CallbacksPage({ data: await loadCallbacks(d, v, query), v, notice: query.done ? trf("{n} callback(s) queued again.", { n: Number(query.done) || 0 }) : undefined })))
    .post(
      `${PATH}/resend`,
      action(d, {}, async (v, { body }) => {
        // The filter the page showed, carried as f_* fields: back to it, and (all) what it matches.
        const raw: Record<string, string> = {};
        for (const [k, val] of Object.entries(body as Record<string, unknown>)) if (k.startsWith("f_") && typeof val === "string") raw[k.slice(2)] = val;
        const f = parseCallbackFilter(raw);
        const ids =
          (body as Record<string, unknown>).all === "1"
            ? (await listCallbackEvents(d.ctx.db, { merchantId: v.merchantId }, { ...f, state: "failed" }, { limit: BULK_MAX })).rows.map((c) => c.eventId)
            : list(body.id).slice(0, BULK_MAX);
        let n = 0;
        for (const id of ids) {
          try {
            await writeTx(d.ctx.db, async (tx) => {
              const c = await resendCallback(tx, id, d.users.now(), { merchantId: v.merchantId ?? undefined });
              await recordAudit(tx, { ...actorOf(v), action: "callback.resend", target: `${c.kind}:${c.orderNo}`, after: { eventId: c.id }, at: d.users.now() });
            });
            n++;
          } catch (e) {
            if (!(e instanceof CallbackNotFound || e instanceof CallbackBusy)) throw e;
          }
        }
        d.kick();
        return redirect(`${PATH}${filterQuery(f, { done: String(n) })}`);
      }),
    );
}
