// Every back-office page, filter, search, export and order page stays a seek as
// the tables grow (DESIGN 11 "Growth", issue 23): the pages are requested over
// HTTP as an operator and as a merchant user, every SQL statement they run is
// recorded, and each one that reads a large table is EXPLAINed on a database
// with no statistics (so SQLite plans for large tables) and must not SCAN a
// large table or sort through a temporary b-tree.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { openDb, readDb } from "../db/client";
import { migrate } from "../db/migrate";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { aliases, formatPlan, LARGE_TABLES, planProblems, queryPlan } from "../testing/query-plan";
import { addUser, httpSession } from "../testing/backoffice-browser";

let gw: TestGateway;
const seen = new Map<string, string>(); // SQL -> the page that ran it
/**
 * Statements prepared by back-office code (the jobs share the connection and are not
 * what a page costs). The balances pages are left to the balance rows' work (issue 23):
 * the operator's sheet still lists every address balance and sorts the mismatches.
 */
const fromBackoffice = (stack: string) => /src\/(backoffice|audit)\//.test(stack) && !/pages\/balances\.tsx/.test(stack);
let recording = "";
const data = {} as { paid: Record<string, string>; deposit: number; wallet?: string; payout?: string; callbackOf?: string };

/** Records every statement a connection of the gateway prepares from here on. */
function record(client: Database) {
  Error.stackTraceLimit = 100; // the page's frame sits below drizzle's
  for (const m of ["prepare", "query"] as const) {
    const orig = client[m].bind(client) as (sql: string) => unknown;
    (client as unknown as Record<string, unknown>)[m] = (sql: string) => {
      // The stack below this wrapper: who prepared it.
      if (recording && !seen.has(sql) && fromBackoffice((new Error().stack ?? "").split("\n").slice(2).join("\n"))) seen.set(sql, recording);
      return orig(sql);
    };
  }
}

beforeAll(async () => {
  gw = await startTestGateway({ config: { chains: { TRON: { confirmations: 2 } }, payin: { shared_pool_size: 1 } } });
  const sb = sandboxClient(gw.url);
  const create = (merchantOrderNo: string, amount: string) =>
    gw.client.request<Record<string, string>>("POST", "/openapi/payin/orders", { body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo, amount, notifyUrl: "http://127.0.0.1:9/cb" } });
  data.paid = await create("PLAN-1", "5");
  const paid = await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: data.paid.address, amount: "5" });
  await sb.mine("TRON", 2);
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: data.paid.address, amount: "0.5" });
  await sb.mine("TRON", 2);
  data.paid.txHash = String(paid.txHash);
  data.deposit = gw.ctx.db.$client.query<{ id: number }, []>("SELECT max(id) AS id FROM transfers").get()!.id;
  try {
    const b = await gw.client.request<Record<string, string>>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: "plan-1" } });
    data.wallet = gw.ctx.db.$client.query<{ id: string }, [string]>("SELECT id FROM bindings WHERE bind_key = ?").get("plan-1")?.id;
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount: "20" });
    await sb.mine("TRON", 2);
    const po = await gw.client.request<Record<string, string>>("POST", "/openapi/payout/orders", {
      body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "PLAN-PO-1", fromAddress: b.address, toAddress: data.paid.address, amount: "1", notifyUrl: "http://127.0.0.1:9/po" },
    });
    data.payout = po.orderNo;
  } catch {
    // Without a funded source the payout page runs with an unknown orderNo (same queries).
  }
  // Both connections: the pages' reads run on the read connection (db/client.ts readDb), their writes on the main one.
  record(gw.ctx.db.$client);
  record(readDb(gw.ctx.db).$client);
});
afterAll(() => gw.stop());

const ORDER_FILTERS = (statuses: string[], merchant?: string) => [
  "",
  "?status=" + statuses[0],
  "?status=" + statuses[statuses.length - 1],
  "?chain=TRON",
  "?token=USDT",
  "?from=2020-01-01&to=2099-12-31",
  "?from=2099-01-01",
  "?to=2000-01-01",
  "?chain=TRON&token=USDT&status=" + statuses[0] + "&from=2020-01-01&to=2099-12-31",
  "?before=1000000",
  ...(merchant ? [`?merchant=${merchant}`, `?merchant=${merchant}&status=${statuses[0]}`, `?merchant=${merchant}&from=2020-01-01&to=2099-12-31&before=1000000`] : []),
];

function pages(role: "operator" | "merchant"): string[] {
  const m = role === "operator" ? gw.merchant.uid : undefined;
  const lists = [
    ...ORDER_FILTERS(["waiting_payment", "completed", "cancelled"], m).flatMap((f) => [`/backoffice/payins${f}`, `/backoffice/payins.csv${f}`]),
    ...ORDER_FILTERS(["submitted", "failed"], m).flatMap((f) => [`/backoffice/payouts${f}`, `/backoffice/payouts.csv${f}`]),
    ...ORDER_FILTERS(["pending", "confirmed", "unmatched", "matched"], m).flatMap((f) => [`/backoffice/deposits${f}`, `/backoffice/deposits.csv${f}`]),
  ];
  // The callbacks page (issue 30): every state, business type, order, dates, keyset.
  const callbackFilters = [
    "",
    "?state=failed",
    "?state=queued",
    "?state=retrying",
    "?state=delivered",
    "?state=held",
    "?type=payin",
    "?state=delivered&type=payout&from=2020-01-01&to=2099-12-31",
    "?from=2099-01-01",
    `?order=${data.paid.orderNo}`,
    `?order=${data.paid.orderNo}&state=delivered`,
    "?before=1000000",
    ...(m ? [`?merchant=${m}`, `?merchant=${m}&state=failed`, `?merchant=${m}&from=2020-01-01&to=2099-12-31&before=1000000`] : []),
  ].map((f) => `/backoffice/callbacks${f}`);
  // Exact values and (issue 30) their first characters: prefix range seeks.
  const prefixes = [data.paid.orderNo.slice(0, 12), "PLAN", data.paid.txHash.slice(0, 8), data.paid.address.slice(0, 6), "PO20"];
  const searches = [data.paid.orderNo, "PLAN-1", data.paid.txHash, data.paid.address, "TXnotAnAddress", data.payout ?? "PO2026", ...prefixes].map((q) => `/backoffice/search?q=${encodeURIComponent(q)}`);
  const common = [
    "/backoffice",
    "/backoffice/counts.json",
    "/backoffice/callbacks",
    `/backoffice/orders/${data.paid.orderNo}`,
    `/backoffice/orders/${data.payout ?? "PO20261124000000000000000"}`,
    `/backoffice/deposits/${data.deposit}`,
    "/backoffice/security",
    "/backoffice/balances",
    "/backoffice/wallets",
    ...(data.wallet ? [`/backoffice/wallets/${data.wallet}`] : []),
  ];
  const operator = ["/backoffice/exceptions", "/backoffice/merchants", `/backoffice/merchants/${gw.merchant.uid}`, "/backoffice/users", "/backoffice/alerts", "/backoffice/audit", "/backoffice/audit?actor=planop", "/backoffice/audit.csv"];
  const merchant = ["/backoffice/developer", "/backoffice/batches", "/backoffice/collection"];
  return [...lists, ...callbackFilters, ...searches, ...common, ...(role === "operator" ? operator : merchant)];
}

test("every back-office page, filter, search and export reads large tables by seeks only", async () => {
  const op = await httpSession(gw.url, await addUser(gw, "planop", "operator"));
  const shop = await httpSession(gw.url, await addUser(gw, "planshop", "merchant", gw.merchant.uid));
  for (const [who, cookie] of [["operator", op], ["merchant", shop]] as const) {
    for (const path of pages(who)) {
      recording = `${who} ${path}`;
      const res = await fetch(gw.url + path, { headers: { cookie }, redirect: "manual" });
      await res.text();
      // (An unknown payout orderNo is a 404 after the same lookups.)
      expect(res.status, recording).toBeLessThan(path.includes("/PO20261124000000000000000") ? 405 : 400);
    }
  }
  recording = "";

  // Plans as for large tables: a fresh schema with no statistics.
  const fresh = openDb(":memory:");
  await migrate(fresh);
  const large = new Set(LARGE_TABLES);
  const problems: string[] = [];
  let checked = 0;
  for (const [sql, page] of seen) {
    if (!/^\s*(SELECT|WITH)/i.test(sql)) continue;
    if (![...aliases(sql).values()].some((t) => large.has(t))) continue;
    checked++;
    const plan = queryPlan(fresh, sql);
    const p = planProblems(plan, sql);
    if (p.length) problems.push(`${page}\n  ${p.join("\n  ")}\n  SQL: ${sql.replace(/\s+/g, " ").slice(0, 400)}\n${formatPlan(plan)}`);
  }
  // PLAN_DUMP=file.json: the statements and their pages, to EXPLAIN them on a real database (docs/backoffice.md).
  if (process.env.PLAN_DUMP) await Bun.write(process.env.PLAN_DUMP, JSON.stringify([...seen], null, 1));
  expect(checked).toBeGreaterThan(40);
  expect(problems).toEqual([]);
}, 120_000);
