/** @jsxImportSource @kitajs/html */
// Balances (DESIGN 13): per chain, token and address the ledger's available
// balance beside the last on-chain reading; mismatches listed for the operator.
import { Elysia } from "elysia";
import { type BackofficeDeps, page, type Viewer } from "../guard";
import type { DisplayCtx } from "../format";
import { DataTable, StatusBadge, TableWrap, Time } from "../views/common";
import { Layout } from "../views/layout";
import { tr, trf, trm } from "../i18n";
import { balanceSheet, reconciliationMismatches, sheetTotals } from "../../treasury/balances";
import { units } from "./treasury-format";

const PATH = "/backoffice/balances";

/** The balance sheet of the viewer's scope (and, for an operator, the reconciliation), read by the route handler. */
async function loadBalances(d: BackofficeDeps, v: Viewer, chain?: string, token?: string) {
  const lines = await balanceSheet(d.ctx.db, { merchantId: v.merchantId ?? undefined, chain: chain || undefined, token: token || undefined });
  return { lines, mismatches: v.role === "operator" ? await reconciliationMismatches(d.ctx.db) : [], chains: [...d.ctx.chains.keys()] };
}

function BalancesPage(p: { data: Awaited<ReturnType<typeof loadBalances>>; display: DisplayCtx; v: Viewer; chain?: string; token?: string }): string {
  const { v } = p;
  const ctx = p.display;
  const { lines, mismatches, chains } = p.data;
  const totals = sheetTotals(lines);
  const operator = v.role === "operator";
  return (
    <Layout title={tr("Balances")} viewer={v} path={PATH}>
      <form method="get" action={PATH} class="filters">
        <label for="f-chain">
          {trm("Chain")}
          <select id="f-chain" name="chain">
            <option value="">{trm("All")}</option>
            {chains.map((c) => (
              <option value={c} selected={p.chain === c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        <label for="f-token">
          {trm("Token")}
          <select id="f-token" name="token">
            <option value="">{trm("All")}</option>
            {["USDT", "USDC"].map((t) => (
              <option value={t} selected={p.token === t} safe>
                {t}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">{trm("Filter")}</button>
      </form>
      <h2>{trm("Totals")}</h2>
      <DataTable
        label="Totals"
        head={["Chain", "Token", "Addresses", "Available", "Ledger", "Mismatches"]}
        rows={totals}
        empty="No balances yet."
        row={(t) => (
          <tr>
            <td safe>{t.chain}</td>
            <td safe>{t.token}</td>
            <td>{t.addresses}</td>
            <td safe>{units(ctx, t.chain, t.token, t.available)}</td>
            <td safe>{units(ctx, t.chain, t.token, t.ledger)}</td>
            <td>{t.mismatches}</td>
          </tr>
        )}
      />
      {operator ? (
        <>
          <h2>{trm("Reconciliation mismatches")}</h2>
          <DataTable
            label="Reconciliation mismatches"
            head={["Since", "Merchant", "Chain", "Token", "Address", "Ledger", "On chain", "Difference"]}
            rows={mismatches}
            empty="None: the ledger matches the chain."
            row={(x) => (
              <tr>
                <td>
                  <Time ms={x.since} />
                </td>
                <td safe>{x.merchantUid ?? tr("gas wallet")}</td>
                <td safe>{x.chain}</td>
                <td safe>{x.token}</td>
                <td class="mono" safe>
                  {x.address}
                </td>
                <td safe>{units(ctx, x.chain, x.token, x.ledger)}</td>
                <td safe>{units(ctx, x.chain, x.token, x.chainBalance)}</td>
                <td safe>{units(ctx, x.chain, x.token, x.difference)}</td>
              </tr>
            )}
          />
        </>
      ) : null}
      <h2>{trm("Per address")}</h2>
      <TableWrap label="Balances per address">
        <table>
          <thead>
            <tr>
              {operator ? <th scope="col">{trm("Merchant")}</th> : null}
              <th scope="col">{trm("Chain")}</th>
              <th scope="col">{trm("Token")}</th>
              <th scope="col">{trm("Address")}</th>
              <th scope="col">{trm("Kind")}</th>
              <th scope="col">{trm("Available")}</th>
              <th scope="col">{trm("Reserved")}</th>
              <th scope="col">{trm("On chain (last reading)")}</th>
              <th scope="col">{trm("Read")}</th>
              <th scope="col">{trm("Check")}</th>
            </tr>
          </thead>
          <tbody>
            {lines.map((l) => (
              <tr>
                {operator ? <td safe>{l.merchantUid ?? "—"}</td> : null}
                <td safe>{l.chain}</td>
                <td safe>{l.token}</td>
                <td class="mono" safe>
                  {l.address}
                </td>
                <td safe>{tr(l.kind) + (l.bindKey ? ` (${l.bindKey})` : "")}</td>
                <td safe>{units(ctx, l.chain, l.token, l.available)}</td>
                <td safe>{units(ctx, l.chain, l.token, l.reserved)}</td>
                <td safe>{units(ctx, l.chain, l.token, l.chainBalance)}</td>
                <td>
                  <Time ms={l.checkedAt} />
                </td>
                <td>
                  <StatusBadge status={l.status} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </Layout>
  ) as string;
}

/** Available balance per chain and token of the viewer's scope, read by the dashboard's route handler. */
export const balanceTotals = async (d: BackofficeDeps, v: Viewer) => sheetTotals(await balanceSheet(d.ctx.db, { merchantId: v.merchantId ?? undefined }));

/** Available balance per chain and token of the viewer's scope (the merchant dashboard shows it). */
export function BalanceTotals(p: { totals: Awaited<ReturnType<typeof balanceTotals>>; display: DisplayCtx }): JSX.Element {
  const ctx = p.display;
  const { totals } = p;
  return (
    <>
      <h2>{trm("Balances")}</h2>
      <DataTable
        label="Balances per chain and token"
        head={["Chain", "Token", "Available", "Addresses"]}
        rows={totals}
        empty="No balances yet."
        row={(t) => (
          <tr>
            <td safe>{t.chain}</td>
            <td safe>{t.token}</td>
            <td safe>{units(ctx, t.chain, t.token, t.available)}</td>
            <td>{t.addresses}</td>
          </tr>
        )}
      />
      <p>
        <a href={PATH}>{trm("Balances per address")}</a>
      </p>
    </>
  );
}

export function balanceRoutes(d: BackofficeDeps) {
  return new Elysia({ name: "backoffice-balances" }).get(
    PATH,
    page(d, {}, async (v, { query }) => BalancesPage({ data: await loadBalances(d, v, query.chain, query.token), display: d.ctx, v, chain: query.chain, token: query.token })),
  );
}
