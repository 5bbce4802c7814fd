/** @jsxImportSource @kitajs/html */
// Fees (DESIGN 21): what the gateway's own transactions cost on chain, per chain and day
// (transfer_costs): native coin burned, energy delegated from the stake or burned, bandwidth.
// A merchant sees its payouts' costs (collection legs and refunds included); the operator all.
import { Elysia } from "elysia";
import { type BackofficeDeps, page, type Viewer } from "../guard";
import { Layout } from "../views/layout";
import { tr, trf, trm } from "../i18n";
import { DataTable } from "../views/common";
import { CostCells } from "../views/costs";
import { feesByDay } from "../queries/costs";

const PATH = "/backoffice/fees";
const DAY_MS = 86_400_000;

/** The fee rows of the last `days` UTC days, read by the route handler (the page runs no query). */
async function loadFees(d: BackofficeDeps, v: Viewer, days: number) {
  const sinceDay = new Date(d.ctx.clock.now() - (days - 1) * DAY_MS).toISOString().slice(0, 10);
  return await feesByDay(d.ctx.db, { merchantId: v.role === "merchant" ? v.merchantId! : undefined, sinceDay });
}

function FeesPage(p: { rows: Awaited<ReturnType<typeof loadFees>>; v: Viewer; days: number }): string {
  const { v, rows } = p;
  return (
    <Layout title={tr("Fees")} viewer={v} path={PATH}>
      <p class="muted">{trm("What the gateway's transactions cost on chain, per UTC day: the native coin burned or paid as fee, energy delegated from the stake or burned (TRON), bandwidth bytes.")}</p>
      <form method="get" action={PATH} class="filters">
        <label for="f-days">
          {trm("Days")}
          <input id="f-days" name="days" type="number" min="1" max="366" value={String(p.days)} />
        </label>
        <button type="submit">{trm("Filter")}</button>
      </form>
      <DataTable
        label="Fees per chain and day"
        head={["Day", "Chain", "Transactions", "Burned", "Energy delegated", "Energy burned", "Bandwidth"]}
        rows={rows}
        empty="No transaction cost recorded in these days."
        row={(r) => (
          <tr>
            <td safe>{r.day}</td>
            <td safe>{r.chain}</td>
            <td>{r.txs}</td>
            <CostCells {...r} />
          </tr>
        )}
      />
    </Layout>
  ) as string;
}

export function feeRoutes(d: BackofficeDeps) {
  return new Elysia({ name: "backoffice-fees" }).get(
    PATH,
    page(d, {}, async (v, r) => {
      const n = Number((r.query as Record<string, string | undefined>).days ?? "30");
      const days = Number.isInteger(n) && n >= 1 && n <= 366 ? n : 30;
      return FeesPage({ rows: await loadFees(d, v, days), v, days });
    }),
  );
}
