/** @jsxImportSource @kitajs/html */
// Lists of pay-ins, payouts and deposits with filters, paging and CSV export
// of exactly what is filtered; and the search results. Both roles, scoped.
import { Elysia } from "elysia";
import type { Children } from "@kitajs/html";
import { chainCodes, tokenSymbols } from "../../chains/registry";
import { listMerchants } from "../../merchants/service";
import { type BackofficeDeps, page, redirect, type Viewer } from "../guard";
import { decimalsOf } from "../format";
import { filterQuery, type ListFilter, parseFilter } from "../queries/filters";
import { type Column, csvResponse, csvStream } from "../queries/csv";
import {
  countDeposits,
  countPayins,
  countPayouts,
  DEPOSIT_STATUSES,
  type DepositListRow,
  listDeposits,
  listPayins,
  listPayouts,
  type Page,
  PAYIN_STATUSES,
  type PayinListRow,
  PAYOUT_STATUSES,
  type PayoutListRow,
} from "../queries/lists";
import { COUNT_CAP, countLabel } from "../queries/keyset";
import { MIN_PREFIX, search, type SearchResult, singleHit } from "../queries/search";
import { DataTable, DateRangeAndFilter, FilterSelect, OrderLink, StatusBadge, Time } from "../views/common";
import { Layout } from "../views/layout";
import { tr, trf, trm } from "../i18n";

const iso = (ms: number | null) => (ms === null ? "" : new Date(ms).toISOString());

interface ListDef<T extends { id: number }> {
  path: string;
  title: string;
  statuses: readonly string[];
  csvName: string;
  fetch: (d: BackofficeDeps, v: Viewer, f: ListFilter, before?: number) => Promise<Page<T>>;
  count: (d: BackofficeDeps, v: Viewer, f: ListFilter) => Promise<number>;
  csv: Column<T>[];
  head: string[];
  row: (r: T) => Children;
}

const scope = (v: Viewer) => ({ merchantId: v.merchantId });

/** Pay-in and payout lists show the same columns. */
const ORDER_HEAD = ["Order", "Merchant", "Merchant order", "Chain", "Amount", "Status", "Created"];
function orderRow(r: { orderNo: string; merchantUid: string; merchantOrderNo: string; chain: string; amount: string; token: string; status: string; createdAt: number }): JSX.Element {
  return (
    <tr>
      <td>
        <OrderLink orderNo={r.orderNo} />
      </td>
      <td safe>{r.merchantUid}</td>
      <td safe>{r.merchantOrderNo}</td>
      <td safe>{r.chain}</td>
      <td safe>{`${r.amount} ${r.token}`}</td>
      <td>
        <StatusBadge status={r.status} />
      </td>
      <td>
        <Time ms={r.createdAt} />
      </td>
    </tr>
  );
}

/** The CSV columns pay-ins and payouts share, in front of each one's own. */
const orderCsv = <T extends PayinListRow | PayoutListRow>(): Column<T>[] => [
  { header: "orderNo", value: (r) => r.orderNo },
  { header: "merchantUid", value: (r) => r.merchantUid },
  { header: "merchantOrderNo", value: (r) => r.merchantOrderNo },
  { header: "chainCode", value: (r) => r.chain },
  { header: "tokenSymbol", value: (r) => r.token },
  { header: "amount", value: (r) => r.amount },
];

const PAYINS: ListDef<PayinListRow> = {
  path: "/backoffice/payins",
  title: "Pay-ins",
  statuses: PAYIN_STATUSES,
  csvName: "payins.csv",
  fetch: async (d, v, f, before) => await listPayins(d.ctx.db, scope(v), f, { before }),
  count: async (d, v, f) => await countPayins(d.ctx.db, scope(v), f),
  csv: [
    ...orderCsv<PayinListRow>(),
    { header: "paidAmount", value: (r) => r.paidAmount },
    { header: "status", value: (r) => r.status },
    { header: "txHash", value: (r) => r.txHash },
    { header: "address", value: (r) => r.address },
    { header: "createdAt", value: (r) => iso(r.createdAt) },
    { header: "completedAt", value: (r) => iso(r.completedAt) },
  ],
  head: ORDER_HEAD,
  row: orderRow,
};

const PAYOUTS: ListDef<PayoutListRow> = {
  path: "/backoffice/payouts",
  title: "Payouts",
  statuses: PAYOUT_STATUSES,
  csvName: "payouts.csv",
  fetch: async (d, v, f, before) => await listPayouts(d.ctx.db, scope(v), f, { before }),
  count: async (d, v, f) => await countPayouts(d.ctx.db, scope(v), f),
  csv: [
    ...orderCsv<PayoutListRow>(),
    { header: "fee", value: (r) => r.fee },
    { header: "status", value: (r) => r.status },
    { header: "failedStage", value: (r) => r.failedStage },
    { header: "txHash", value: (r) => r.txHash },
    { header: "fromAddress", value: (r) => r.fromAddress },
    { header: "toAddress", value: (r) => r.toAddress },
    { header: "createdAt", value: (r) => iso(r.createdAt) },
  ],
  head: ORDER_HEAD,
  row: orderRow,
};

const DEPOSITS: ListDef<DepositListRow> = {
  path: "/backoffice/deposits",
  title: "Deposits",
  statuses: DEPOSIT_STATUSES,
  csvName: "deposits.csv",
  fetch: async (d, v, f, before) => await listDeposits(d.ctx.db, scope(v), f, decimalsOf(d.ctx), { before }),
  count: async (d, v, f) => await countDeposits(d.ctx.db, scope(v), f),
  csv: [
    { header: "depositId", value: (r) => r.id },
    { header: "merchantUid", value: (r) => r.merchantUid },
    { header: "chainCode", value: (r) => r.chain },
    { header: "tokenSymbol", value: (r) => r.token },
    { header: "amount", value: (r) => r.amount },
    { header: "txHash", value: (r) => r.txHash },
    { header: "fromAddress", value: (r) => r.fromAddress },
    { header: "toAddress", value: (r) => r.toAddress },
    { header: "status", value: (r) => r.status },
    { header: "disposition", value: (r) => r.disposition },
    { header: "orderNo", value: (r) => r.orderNo },
    { header: "blockTime", value: (r) => iso(r.blockTime) },
  ],
  head: ["Deposit", "Merchant", "Chain", "Amount", "To address", "State", "Order", "Block time"],
  row: (r) => (
    <tr>
      <td>
        <a href={`/backoffice/deposits/${r.id}`} safe>
          {`#${r.id}`}
        </a>
      </td>
      <td safe>{r.merchantUid}</td>
      <td safe>{r.chain}</td>
      <td safe>{`${r.amount} ${r.token}`}</td>
      <td class="mono" safe>
        {r.toAddress}
      </td>
      <td>
        <StatusBadge status={r.disposition} /> <StatusBadge status={r.status} />
      </td>
      <td>
        {r.orderNo ? (
          <OrderLink orderNo={r.orderNo} />
        ) : (
          "—"
        )}
      </td>
      <td>
        <Time ms={r.blockTime} />
      </td>
    </tr>
  ),
};

function FilterForm(p: { merchantUids: string[]; v: Viewer; def: ListDef<never>; f: ListFilter }): JSX.Element {
  const r = p.f.raw;
  return (
    <form method="get" action={p.def.path} class="filters">
      {p.v.role === "operator" ? (
        <FilterSelect id="merchant" label="Merchant" value={r.merchant} options={p.merchantUids} />
      ) : (
        <></>
      )}
      <FilterSelect id="chain" label="Chain" value={r.chain} options={chainCodes()} />
      <FilterSelect id="token" label="Token" value={r.token} options={tokenSymbols()} />
      <FilterSelect id="status" label="Status" value={r.status} options={p.def.statuses} />
      <DateRangeAndFilter raw={r} />
    </form>
  );
}

function listRoutes<T extends { id: number }>(d: BackofficeDeps, def: ListDef<T>) {
  return new Elysia({ name: `backoffice-list-${def.path}` })
    .get(
      def.path,
      page(d, {}, async (v, { query }) => {
        const f = parseFilter(query, def.statuses);
        const before = query.before && /^\d{1,15}$/.test(query.before) ? Number(query.before) : undefined;
        const pg = await def.fetch(d, v, f, before);
        const total = await def.count(d, v, f);
        return (
          <Layout title={def.title} viewer={v} path={def.path}>
            <FilterForm merchantUids={v.role === "operator" ? (await listMerchants(d.ctx.db)).map((m) => m.uid) : []} v={v} def={def as unknown as ListDef<never>} f={f} />
            <p class="actions">
              <span data-total={total > COUNT_CAP ? `${COUNT_CAP}+` : String(total)} safe>{trf("{n} found", { n: countLabel(total) })}</span>
              <a href={`${def.path}.csv${filterQuery(f)}`}>{trm("Export CSV")}</a>
            </p>
            <DataTable label={def.title} head={def.head} rows={pg.rows} row={def.row} />
            <nav class="pager" aria-label={tr("Pages")}>
              {before ? <a href={`${def.path}${filterQuery(f)}`}>{trm("Newest")}</a> : <></>}
              {pg.nextBefore ? <a href={`${def.path}${filterQuery(f, { before: String(pg.nextBefore) })}`}>{trm("Older")}</a> : <></>}
            </nav>
          </Layout>
        );
      }),
    )
    .get(
      `${def.path}.csv`,
      page(d, {}, (v, { query }) => {
        const f = parseFilter(query, def.statuses);
        return csvResponse(def.csvName, csvStream(def.csv, async (before) => await def.fetch(d, v, f, before)));
      }),
    );
}

/** Pay-ins or payouts the search found (nothing when none): "<title>" heading, "<title> found" table. */
function OrdersFound(p: { title: string; rows: Pick<SearchResult["payins"][number], "orderNo" | "merchantUid" | "merchantOrderNo" | "chain" | "token" | "amount" | "status" | "createdAt">[] }): JSX.Element {
  if (!p.rows.length) return <></>;
  return (
    <>
      <h2 safe>{tr(p.title)}</h2>
      <DataTable
        label={`${p.title} found`}
        head={["Order", "Merchant", "Merchant order", "Amount", "Status", "Created"]}
        rows={p.rows}
        row={(o) => (
          <tr>
            <td>
              <OrderLink orderNo={o.orderNo} />
            </td>
            <td safe>{o.merchantUid}</td>
            <td safe>{o.merchantOrderNo}</td>
            <td safe>{`${o.amount} ${o.token} (${o.chain})`}</td>
            <td>
              <StatusBadge status={o.status} />
            </td>
            <td>
              <Time ms={o.createdAt} />
            </td>
          </tr>
        )}
      />
    </>
  );
}

function SearchPage(p: { v: Viewer; q: string; r: SearchResult }): string {
  const r = p.r;
  const none = !r.payins.length && !r.payouts.length && !r.deposits.length;
  return (
    <Layout title="Search" viewer={p.v} q={p.q}>
      {!p.q.trim() ? <p>{trm("Type an orderNo, merchantOrderNo, txHash or address (or their first characters) in the search box.")}</p> : none ? <p safe>{trf("Nothing found for “{q}”.", { q: p.q }) + (p.q.trim().length < MIN_PREFIX ? trf(" Type at least {n} characters to find what starts with them.", { n: MIN_PREFIX }) : "")}</p> : <></>}
      <OrdersFound title="Pay-ins" rows={r.payins} />
      <OrdersFound title="Payouts" rows={r.payouts} />
      {r.deposits.length ? (
        <>
          <h2>{trm("Deposits")}</h2>
          <DataTable
            label="Deposits found"
            head={["Deposit", "Merchant", "Amount", "State", "Order", "Block time"]}
            rows={r.deposits}
            row={(t) => (
              <tr>
                <td>
                  <a href={`/backoffice/deposits/${t.id}`} safe>
                    {`#${t.id}`}
                  </a>
                </td>
                <td safe>{t.merchantUid}</td>
                <td safe>{`${t.amount} ${t.token} (${t.chain})`}</td>
                <td>
                  <StatusBadge status={t.disposition} />
                </td>
                <td class="mono" safe>
                  {t.orderNo || "—"}
                </td>
                <td>
                  <Time ms={t.blockTime} />
                </td>
              </tr>
            )}
          />
        </>
      ) : (
        <></>
      )}
    </Layout>
  ) as string;
}

export function listsRoutes(d: BackofficeDeps) {
  return new Elysia({ name: "backoffice-lists" })
    .use(listRoutes(d, PAYINS))
    .use(listRoutes(d, PAYOUTS))
    .use(listRoutes(d, DEPOSITS))
    .get(
      "/backoffice/search",
      page(d, {}, async (v, { query }) => {
        const q = (query.q ?? "").slice(0, 200);
        const r = await search(d.ctx.db, { merchantId: v.merchantId }, q, decimalsOf(d.ctx));
        // One record found: open it (its page says what it is); several: the list.
        const one = singleHit(r);
        return one ? redirect(one) : SearchPage({ v, q, r });
      }),
    );
}
