/** @jsxImportSource @kitajs/html */
// Exclusive wallets (bindings) with their deposit statistics and recent
// deposits; a merchant user sees its own, an operator every merchant's.
import { Elysia } from "elysia";
import { type BackofficeDeps, page, type Viewer } from "../guard";
import { NotFound } from "../errors";
import { DataTable, OrderLink, StatusBadge, TableWrap, Time } from "../views/common";
import { Layout } from "../views/layout";
import { exclusiveWallets, walletWithDeposits } from "../../payin/wallet-stats";
import { units } from "./treasury-format";
import type { DisplayCtx } from "../format";

const PATH = "/backoffice/wallets";
const PAGE = 100;

/** The wallets page's rows, read by its route handler (the page runs no query). */
const loadWallets = (d: BackofficeDeps, v: Viewer, q: string | undefined, pageNo: number) =>
  exclusiveWallets(d.ctx.db, { merchantId: v.merchantId ?? undefined, q: q?.trim() || undefined, limit: PAGE + 1, offset: pageNo * PAGE });

function WalletsPage(p: { rows: ReturnType<typeof loadWallets>; display: DisplayCtx; v: Viewer; q?: string; page: number }): string {
  const { display, v, rows } = p;
  const more = rows.length > PAGE;
  const operator = v.role === "operator";
  return (
    <Layout title="Exclusive wallets" viewer={v} path={PATH}>
      <form method="get" action={PATH} class="filters">
        <label for="w-q">
          bindKey, label or address
          <input id="w-q" name="q" value={p.q ?? ""} />
        </label>
        <button type="submit">Filter</button>
      </form>
      <TableWrap label="Exclusive wallets">
        <table>
          <thead>
            <tr>
              {operator ? <th scope="col">Merchant</th> : null}
              <th scope="col">bindKey</th>
              <th scope="col">Label</th>
              <th scope="col">Chain</th>
              <th scope="col">Token</th>
              <th scope="col">Address</th>
              <th scope="col">Deposits</th>
              <th scope="col">Received</th>
              <th scope="col">Last deposit</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 ? (
              <tr>
                <td colspan={operator ? "10" : "9"}>No exclusive wallets.</td>
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
                  <td>{w.deposits + (w.pending ? ` (${w.pending} pending)` : "")}</td>
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
      <nav class="pager" aria-label="Pages">
        {p.page > 0 ? <a href={`${PATH}?q=${encodeURIComponent(p.q ?? "")}&page=${p.page - 1}`}>Previous</a> : null}
        {more ? <a href={`${PATH}?q=${encodeURIComponent(p.q ?? "")}&page=${p.page + 1}`}>Next</a> : null}
      </nav>
    </Layout>
  ) as string;
}

function WalletPage(p: { found: ReturnType<typeof walletWithDeposits>; display: DisplayCtx; v: Viewer }): string {
  const { display, v, found } = p;
  if (!found) throw new NotFound("There is no such wallet.");
  const { wallet: w, deposits } = found;
  return (
    <Layout title={`Wallet ${w.bindKey}`} viewer={v} path={PATH}>
      <dl class="kv">
        <dt>Merchant</dt>
        <dd safe>{w.merchantUid}</dd>
        <dt>bindKey</dt>
        <dd safe>{w.bindKey}</dd>
        <dt>Label</dt>
        <dd safe>{w.label ?? "—"}</dd>
        <dt>Chain / token</dt>
        <dd safe>{`${w.chain} ${w.token}`}</dd>
        <dt>Address</dt>
        <dd class="mono" safe>
          {w.address}
        </dd>
        <dt>Deposits</dt>
        <dd>{w.deposits}</dd>
        <dt>Received (final)</dt>
        <dd safe>{units(display, w.chain, w.token, w.received)}</dd>
        <dt>Status</dt>
        <dd>
          <StatusBadge status={w.status} />
        </dd>
      </dl>
      <h2>Recent deposits</h2>
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
        <a href={PATH}>All wallets</a>
      </p>
    </Layout>
  ) as string;
}

export function walletRoutes(d: BackofficeDeps) {
  return new Elysia({ name: "backoffice-wallets" })
    .get(PATH, page(d, {}, (v, { query }) => {
      const pageNo = Math.max(0, Number.parseInt(query.page ?? "0", 10) || 0);
      return WalletsPage({ rows: loadWallets(d, v, query.q, pageNo), display: d.ctx, v, q: query.q, page: pageNo });
    }))
    .get(`${PATH}/:id`, page(d, {}, (v, { params }) => WalletPage({ found: walletWithDeposits(d.ctx.db, params.id!, { merchantId: v.merchantId ?? undefined }), display: d.ctx, v })));
}
