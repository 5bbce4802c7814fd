/** @jsxImportSource @kitajs/html */
// Exclusive wallets (bindings) with their deposit statistics and recent
// deposits; a merchant user sees its own, an operator every merchant's.
import { Elysia } from "elysia";
import { type BackofficeDeps, page, type Viewer } from "../guard";
import { NotFound } from "../errors";
import { DataTable, OrderLink, StatusBadge, TableWrap, Time } from "../views/common";
import { Layout } from "../views/layout";
import { tr, trf, trm } from "../i18n";
import { exclusiveWallets, walletWithDeposits } from "../../payin/wallet-stats";
import { units } from "./treasury-format";
import type { DisplayCtx } from "../format";

const PATH = "/backoffice/wallets";
const PAGE = 100;

/** The wallets page's rows, read by its route handler (the page runs no query). */
const loadWallets = async (d: BackofficeDeps, v: Viewer, q: string | undefined, pageNo: number) =>
  await exclusiveWallets(d.ctx.db, { merchantId: v.merchantId ?? undefined, q: q?.trim() || undefined, limit: PAGE + 1, offset: pageNo * PAGE });

function WalletsPage(p: { rows: Awaited<ReturnType<typeof loadWallets>>; display: DisplayCtx; v: Viewer; q?: string; page: number }): string {
  const { display, v, rows } = p;
  const more = rows.length > PAGE;
  const operator = v.role === "operator";
  return (
    <Layout title={tr("Exclusive wallets")} viewer={v} path={PATH}>
      <form method="get" action={PATH} class="filters">
        <label for="w-q">
          {trm("bindKey, label or address")}
          <input id="w-q" name="q" value={p.q ?? ""} />
        </label>
        <button type="submit">{trm("Filter")}</button>
      </form>
      <TableWrap label="Exclusive wallets">
        <table>
          <thead>
            <tr>
              {operator ? <th scope="col">{trm("Merchant")}</th> : null}
              <th scope="col">bindKey</th>
              <th scope="col">{trm("Label")}</th>
              <th scope="col">{trm("Chain")}</th>
              <th scope="col">{trm("Token")}</th>
              <th scope="col">{trm("Address")}</th>
              <th scope="col">{trm("Deposits")}</th>
              <th scope="col">{trm("Received")}</th>
              <th scope="col">{trm("Last deposit")}</th>
              <th scope="col">{trm("Status")}</th>
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 ? (
              <tr>
                <td colspan={operator ? "10" : "9"}>{trm("No exclusive wallets.")}</td>
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
                  <td safe>{units(display, w.chain, w.token, w.received)}</td>
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
        {p.page > 0 ? <a href={`${PATH}?q=${encodeURIComponent(p.q ?? "")}&page=${p.page - 1}`}>{trm("Previous")}</a> : null}
        {more ? <a href={`${PATH}?q=${encodeURIComponent(p.q ?? "")}&page=${p.page + 1}`}>{trm("Next")}</a> : null}
      </nav>
    </Layout>
  ) as string;
}

function WalletPage(p: { found: Awaited<ReturnType<typeof walletWithDeposits>>; display: DisplayCtx; v: Viewer }): string {
  const { display, v, found } = p;
  if (!found) throw new NotFound("There is no such wallet.");
  const { wallet: w, deposits } = found;
  return (
    <Layout title={trf("Wallet {bindKey}", { bindKey: w.bindKey })} viewer={v} path={PATH}>
      <dl class="kv">
        <dt>{trm("Merchant")}</dt>
        <dd safe>{w.merchantUid}</dd>
        <dt>bindKey</dt>
        <dd safe>{w.bindKey}</dd>
        <dt>{trm("Label")}</dt>
        <dd safe>{w.label ?? "—"}</dd>
        <dt>{trm("Chain / token")}</dt>
        <dd safe>{`${w.chain} ${w.token}`}</dd>
        <dt>{trm("Address")}</dt>
        <dd class="mono" safe>
          {w.address}
        </dd>
        <dt>{trm("Deposits")}</dt>
        <dd>{w.deposits}</dd>
        <dt>{trm("Received (final)")}</dt>
        <dd safe>{units(display, w.chain, w.token, w.received)}</dd>
        <dt>{trm("Status")}</dt>
        <dd>
          <StatusBadge status={w.status} />
        </dd>
      </dl>
      <h2>{trm("Recent deposits")}</h2>
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
            <td safe>{units(display, w.chain, w.token, t.amount)}</td>
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
        <a href={PATH}>{trm("All wallets")}</a>
      </p>
    </Layout>
  ) as string;
}

export function walletRoutes(d: BackofficeDeps) {
  return new Elysia({ name: "backoffice-wallets" })
    .get(PATH, page(d, {}, async (v, { query }) => {
      const pageNo = Math.max(0, Number.parseInt(query.page ?? "0", 10) || 0);
      return WalletsPage({ rows: await loadWallets(d, v, query.q, pageNo), display: d.ctx, v, q: query.q, page: pageNo });
    }))
    .get(`${PATH}/:id`, page(d, {}, async (v, { params }) => WalletPage({ found: await walletWithDeposits(d.ctx.db, params.id!, { merchantId: v.merchantId ?? undefined }), display: d.ctx, v })));
}
