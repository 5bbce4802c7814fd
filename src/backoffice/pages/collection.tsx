/** @jsxImportSource @kitajs/html */
// Collection (DESIGN 13), merchant users: destination, minimum and optional
// schedule per chain and token; "Collect now" previews the legs and gas;
// "Confirm collection" (with the password) runs them as payouts; history.
import { CostTotals } from "../views/costs";
import { costTotals } from "../queries/costs";
import { Elysia } from "elysia";
import { action, actorOf, type BackofficeDeps, page, redirect, str, type Viewer } from "../guard";
import { NotFound } from "../errors";
import type { DisplayCtx } from "../format";
import { Csrf, DataTable, Notice, OrderLink, StatusBadge, TableWrap, Time } from "../views/common";
import { Layout } from "../views/layout";
import { locale, tr, trf, trm } from "../i18n";
import { errorText } from "../../i18n/catalog";
import {
  CollectionError,
  type CollectionRun,
  collectionSettingsOf,
  confirmCollection,
  getRun,
  listRuns,
  previewCollection,
  runGas,
  runLegs,
  scheduleMaySend,
  setCollectionSetting,
} from "../../treasury/collection";
import { collectionProgressOf } from "../../treasury/progress";
import { ReauthField } from "./reauth";
import { progressWords, units } from "./treasury-format";

const PATH = "/backoffice/collection";

function mine(v: Viewer): number {
  if (v.merchantId === null) throw new NotFound();
  return v.merchantId;
}

function pairs(d: BackofficeDeps): Array<[string, string]> {
  return [...d.ctx.chains.values()].flatMap((a) => a.tokens.map((t) => [a.chain, t.symbol] as [string, string]));
}

/** The merchant's destinations and runs, read by the page's route handlers (the page runs no query). */
async function loadCollection(d: BackofficeDeps, v: Viewer) {
  return { settings: await collectionSettingsOf(d.ctx.db, mine(v)), runs: await listRuns(d.ctx.db, mine(v)), pairs: pairs(d) };
}

function CollectionPage(p: { data: Awaited<ReturnType<typeof loadCollection>>; display: DisplayCtx; v: Viewer; notice?: string; error?: string }): string {
  const { v } = p;
  const ctx = p.display;
  const { settings, runs } = p.data;
  return (
    <Layout title={tr("Collection")} viewer={v} path={PATH}>
      <Notice text={p.notice} />
      <Notice kind="error" text={p.error} />
      <p class="muted">
        {trm("Collection sweeps your deposit addresses into one destination (e.g. a cold wallet). Each address holding at least the minimum becomes one payout of its whole available balance; the gateway's gas wallet pays the network fees.")}
      </p>
      <h2>{trm("Destinations")}</h2>
      <DataTable
        label="Collection destinations"
        head={["Chain", "Token", "Destination", "Minimum", "Schedule (UTC)"]}
        rows={settings}
        empty="No destination set yet."
        row={(s) => (
          <tr>
            <td safe>{s.chain}</td>
            <td safe>{s.token}</td>
            <td class="mono" safe>
              {s.destination}
            </td>
            <td safe>{s.minimum}</td>
            <td safe>{s.schedule ? (scheduleMaySend(s) ? s.schedule : `${s.schedule}${tr(" (paused: save the destination again with your password)")}`) : tr("manual only")}</td>
          </tr>
        )}
      />
      {settings.length > 0 ? (
        <form method="post" action={`${PATH}/preview`} class="actions">
          <Csrf viewer={v} />
          <label for="collect-pair">{trm("Chain and token")}</label>
          <select id="collect-pair" name="pair">
            {settings.map((s) => (
              <option value={`${s.chain}:${s.token}`} safe>{`${s.chain} ${s.token}`}</option>
            ))}
          </select>
          <button type="submit">{trm("Collect now")}</button>
        </form>
      ) : null}
      <h2>{trm("Set a destination")}</h2>
      <form method="post" action={`${PATH}/settings`} class="stack">
        <Csrf viewer={v} />
        <label for="pair">{trm("Chain and token")}</label>
        <select id="pair" name="pair">
          {p.data.pairs.map(([c, t]) => (
            <option value={`${c}:${t}`} safe>{`${c} ${t}`}</option>
          ))}
        </select>
        <label for="destination">{trm("Destination address")}</label>
        <input id="destination" name="destination" required autocomplete="off" />
        <label for="minimum">{trm("Minimum")}</label>
        <input id="minimum" name="minimum" required inputmode="decimal" value="10" />
        <label for="schedule">{trm("Schedule (cron, UTC; empty: manual only)")}</label>
        <input id="schedule" name="schedule" placeholder="0 3 * * *" autocomplete="off" />
        <button type="submit">{trm("Save destination")}</button>
      </form>
      <h2>{trm("Runs")}</h2>
      <DataTable
        label="Collection runs"
        head={["Started", "Chain", "Token", "Legs", "Total", "Trigger", "Status"]}
        rows={runs}
        empty="No collection run yet."
        row={(r) => (
          <tr>
            <td>
              <a href={`${PATH}/runs/${r.id}`}>
                <Time ms={r.createdAt} />
              </a>
            </td>
            <td safe>{r.chain}</td>
            <td safe>{r.token}</td>
            <td>{r.legCount}</td>
            <td safe>{units(ctx, r.chain, r.token, r.total)}</td>
            <td safe>{tr(r.trigger)}</td>
            <td>
              <StatusBadge status={r.status} />
            </td>
          </tr>
        )}
      />
    </Layout>
  ) as string;
}

/** What a run's page shows, read by its route handlers (the page runs no query). */
async function loadRun(d: BackofficeDeps, r: CollectionRun) {
  const legs = await runLegs(d.ctx.db, r.id);
  const costs = await costTotals(d.ctx.db, legs.flatMap(({ order }) => (order ? [order.id] : [])));
  return { legs, pr: await collectionProgressOf(d.ctx.db, r.id), costs };
}

function RunPage(p: { display: DisplayCtx; v: Viewer; r: CollectionRun; data: Awaited<ReturnType<typeof loadRun>>; error?: string }): string {
  const { v, r } = p;
  const ctx = p.display;
  const { legs, pr, costs } = p.data;
  const gas = runGas(r);
  const finished = pr.finished;
  return (
    <Layout title={trf("Collection {chain} {token}", { chain: r.chain, token: r.token })} viewer={v} path={PATH}>
      <Notice kind="error" text={p.error} />
      {r.status === "running" || (r.status === "done" && !finished) ? <meta http-equiv="refresh" content="3" /> : null}
      <dl class="kv">
        <dt>{trm("Destination")}</dt>
        <dd class="mono" safe>
          {r.destination}
        </dd>
        <dt>{trm("Minimum")}</dt>
        <dd safe>{r.minimum}</dd>
        <dt>{trm("Legs")}</dt>
        <dd data-testid="leg-count">{r.legCount}</dd>
        <dt>{trm("Total")}</dt>
        <dd data-testid="collection-total" safe>
          {units(ctx, r.chain, r.token, r.total)}
        </dd>
        <dt>{trm("Estimated gas")}</dt>
        <dd safe>{gas.display + (gas.note ? ` (${tr(gas.note)})` : "")}</dd>
        <dt>{trm("Status")}</dt>
        <dd>
          <StatusBadge status={pr.phase} />
        </dd>
      </dl>
      {r.status !== "preview" ? (
        <p role="status" data-testid="collection-progress" safe>
          {progressWords(pr)}
        </p>
      ) : null}
      {r.status === "preview" && r.legCount > 0 ? (
        <form method="post" action={`${PATH}/runs/${r.id}/confirm`} class="stack">
          <Csrf viewer={v} />
          <ReauthField viewer={v} />
          <button type="submit">{trm("Confirm collection")}</button>
        </form>
      ) : null}
      {r.status === "preview" && r.legCount === 0 ? <p>{trm("No address holds the minimum: nothing to collect.")}</p> : null}
      {r.status !== "preview" ? (
        <>
          <h2>{trm("Network cost")}</h2>
          <CostTotals totals={costs} />
        </>
      ) : null}
      <TableWrap label="Legs">
        <table>
          <thead>
            <tr>
              <th scope="col">{trm("Leg")}</th>
              <th scope="col">{trm("From")}</th>
              <th scope="col">{trm("Amount")}</th>
              <th scope="col">{trm("Order")}</th>
              <th scope="col">{trm("Status")}</th>
            </tr>
          </thead>
          <tbody>
            {legs.map(({ leg, order }) => (
              <tr>
                <td>{leg.legNo}</td>
                <td class="mono" safe>
                  {leg.fromAddress}
                </td>
                <td safe>{units(ctx, r.chain, r.token, leg.amount)}</td>
                <td>
                  {order ? (
                    <OrderLink orderNo={order.orderNo} />
                  ) : (
                    "—"
                  )}
                </td>
                <td>
                  <StatusBadge status={order?.status ?? leg.state} />
                  {leg.errorMessage ? <span safe>{` ${leg.errorMessage}`}</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <p>
        <a href={PATH}>{trm("Back to collection")}</a>
      </p>
    </Layout>
  ) as string;
}

async function runOr404(d: BackofficeDeps, v: Viewer, id: string): Promise<CollectionRun> {
  try {
    return await getRun(d.ctx.db, mine(v), id);
  } catch (e) {
    if (e instanceof CollectionError) throw new NotFound("There is no such collection run.");
    throw e;
  }
}

const splitPair = (s: string) => {
  const [chain = "", token = ""] = s.split(":");
  return { chain, token };
};

export function collectionRoutes(d: BackofficeDeps) {
  return new Elysia({ name: "backoffice-collection" })
    .get(PATH, page(d, { role: "merchant" }, async (v, { query }) => CollectionPage({ data: await loadCollection(d, v), display: d.ctx, v, notice: query.done === "saved" ? "Destination saved." : undefined })))
    .post(
      `${PATH}/settings`,
      action(d, { role: "merchant", reauth: "always" }, async (v, { body }) => {
        const { chain, token } = splitPair(str(body.pair));
        try {
          await setCollectionSetting(d.ctx, mine(v), { chainCode: chain, tokenSymbol: token, destination: str(body.destination), minimum: str(body.minimum), schedule: str(body.schedule), confirmedWithPassword: true }, actorOf(v));
        } catch (e) {
          if (e instanceof CollectionError) return CollectionPage({ data: await loadCollection(d, v), display: d.ctx, v, error: errorText(locale(), e) });
          throw e;
        }
        return redirect(`${PATH}?done=saved`);
      }),
    )
    .post(
      `${PATH}/preview`,
      action(d, { role: "merchant" }, async (v, { body }) => {
        const { chain, token } = splitPair(str(body.pair));
        try {
          const r = await previewCollection(d.ctx, mine(v), chain, token, actorOf(v));
          return redirect(`${PATH}/runs/${r.id}`);
        } catch (e) {
          if (e instanceof CollectionError) return CollectionPage({ data: await loadCollection(d, v), display: d.ctx, v, error: errorText(locale(), e) });
          throw e;
        }
      }),
    )
    .get(`${PATH}/runs/:id`, page(d, { role: "merchant" }, async (v, { params }) => {
      const r = await runOr404(d, v, params.id!);
      return RunPage({ display: d.ctx, v, r, data: await loadRun(d, r) });
    }))
    .post(
      `${PATH}/runs/:id/confirm`,
      action(d, { role: "merchant", reauth: "always" }, async (v, { params }) => {
        const r = await runOr404(d, v, params.id!);
        await confirmCollection({ db: d.ctx.db, now: () => d.ctx.clock.now() }, mine(v), r.id, actorOf(v));
        return redirect(`${PATH}/runs/${r.id}`);
      }),
    );
}
