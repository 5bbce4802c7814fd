/** @jsxImportSource @kitajs/html */
// Exclusive wallets (bindings) with their deposit statistics and recent
// deposits; a merchant user sees its own, an operator every merchant's.
import { Elysia } from "elysia";
import { type BackofficeDeps, page, type Viewer } from "../guard";
import { NotFound } from "../errors";
import { DataTable, OrderLink, StatusBadge, TableWrap, Time } from "../views/common";
import { Layout } from "../views/layout";
import { tr, trf } from "../i18n";
import { exclusiveWallets, walletWithDeposits } from "../../payin/wallet-stats";
import { units } from "./treasury-format";

const PATH = "/backoffice/wallets";
const PAGE = 100;

function WalletsPage(p: { d: BackofficeDeps; v: Viewer; q?: string; page: number }): string {
  const { d, v } = p;
  const rows = exclusiveWallets(d.ctx.db, { merchantId: v.merchantId ?? undefined, q: p.q?.trim() || undefined, limit: PAGE + 1, offset: p.page * PAGE });
  const more = rows.length > PAGE;
  const operator = v.role === "operator";
  return (
    <Layout title={tr("Exclusive wallets")} viewer={v} path={PATH}>
      <form method="get" action={PATH} class="filters">
        <label for="w-q">
          {tr("bindKey, label or address")}
          <input id="w-q" name="q" value={p.q ?? ""} />
        </label>
        <button type="submit">{tr("Filter")}</button>
      </form>
      <TableWrap label="Exclusive wallets">
        <table>
          <thead>
            <tr>
              {operator ? <th scope="col">{tr("Merchant")}</th> : null}
              <th scope="col">bindKey</th>
              <th scope="col">{tr("Label")}</th>
              <th scope="col">{tr("Chain")}</th>
              <th scope="col">{tr("Token")}</th>
              <th scope="col">{tr("Address")}</th>
              <th scope="col">{tr("Deposits")}</th>
              <th scope="col">{tr("Received")}</th>
              <th scope="col">{tr("Last deposit")}</th>
              <th scope="col">{tr("Status")}</th>
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 ? (
              <tr>
                <td colspan={operator ? "10" : "9"}>{tr("No exclusive wallets.")}</td>
              </tr>
            ) : (
              rows.slice(0, PAGE).map((w) => (
                <tr>
                  {operator ? <td safe>{w.merchantUid}</td> : null}
                  <td>
                    <a href={`${PATH}/${w.id}`} safe>
                      {w.bindKey}
                    </a>
                  </td>
                  <td safe>{w.label ?? ""}</td>
                  <td safe>{w.chain}</td>
                  <td safe>{w.token}</td>
                  <td class="mono" safe>
                    {w.address}
                  </td>
                  <td>{w.deposits + (w.pending ? trf(" ({n} pending)", { n: w.pending }) : "")}</td>
                  <td safe>{units(d.ctx, w.chain, w.token, w.received)}</td>
                  <td>
                    <Time ms={w.lastDepositAt} />
                  </td>
                  <td>
                    <StatusBadge status={w.status} />
                  </td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </TableWrap>
      <nav class="pager" aria-label={tr("Pages")}>
        {p.page > 0 ? <a href={`${PATH}?q=${encodeURIComponent(p.q ?? "")}&page=${p.page - 1}`}>{tr("Previous")}</a> : null}
        {more ? <a href={`${PATH}?q=${encodeURIComponent(p.q ?? "")}&page=${p.page + 1}`}>{tr("Next")}</a> : null}
      </nav>
    </Layout>
  ) as string;
}

function WalletPage(p: { d: BackofficeDeps; v: Viewer; id: string }): string {
  const { d, v } = p;
  const found = walletWithDeposits(d.ctx.db, p.id, { merchantId: v.merchantId ?? undefined });
  if (!found) throw new NotFound("There is no such wallet.");
  const { wallet: w, deposits } = found;
  return (
    <Layout title={trf("Wallet {bindKey}", { bindKey: w.bindKey })} viewer={v} path={PATH}>
      <dl class="kv">
        <dt>{tr("Merchant")}</dt>
        <dd safe>{w.merchantUid}</dd>
        <dt>bindKey</dt>
        <dd safe>{w.bindKey}</dd>
        <dt>{tr("Label")}</dt>
        <dd safe>{w.label ?? "—"}</dd>
        <dt>{tr("Chain / token")}</dt>
        <dd safe>{`${w.chain} ${w.token}`}</dd>
        <dt>{tr("Address")}</dt>
        <dd class="mono" safe>
          {w.address}
        </dd>
        <dt>{tr("Deposits")}</dt>
        <dd>{w.deposits}</dd>
        <dt>{tr("Received (final)")}</dt>
        <dd safe>{units(d.ctx, w.chain, w.token, w.received)}</dd>
        <dt>{tr("Status")}</dt>
        <dd>
          <StatusBadge status={w.status} />
        </dd>
      </dl>
      <h2>{tr("Recent deposits")}</h2>
      <DataTable
        label="Recent deposits"
        head={["Block time", "Amount", "From", "Transaction", "Order", "Status"]}
        rows={deposits}
        empty="No deposits yet."
        row={(t) => (
          <tr>
            <td>
              <Time ms={t.blockTime} />
            </td>
            <td safe>{units(d.ctx, w.chain, w.token, t.amount)}</td>
            <td class="mono" safe>
              {t.fromAddress}
            </td>
            <td class="mono" safe>
              {t.txHash}
            </td>
            <td>
              {t.orderNo ? (
                <OrderLink orderNo={t.orderNo} />
              ) : (
                "—"
              )}
            </td>
            <td>
              <StatusBadge status={t.orderStatus ?? t.status} />
            </td>
          </tr>
        )}
      />
      <p>
        <a href={PATH}>{tr("All wallets")}</a>
      </p>
    </Layout>
  ) as string;
}

export function walletRoutes(d: BackofficeDeps) {
  return new Elysia({ name: "backoffice-wallets" })
    .get(PATH, page(d, {}, (v, { query }) => WalletsPage({ d, v, q: query.q, page: Math.max(0, Number.parseInt(query.page ?? "0", 10) || 0) })))
    .get(`${PATH}/:id`, page(d, {}, (v, { params }) => WalletPage({ d, v, id: params.id! })));
}
