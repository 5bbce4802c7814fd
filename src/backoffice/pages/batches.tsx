/** @jsxImportSource @kitajs/html */
// Batch payouts (DESIGN 13), merchant users only: upload a CSV, see the preview
// (errors with the API's codes, totals, estimated gas), confirm with the
// password, follow the progress, download the results.
import { CostTotals } from "../views/costs";
import { costTotals } from "../queries/costs";
import { Elysia } from "elysia";
import { action, actorOf, type BackofficeDeps, page, redirect, str, type Viewer } from "../guard";
import { NotFound } from "../errors";
import { Csrf, DataTable, Notice, OrderLink, StatusBadge, TableWrap, Time } from "../views/common";
import { Layout } from "../views/layout";
import { locale, tr, trf, trm } from "../i18n";
import { errorText } from "../../i18n/catalog";
import { BatchFileError, MAX_FILE_BYTES, MAX_ROWS } from "../../treasury/batch-csv";
import {
  BatchNotFound,
  type BatchRow,
  batchLines,
  batchProgress,
  batchResultsCsv,
  batchSummary,
  confirmBatch,
  discardBatch,
  getBatch,
  listBatches,
  uploadBatch,
} from "../../treasury/batch";
import { progressCards } from "../../treasury/progress";
import { progressWords } from "./treasury-format";
import { ReauthField } from "./reauth";
import { payoutsByIds } from "../../payout/store";
import type { PayoutOrderRow } from "../../payout/views";

const PATH = "/backoffice/batches";
const SHOWN = 500;

function mine(v: Viewer): number {
  if (v.merchantId === null) throw new NotFound();
  return v.merchantId;
}

function BatchesPage(p: { batches: Awaited<ReturnType<typeof listBatches>>; v: Viewer; error?: string }): string {
  const { batches } = p;
  return (
    <Layout title={tr("Batch payouts")} viewer={p.v} path={PATH}>
      <Notice kind="error" text={p.error} />
      <form method="post" action={PATH} enctype="multipart/form-data" class="stack">
        <Csrf viewer={p.v} />
        <label for="file">{trm("Payouts CSV")}</label>
        <input id="file" name="file" type="file" accept=".csv,text/csv" required aria-describedby="file-help" />
        <p id="file-help" class="muted">
          {trm("UTF-8, header")} <code>chainCode,tokenSymbol,toAddress,amount,merchantOrderNo</code> {trm("and optionally")} <code>fromAddress</code>,{" "}
          <code>deleteSourceAfterSuccess</code>
          {trm("; at most")} <span safe>{MAX_ROWS.toLocaleString("en-US")}</span>{" "}
          {trm("rows. Nothing is paid before you confirm the preview. A merchantOrderNo that already has a payout is never paid again. Callbacks go to your default callback URL.")}
        </p>
        <button type="submit">{trm("Upload")}</button>
      </form>
      <h2>{trm("Uploads")}</h2>
      <DataTable
        label="Uploads"
        head={["Uploaded", "File", "Rows", "Valid", "Errors", "Status"]}
        rows={batches}
        empty="No uploads yet."
        row={(b) => (
          <tr>
            <td>
              <a href={`${PATH}/${b.id}`}>
                <Time ms={b.createdAt} />
              </a>
            </td>
            <td safe>{b.fileName}</td>
            <td>{b.rowCount}</td>
            <td>{b.validCount}</td>
            <td>{b.errorCount}</td>
            <td>
              <StatusBadge status={b.status} />
            </td>
          </tr>
        )}
      />
    </Layout>
  ) as string;
}

function Totals({ b }: { b: BatchRow }): JSX.Element {
  const s = batchSummary(b);
  return (
    <>
      <h2>{trm("Totals per chain and token")}</h2>
      <DataTable
        label="Totals per chain and token"
        head={["Chain", "Token", "Payouts", "Amount"]}
        rows={s.perToken}
        row={(t) => (
          <tr>
            <td safe>{t.chain}</td>
            <td safe>{t.token}</td>
            <td>{t.count}</td>
            <td safe>{t.amount}</td>
          </tr>
        )}
      />
      <h2>{trm("Totals per source address")}</h2>
      <DataTable
        label="Totals per source address"
        head={["Chain", "Token", "Source", "Payouts", "Amount"]}
        rows={s.perSource}
        row={(t) => (
          <tr>
            <td safe>{t.chain}</td>
            <td safe>{t.token}</td>
            <td class="mono" safe>
              {t.fromAddress}
            </td>
            <td>{t.count}</td>
            <td safe>{t.amount}</td>
          </tr>
        )}
      />
      <h2>{trm("Estimated gas")}</h2>
      <DataTable
        label="Estimated gas"
        head={["Chain", "Transfers", "Estimated gas (paid by the gas wallet)"]}
        rows={s.gas}
        row={(g) => (
          <tr>
            <td safe>{g.chain}</td>
            <td>{g.transfers}</td>
            <td safe>{g.display + (g.note ? ` (${tr(g.note)})` : "")}</td>
          </tr>
        )}
      />
    </>
  );
}

function PreviewPage(p: { lines: Awaited<ReturnType<typeof batchLines>>; v: Viewer; b: BatchRow; error?: string }): string {
  const { b, v, lines } = p;
  const errors = lines.filter((l) => l.state === "invalid");
  const existing = lines.filter((l) => l.state === "existing");
  return (
    <Layout title={trf("Batch {file}", { file: b.fileName })} viewer={v} path={PATH}>
      <Notice kind="error" text={p.error} />
      <dl class="kv">
        <dt>{trm("File")}</dt>
        <dd safe>{b.fileName}</dd>
        <dt>{trm("Rows")}</dt>
        <dd>{b.rowCount}</dd>
        <dt>{trm("To pay")}</dt>
        <dd data-testid="valid-count">{b.validCount}</dd>
        <dt>{trm("Errors")}</dt>
        <dd data-testid="error-count">{b.errorCount}</dd>
        <dt>{trm("Already paid or ordered")}</dt>
        <dd data-testid="existing-count">{existing.length}</dd>
      </dl>
      {errors.length > 0 ? (
        <>
          <h2>{trm("Rows with errors (not paid)")}</h2>
          <DataTable
            label="Rows with errors"
            head={["Row", "merchantOrderNo", "Code", "Problem"]}
            rows={errors}
            row={(l) => (
              <tr data-row={String(l.rowNo)}>
                <td>{l.rowNo}</td>
                <td safe>{l.merchantOrderNo ?? ""}</td>
                <td class="code" safe>
                  {String(l.errorCode)}
                </td>
                <td safe>{l.errorMessage ?? ""}</td>
              </tr>
            )}
          />
        </>
      ) : null}
      {existing.length > 0 ? (
        <p class="muted">
          {trm(trf("{n} row(s) have a merchantOrderNo that already has a payout order: they are not paid again.", { n: existing.length }))}
        </p>
      ) : null}
      {b.validCount > 0 ? <Totals b={b} /> : null}
      {b.status === "preview" && b.validCount > 0 ? (
        <form method="post" action={`${PATH}/${b.id}/confirm`} class="stack">
          <Csrf viewer={v} />
          <p>
            {trm(trf("Confirm to create {n} payout order(s). Each is an ordinary payout: signed, broadcast and tracked by the gateway.", { n: b.validCount }))}
          </p>
          <ReauthField viewer={v} />
          <button type="submit">{trm("Confirm payouts")}</button>
        </form>
      ) : null}
      {b.status === "preview" ? (
        <form method="post" action={`${PATH}/${b.id}/discard`} class="actions">
          <Csrf viewer={v} />
          {b.validCount === 0 ? <p>{trm("Nothing in this file needs paying.")}</p> : null}
          <button type="submit" class="secondary">
            {trm("Discard")}
          </button>
        </form>
      ) : null}
      <p>
        <a href={PATH}>{trm("All uploads")}</a>
      </p>
    </Layout>
  ) as string;
}

/** What the progress page shows, read by its route handler (the page runs no query). */
interface ProgressData {
  pr: Awaited<ReturnType<typeof batchProgress>>;
  /** Rows that are (or will be) payouts: their count, and the first SHOWN with their orders. */
  total: number;
  lines: Awaited<ReturnType<typeof batchLines>>;
  orders: Map<number, PayoutOrderRow>;
  /** What every payout of the batch cost on chain so far. */
  costs: Awaited<ReturnType<typeof costTotals>>;
}

async function loadProgress(d: BackofficeDeps, v: Viewer, b: BatchRow): Promise<ProgressData> {
  const pr = await batchProgress(d.ctx.db, mine(v), b.id);
  // The page refreshes itself: it lists the first rows only; the results CSV has every row.
  const all = (await batchLines(d.ctx.db, b.id)).filter((l) => l.state !== "invalid");
  const lines = all.slice(0, SHOWN);
  const ids = lines.map((l) => l.payoutOrderId).filter((x): x is number => x !== null);
  const orders = await payoutsByIds(d.ctx.db, ids);
  const costs = await costTotals(d.ctx.db, all.flatMap((l) => (l.payoutOrderId !== null ? [l.payoutOrderId] : [])));
  return { pr, total: all.length, lines, orders, costs };
}

function ProgressPage(p: { v: Viewer; b: BatchRow; data: ProgressData }): string {
  const { b, v } = p;
  const { pr, lines, orders } = p.data;
  return (
    <Layout title={trf("Batch {file}", { file: b.fileName })} viewer={v} path={PATH}>
      {pr.finished ? null : <meta http-equiv="refresh" content="3" />}
      <p role="status" data-testid="batch-progress" safe>
        {progressWords(pr)}
      </p>
      <div class="cards">
        {progressCards(pr, { itemLabel: "Rows" }).map(([k, n]) => (
          <div class="card">
            <div class="muted" safe>
              {tr(k)}
            </div>
            <div class="n">{n}</div>
          </div>
        ))}
      </div>
      <p>
        <a href={`${PATH}/${b.id}/results.csv`} download="">
          {trm("Download results CSV")}
        </a>
      </p>
      {p.data.total > SHOWN ? <p class="muted" safe>{trf("The first {shown} of {total} payouts; the results CSV lists every row.", { shown: SHOWN, total: p.data.total })}</p> : null}
      <h2>{trm("Network cost")}</h2>
      <CostTotals totals={p.data.costs} />
      <TableWrap label="Payouts of this batch">
        <table>
          <thead>
            <tr>
              <th scope="col">{trm("Row")}</th>
              <th scope="col">merchantOrderNo</th>
              <th scope="col">{trm("Order")}</th>
              <th scope="col">{trm("Status")}</th>
              <th scope="col">{trm("Note")}</th>
            </tr>
          </thead>
          <tbody>
            {lines.map((l) => {
              const o = l.payoutOrderId !== null ? orders.get(l.payoutOrderId) : undefined;
              return (
                <tr>
                  <td>{l.rowNo}</td>
                  <td safe>{l.merchantOrderNo ?? ""}</td>
                  <td>
                    {o ? (
                      <OrderLink orderNo={o.orderNo} />
                    ) : (
                      "—"
                    )}
                  </td>
                  <td>{o ? <StatusBadge status={o.status} /> : <StatusBadge status={l.state === "valid" ? "waiting" : l.state} />}</td>
                  <td safe>{l.state === "existing" ? tr("already ordered before this batch") : (l.errorMessage ?? o?.lastError ?? "")}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </TableWrap>
      <p>
        <a href={PATH}>{trm("All uploads")}</a>
      </p>
    </Layout>
  ) as string;
}

async function batchOr404(d: BackofficeDeps, v: Viewer, id: string): Promise<BatchRow> {
  try {
    return await getBatch(d.ctx.db, mine(v), id);
  } catch (e) {
    if (e instanceof BatchNotFound) throw new NotFound("There is no such batch.");
    throw e;
  }
}

export function batchRoutes(d: BackofficeDeps) {
  const now = () => d.ctx.clock.now();
  return new Elysia({ name: "backoffice-batches" })
    .get(PATH, page(d, { role: "merchant" }, async (v) => BatchesPage({ batches: await listBatches(d.ctx.db, mine(v)), v })))
    .post(
      PATH,
      action(d, { role: "merchant" }, async (v, { body }) => {
        const file = (body as Record<string, unknown>).file;
        if (!(file instanceof Blob) || file.size === 0) return BatchesPage({ batches: await listBatches(d.ctx.db, mine(v)), v, error: "Choose a CSV file to upload." });
        if (file.size > MAX_FILE_BYTES) return BatchesPage({ batches: await listBatches(d.ctx.db, mine(v)), v, error: trf("The file was not accepted: it is larger than {mb} MB.", { mb: MAX_FILE_BYTES >> 20 }) });
        try {
          const b = await uploadBatch(d.ctx, mine(v), { name: (file as File).name ?? "payouts.csv", bytes: new Uint8Array(await file.arrayBuffer()) }, actorOf(v));
          return redirect(`${PATH}/${b.id}`);
        } catch (e) {
          if (e instanceof BatchFileError) return BatchesPage({ batches: await listBatches(d.ctx.db, mine(v)), v, error: trf("The file was not accepted: {why}.", { why: errorText(locale(), e) }) });
          throw e;
        }
      }),
    )
    .get(
      `${PATH}/:id`,
      page(d, { role: "merchant" }, async (v, { params }) => {
        const b = await batchOr404(d, v, params.id!);
        return b.status === "preview" || b.status === "discarded" ? PreviewPage({ lines: await batchLines(d.ctx.db, b.id), v, b }) : ProgressPage({ v, b, data: await loadProgress(d, v, b) });
      }),
    )
    .get(
      `${PATH}/:id/results.csv`,
      page(d, { role: "merchant" }, async (v, { params }) => {
        const b = await batchOr404(d, v, params.id!);
        return new Response((await batchResultsCsv(d.ctx.db, mine(v), b.id)), {
          headers: {
            "content-type": "text/csv; charset=utf-8",
            "content-disposition": `attachment; filename="${b.id}-results.csv"`,
            "cache-control": "no-store",
            "x-content-type-options": "nosniff",
          },
        });
      }),
    )
    .post(
      `${PATH}/:id/confirm`,
      action(d, { role: "merchant", reauth: "always" }, async (v, { params }) => {
        const b = await batchOr404(d, v, params.id!);
        await confirmBatch({ db: d.ctx.db, now }, mine(v), b.id, actorOf(v));
        return redirect(`${PATH}/${b.id}`);
      }),
    )
    .post(
      `${PATH}/:id/discard`,
      action(d, { role: "merchant" }, async (v, { params }) => {
        const b = await batchOr404(d, v, params.id!);
        await discardBatch({ db: d.ctx.db, now }, mine(v), b.id, actorOf(v));
        return redirect(PATH);
      }),
    );
}
